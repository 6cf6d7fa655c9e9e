#include "plugins/bridge/plugin_paths.hpp"

#include <vector>

namespace mixerd::bridge {

namespace fs = std::filesystem;

namespace {

// The parts of a path without the empty one a trailing '/' leaves.
std::vector<fs::path> parts_of(const fs::path& p) {
  std::vector<fs::path> parts;
  for (const auto& part : p)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

}  // namespace

bool lies_below(const fs::path& folder, const fs::path& path) {
  if (!folder.is_absolute() || !path.is_absolute()) return false;
  const auto outer = parts_of(folder);
  const auto inner = parts_of(path);
  if (inner.size() <= outer.size()) return false;
  for (std::size_t i = 0; i < outer.size(); ++i)
    if (outer[i] != inner[i] || inner[i] == "." || inner[i] == "..") return false;
  for (std::size_t i = outer.size(); i < inner.size(); ++i)
    if (inner[i] == "." || inner[i] == "..") return false;
  return true;
}

std::string file_outside_folder(const fs::path& folder, const std::string& name,
                                const std::string& what) {
  std::error_code ec;
  const auto resolved_folder = fs::canonical(folder, ec);
  if (ec) return "the plugin's folder cannot be resolved: " + ec.message();
  const auto resolved = fs::canonical(folder / name, ec);
  if (ec) return what + " cannot be resolved: " + ec.message();
  if (!lies_below(resolved_folder, resolved))
    return what + " leads outside the plugin's folder (a symbolic link)";
  return {};
}

}  // namespace mixerd::bridge
