#include "actors/support/installed_files.hpp"

namespace mixerd {

std::filesystem::path installed_share_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return exe.parent_path().parent_path() / "share" / "mixerd";
}

}  // namespace mixerd
