#include "actors/profiles/profile_folder.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "actors/support/log.hpp"
#include "actors/support/settings_file.hpp"

namespace mixerd::profile_folder {

namespace {

namespace fs = std::filesystem;
constexpr std::string_view component = "profiles";

std::error_code last_error() {
  return {errno, std::generic_category()};
}

// A temporary of write_atomically: "." + "<file>.json" + "." + 6 characters of mkstemp.
bool is_temporary(const std::string& name) {
  constexpr std::string_view tail = ".json.";
  return name.size() > 1 + tail.size() + 6 && name.front() == '.' &&
         name.compare(name.size() - 6 - tail.size(), tail.size(), tail) == 0;
}

void sync_folder(const std::string& folder) {
  int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

std::error_code ensure(const std::string& folder) {
  std::error_code ec;
  if (fs::create_directories(folder, ec) && ::chmod(folder.c_str(), 0700) != 0) return last_error();
  if (ec) return ec;
  if (!fs::is_directory(folder, ec)) return std::make_error_code(std::errc::not_a_directory);
  return {};
}

void remove_leftover_temporaries(const std::string& folder) {
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!is_temporary(name)) continue;
    std::error_code ignored;
    if (fs::remove(it->path(), ignored))
      log::info(component, "removed ", it->path().string(), " (a write cut short)");
  }
}

std::string path_of(const std::string& folder, const std::string& name) {
  return folder + "/" + profiles::file_name_of(name);
}

read_result read(const std::string& folder, const std::string& name) {
  read_result out;
  std::string text;
  switch (settings_file::read_bounded(path_of(folder, name), profiles::max_file_bytes + 1, text,
                                      out.error, /*follow_links=*/false)) {
    case settings_file::read_status::missing:
      out.missing = true;
      return out;
    case settings_file::read_status::failed:
      return out;
    case settings_file::read_status::ok:
      break;
  }
  auto parsed = profiles::parse_profile(text);
  if (!parsed.file) {
    out.error = std::move(parsed.error);
    return out;
  }
  if (parsed.file->name != name) {
    out.error =
        "name \"" + parsed.file->name + "\" is not the one its file name says (\"" + name + "\")";
    return out;
  }
  out.file = std::move(parsed.file);
  return out;
}

std::vector<profile_summary> list(const std::string& folder) {
  std::vector<profile_summary> out;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec) || it->is_symlink(type_ec) || is_temporary(file)) continue;
    auto name = profiles::name_of_file(file);
    if (!name) {
      log::warn(component, it->path().string(),
                ": skipped: not the file name of a profile (a name with every byte outside "
                "A-Z a-z 0-9 - _ written %XX, then .json)");
      continue;
    }
    auto read_back = read(folder, *name);
    if (read_back.file) {
      out.push_back(profiles::summary_of(*read_back.file));
      continue;
    }
    if (read_back.missing) continue;  // removed meanwhile
    log::error(component, it->path().string(), ": ", read_back.error,
               "; listed with this error and left untouched until it is fixed");
    profile_summary broken;
    broken.name = std::move(*name);
    broken.error = std::move(read_back.error);
    out.push_back(std::move(broken));
  }
  if (ec) log::error(component, "cannot list ", folder, ": ", ec.message());
  std::sort(out.begin(), out.end(),
            [](const profile_summary& a, const profile_summary& b) { return a.name < b.name; });
  return out;
}

std::error_code write(const std::string& folder, const profiles::profile_file& file) {
  return write(folder, file.name, profiles::serialize(file));
}

std::error_code write(const std::string& folder, const std::string& name, const std::string& text) {
  // What would not load back is not written (a state this large is not one the API makes).
  if (text.size() > profiles::max_file_bytes)
    return std::make_error_code(std::errc::file_too_large);
  return settings_file::write_atomically(path_of(folder, name), text);
}

std::error_code remove(const std::string& folder, const std::string& name) {
  if (::unlink(path_of(folder, name).c_str()) != 0 && errno != ENOENT) return last_error();
  sync_folder(folder);
  return {};
}

}  // namespace mixerd::profile_folder
