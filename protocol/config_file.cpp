#include "protocol/config_file.hpp"

#include <set>

#include "protocol/json.hpp"

namespace mixerd::config_file {

using settings_schema::problem;

std::variant<contents, problem> read(const nlohmann::json& file) {
  if (!file.is_object()) return problem{"(top level)", "must be a JSON object"};
  auto version = file.find("mixerd_config");
  if (version == file.end() || *version != format_version)
    return problem{"mixerd_config", "must be " + std::to_string(format_version) +
                                        " (a file of GET /api/config/export)"};
  contents out;
  auto settings = file.find("settings");
  if (settings == file.end() || !settings->is_object())
    return problem{"settings", "must be an object"};
  if (auto bad = settings_schema::validate(*settings))
    return problem{"settings." + bad->key, bad->message};
  out.settings = *settings;
  auto list = file.find("profiles");
  if (list == file.end()) return out;
  out.has_profiles = true;
  if (!list->is_array() || list->size() > profiles::max_profiles)
    return problem{"profiles", "must be an array of at most " +
                                   std::to_string(profiles::max_profiles) + " profiles"};
  std::set<std::string> names;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string key = "profiles[" + std::to_string(i) + "]";
    // dump() recurses: the depth is bounded first, as for a profile file.
    if (mixerd::json::nested_deeper_than((*list)[i], profiles::max_json_depth))
      return problem{
          key, "is nested deeper than " + std::to_string(profiles::max_json_depth) + " levels"};
    const auto text = (*list)[i].dump();
    if (text.size() > profiles::max_profile_bytes)
      return problem{key,
                     "is larger than " + std::to_string(profiles::max_profile_bytes) + " bytes"};
    auto parsed = profiles::parse_profile(text);
    if (!parsed.file) {
      // A profile's problem starts with its field ("sliders[2].label must ..."), or is the whole's.
      const auto& why = parsed.error;
      const auto space = why.find(' ');
      if (why.compare(0, 4, "must") == 0 || space == std::string::npos) return problem{key, why};
      return problem{key + "." + why.substr(0, space), why.substr(space + 1)};
    }
    if (!names.insert(parsed.file->name).second)
      return problem{key + ".name", "repeats the name of another profile: " + parsed.file->name};
    out.profiles.push_back(std::move(*parsed.file));
  }
  return out;
}

}  // namespace mixerd::config_file
