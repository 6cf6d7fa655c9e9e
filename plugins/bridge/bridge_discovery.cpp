// Finding the plugins (protocol/README.md, "Plugins", "Discovery and start" and "The bridge's
// decisions"): every folder under DATA_DIR/plugins/executable with its manifest checked.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "actors/support/installed_files.hpp"
#include "actors/support/log.hpp"
#include "plugins/bridge/bridge_internal.hpp"
#include "plugins/bridge/plugin_paths.hpp"

namespace mixerd {

namespace bridge {

namespace {

constexpr std::string_view component = "plugins";

std::string read_small_file(const std::string& path, std::size_t limit, bool& too_big) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::string text(limit + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  too_big = text.size() > limit;
  return text;
}

}  // namespace

void discover(self_ptr self) {
  auto& st = self->state;
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> folders;
  for (fs::directory_iterator it(st.wiring.folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) folders.push_back(it->path());
  if (ec && ec != std::errc::no_such_file_or_directory)
    log::warn(component, "cannot read ", st.wiring.folder, ": ", ec.message());
  std::sort(folders.begin(), folders.end());
  for (const auto& folder : folders) {
    const auto name = folder.filename().string();
    if (name.empty() || name.front() == '.' || name == "__pycache__") continue;
    plugins::manifest_check check;
    const auto manifest_path = (folder / "manifest.json").string();
    bool too_big = false;
    struct stat info {};
    if (::stat(manifest_path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
      check.m.id = name;
      check.state = plugin_state::invalid;
      check.reason = "manifest.json is missing";
    } else if (auto outside = file_outside_folder(folder, "manifest.json", "manifest.json");
               !outside.empty()) {
      // Not read at all: the file it leads to is none of the plugin's.
      check.m.id = name;
      check.state = plugin_state::invalid;
      check.reason = std::move(outside);
    } else {
      auto text = read_small_file(manifest_path, plugins::max_manifest_bytes, too_big);
      check = plugins::parse_manifest(text, name);
    }
    if (check.state == plugin_state::stopped) {
      const auto entry = (folder / check.m.entry_point).string();
      if (::stat(entry.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
        check.state = plugin_state::invalid;
        check.reason = "the entry point " + check.m.entry_point + " is missing";
      } else if (auto outside = file_outside_folder(folder, check.m.entry_point,
                                                    "the entry point " + check.m.entry_point);
                 !outside.empty()) {
        check.state = plugin_state::invalid;
        check.reason = std::move(outside);
      }
    }
    if (st.plugins.count(check.m.id) != 0) {
      log::warn(component, "folder ", name, ": id ", check.m.id,
                " is used by an earlier folder; not listed");
      continue;
    }
    bridge::plugin_entry p;
    p.m = check.m;
    p.folder = fs::absolute(folder, ec).string();
    p.info.id = check.m.id;
    p.info.name = check.m.name.empty() ? name : check.m.name;
    p.info.version = check.m.version;
    p.info.api_version = check.m.api_version;
    p.info.state = check.state;
    p.info.last_error = check.reason;
    auto stored = st.stored.find(p.info.id);
    if (stored != st.stored.end() && stored->is_object())
      if (auto e = stored->find("enabled"); e != stored->end() && e->is_boolean())
        p.info.enabled = e->get<bool>();
    if (check.state != plugin_state::stopped)
      log::warn(component, "folder ", name, ": ", to_string(check.state), ": ", check.reason);
    st.plugins.emplace(p.info.id, std::move(p));
  }
  log::info(component, st.plugins.size(), " plugin(s) found in ", st.wiring.folder);
}

}  // namespace bridge

std::string plugin_sdk_dir() {
  std::error_code ec;
  const auto installed = installed_share_dir() / "python";
  if (std::filesystem::is_regular_file(installed / "mixerd" / "runner.py", ec))
    return installed.string();
  return MIXERD_PLUGIN_SDK_SOURCE_DIR;
}

}  // namespace mixerd
