// The configuration file of GET /api/config/export and POST /api/config/import
// (docs/api/settings.md, "Backup"): reading a file to import and checking all of it before
// anything changes. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "protocol/profiles.hpp"
#include "protocol/settings_schema.hpp"

namespace mixerd::config_file {

// The format's version: "mixerd_config" of every file written.
inline constexpr int format_version = 1;

struct contents {
  nlohmann::json settings;
  std::vector<profiles::profile_file> profiles;
  bool has_profiles = false;  // "profiles" present: they replace the folder's; absent: untouched
};

// The file checked whole: its format, every setting (as settings.json is checked) and every
// profile (as a profile file is checked, names unique, within the profiles' bounds). The first
// problem names its key: "settings.master_volume", "profiles[2].name".
std::variant<contents, settings_schema::problem> read(const nlohmann::json& file);

}  // namespace mixerd::config_file
