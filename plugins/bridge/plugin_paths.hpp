// Which files of a plugin's folder the bridge uses (protocol/README.md, "The bridge's decisions"):
// `manifest.json` and the entry point must be files of the folder itself, not symbolic links that
// lead out of it. A plugin folder copied from elsewhere could otherwise make the daemon read, or
// python3 run, any file the daemon's user can read. The folder itself may be a link (a plugin
// under development, linked into DATA_DIR/plugins/executable): what counts is where it leads.
#pragma once

#include <filesystem>
#include <string>

namespace mixerd::bridge {

// Whether `path` is below `folder`, both absolute and resolved (no link, no `.` or `..` parts),
// compared part by part: /a/bc is not below /a/b, nor is /a/b itself.
bool lies_below(const std::filesystem::path& folder, const std::filesystem::path& path);

// "" when `name` in `folder`, with every link on the way followed, is an existing file below the
// folder (itself resolved); else why not, for last_error, naming the file as `what`.
std::string file_outside_folder(const std::filesystem::path& folder, const std::string& name,
                                const std::string& what);

}  // namespace mixerd::bridge
