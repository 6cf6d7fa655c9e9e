#include "protocol/profiles.hpp"

#include <algorithm>
#include <tuple>

#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/macro_kinds.hpp"
#include "protocol/settings_schema.hpp"
#include "protocol/validation.hpp"

namespace mixerd {

// ---- Events ------------------------------------------------------------------------------

nlohmann::json profile_change::to_json() const {
  return {{"profile", profile}};
}

}  // namespace mixerd

namespace mixerd::profiles {

namespace {

using nlohmann::json;

// The bounds of an app assignment, as POST /api/sliders/{index}/assignment has them.

bool is_plain(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

int upper_hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;  // lower-case hex is not what file_name_of writes
}

// Decodes one UTF-8 character at text[i]: its code point, or -1 for an invalid sequence
// (overlong forms, surrogates, beyond U+10FFFF, truncated). Advances i past it.
long next_code_point(std::string_view text, std::size_t& i) {
  const auto lead = static_cast<unsigned char>(text[i++]);
  if (lead < 0x80) return lead;
  int extra = 0;
  long cp = 0;
  long min = 0;
  if ((lead & 0xE0) == 0xC0) {
    extra = 1;
    cp = lead & 0x1F;
    min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    extra = 2;
    cp = lead & 0x0F;
    min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    extra = 3;
    cp = lead & 0x07;
    min = 0x10000;
  } else {
    return -1;
  }
  for (int k = 0; k < extra; ++k) {
    if (i >= text.size()) return -1;
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) return -1;
    cp = (cp << 6) | (c & 0x3F);
    ++i;
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
  return cp;
}

bool is_control(long cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

// Free text of a file (icon, timestamps): a string of at most `max_bytes` bytes without control
// characters. Empty when fine, else the problem naming `key`.
std::string text_problem(const json& value, const std::string& key, std::size_t max_bytes) {
  if (!value.is_string()) return key + " must be a string";
  const auto& text = value.get_ref<const std::string&>();
  if (text.size() > max_bytes)
    return key + " must be at most " + std::to_string(max_bytes) + " bytes";
  if (std::any_of(text.begin(), text.end(), [](char c) { return validation::is_control_byte(c); }))
    return key + " must not contain control characters";
  return {};
}

bool int_in(const json& v, int lo, int hi) {
  if (!v.is_number_integer()) return false;
  const auto x = v.get<long long>();
  return x >= lo && x <= hi;
}

std::string parse_slider(const json& j, const std::string& key, slider_state& out) {
  if (!j.is_object()) return key + " must be an object";
  const auto label = j.find("label");
  if (label == j.end()) return key + ".label is missing";
  if (!label->is_string()) return key + ".label must be a string";
  std::string text = label->get<std::string>();
  std::string why;
  if (text.size() > max_label_bytes)
    return key + ".label must be at most " + std::to_string(max_label_bytes) + " bytes";
  if (!validation::device_text(text, "label", why))
    return key + ".label must not contain control characters";
  out.label = std::move(text);

  const auto a = j.find("assignment");
  if (a == j.end()) return key + ".assignment is missing";
  auto assigned = ::mixerd::json::assignment_from_json(*a, why);
  if (!assigned) return key + ".assignment: " + why;
  if (auto problem = assignment_names_problem(*assigned, false); !problem.empty())
    return key + ".assignment." + assignment_names_field(*assigned) + " " + problem;
  out.assigned = std::move(*assigned);

  const auto value = j.find("value");
  if (value == j.end() || !int_in(*value, limits::volume_min, limits::volume_max))
    return key + ".value must be an integer from 0 to 100";
  out.value = value->get<int>();

  const auto enforce = j.find("enforce_volume");
  if (enforce == j.end() || !enforce->is_boolean())
    return key + ".enforce_volume must be true or false";
  out.enforce_volume = enforce->get<bool>();
  return {};
}

std::string parse_mutes(const json& j, mute_states& out) {
  if (!j.is_object()) return "mutes must be an object with individual and master";
  const auto ind = j.find("individual");
  const bool ok =
      ind != j.end() && ind->is_array() &&
      ind->size() == static_cast<std::size_t>(limits::mute_count) &&
      std::all_of(ind->begin(), ind->end(), [](const json& b) { return b.is_boolean(); });
  if (!ok) return "mutes.individual must be an array of 4 booleans";
  for (int i = 0; i < limits::mute_count; ++i)
    out.individual[i] = (*ind)[i].get<bool>();
  const auto master = j.find("master");
  if (master == j.end() || !master->is_boolean()) return "mutes.master must be true or false";
  out.master = master->get<bool>();
  return {};
}

// The whole file once it parsed as JSON; empty when valid.
std::string parse_fields(const json& j, profile_file& out) {
  if (!j.is_object()) return "must be a JSON object";
  const auto name = j.find("name");
  if (name == j.end()) return "name is missing";
  if (!name->is_string()) return "name must be a string";
  if (auto problem = name_problem(name->get_ref<const std::string&>()); !problem.empty())
    return problem;
  out.name = name->get<std::string>();

  for (auto [key, field, bound] : {std::tuple{"icon", &out.icon, max_icon_bytes},
                                   std::tuple{"created", &out.created, max_timestamp_bytes},
                                   std::tuple{"updated", &out.updated, max_timestamp_bytes}}) {
    const auto it = j.find(key);
    if (it == j.end()) continue;  // optional: a hand-written profile may leave them out
    if (auto problem = text_problem(*it, key, bound); !problem.empty()) return problem;
    *field = it->get<std::string>();
  }

  const auto sliders = j.find("sliders");
  if (sliders == j.end() || !sliders->is_array() ||
      sliders->size() != static_cast<std::size_t>(limits::slider_count))
    return "sliders must be an array of 4 slider objects";
  auto& mix = out.content.mix;
  for (int i = 0; i < limits::slider_count; ++i) {
    auto problem =
        parse_slider((*sliders)[i], "sliders[" + std::to_string(i) + "]", mix.sliders[i]);
    if (!problem.empty()) return problem;
  }

  const auto mutes = j.find("mutes");
  if (mutes == j.end()) return "mutes is missing";
  if (auto problem = parse_mutes(*mutes, mix.mutes); !problem.empty()) return problem;
  for (int i = 0; i < limits::slider_count; ++i)
    mix.sliders[i].muted = mix.mutes.individual[i];

  const auto volume = j.find("volume");
  if (volume == j.end() || !int_in(*volume, limits::volume_min, limits::volume_max))
    return "volume must be an integer from 0 to 100";
  mix.master_volume = volume->get<int>();

  const auto macros = j.find("macros");
  if (macros == j.end()) return "macros is missing";
  std::string why;
  auto pages = macros::parse_profile_macros(*macros, why);
  if (!pages) return "macros: " + why;
  out.content.macros = std::move(*pages);
  return {};
}

}  // namespace

int status_of(profile_outcome::result what) {
  using result = profile_outcome::result;
  switch (what) {
    case result::ok:
      return 200;
    case result::not_found:
      return 404;
    case result::exists:
    case result::is_current:
    case result::broken:
      return 409;
    case result::invalid:
      return 400;
    case result::too_many:
    case result::too_large:
      return 507;
    case result::too_fast:
      return 429;
    case result::failed:
      break;
  }
  return 500;
}

std::string name_problem(std::string_view name, std::string_view field) {
  const std::string f(field);
  if (name.empty() || name.size() > max_name_bytes)
    return f + " must be 1 to " + std::to_string(max_name_bytes) + " bytes";
  for (std::size_t i = 0; i < name.size();) {
    const long cp = next_code_point(name, i);
    if (cp < 0) return f + " must be valid UTF-8";
    if (is_control(cp)) return f + " must not contain control characters";
  }
  return {};
}

std::string file_name_of(std::string_view name) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(name.size() * 3 + 5);
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (is_plain(byte)) {
      out += c;
    } else {
      out += '%';
      out += digits[byte >> 4];
      out += digits[byte & 0x0F];
    }
  }
  return out + ".json";
}

std::optional<std::string> name_of_file(std::string_view file_name) {
  constexpr std::string_view suffix = ".json";
  if (file_name.size() <= suffix.size() ||
      file_name.substr(file_name.size() - suffix.size()) != suffix)
    return std::nullopt;
  const auto stem = file_name.substr(0, file_name.size() - suffix.size());
  std::string name;
  for (std::size_t i = 0; i < stem.size(); ++i) {
    const auto c = static_cast<unsigned char>(stem[i]);
    if (is_plain(c)) {
      name += stem[i];
      continue;
    }
    if (c != '%' || i + 2 >= stem.size()) return std::nullopt;
    const int hi = upper_hex_value(stem[i + 1]);
    const int lo = upper_hex_value(stem[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    const auto byte = static_cast<unsigned char>(hi * 16 + lo);
    if (is_plain(byte)) return std::nullopt;  // "%41" for "A": not the one file name of a name
    name += static_cast<char>(byte);
    i += 2;
  }
  if (!name_problem(name).empty()) return std::nullopt;
  return name;
}

parsed_profile parse_profile(std::string_view text) {
  parsed_profile out;
  if (text.size() > max_file_bytes) {
    out.error = "larger than " + std::to_string(max_file_bytes) + " bytes";
    return out;
  }
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    out.error = "empty; expected a JSON object";
    return out;
  }
  auto j = mixerd::json::parse_depth_limited(text, max_json_depth, out.error);
  if (!j) return out;
  profile_file file;
  out.error = parse_fields(*j, file);
  if (out.error.empty()) out.file = std::move(file);
  return out;
}

json content_to_json(const profile_content& content) {
  const auto& mix = content.mix;
  json sliders = json::array();
  for (const auto& s : mix.sliders)
    sliders.push_back({{"label", s.label},
                       {"assignment", ::mixerd::json::to_json(s.assigned)},
                       {"value", s.value},
                       {"enforce_volume", s.enforce_volume}});
  macro_pages pages;
  pages.page_names = content.macros.page_names;
  pages.pages = content.macros.pages;
  return {{"sliders", std::move(sliders)},
          {"mutes", ::mixerd::json::mutes_to_json(mix.mutes)},
          {"volume", mix.master_volume},
          {"macros", macros::profile_macros_to_json(pages)}};
}

std::string serialize(const profile_file& file) {
  json j = content_to_json(file.content);
  j["name"] = file.name;
  j["icon"] = file.icon;
  j["created"] = file.created;
  j["updated"] = file.updated;
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

json summary_to_json(const profile_summary& summary, bool is_current) {
  json j = {{"name", summary.name},
            {"icon", summary.icon},
            {"created", summary.created},
            {"updated", summary.updated},
            {"is_current", is_current}};
  if (!summary.error.empty()) j["error"] = summary.error;
  return j;
}

json profile_to_json(const profile_file& file, bool is_current) {
  json j = content_to_json(file.content);
  j.update(summary_to_json(summary_of(file), is_current));
  return j;
}

json to_json(const profiles_view& view) {
  json list = json::array();
  for (const auto& p : view.profiles)
    list.push_back(summary_to_json(p, p.name == view.current));
  return {{"profiles", std::move(list)}, {"current", view.current}};
}

profile_summary summary_of(const profile_file& file) {
  return {file.name, file.icon, file.created, file.updated, {}};
}

profile_content content_of(const mixer_snapshot& mix, const macro_pages& macros) {
  profile_content content;
  content.mix = mix;
  content.macros.page_names = macros.page_names;
  content.macros.pages = macros.pages;
  return content;
}

}  // namespace mixerd::profiles

namespace mixerd {

// ---- Macro kind: profile, a profile.load --------------------------------------------------

std::vector<macros::kind> profiles_macro_kinds() {
  return {
      {"profile", true,
       [](macros::field_reader& r) {
         return r.text("profile", profiles::max_name_bytes, true, true);
       },
       [](const nlohmann::json& fields) {
         return command_request{"profile.load", {{"name", fields.at("profile")}}};
       }},
  };
}

}  // namespace mixerd

namespace mixerd {

// ---- Settings: the current profile -----------------------------------------------------------

// The profile actor falls back to another profile when the name is not one (or not valid).
settings_schema::part profiles_settings() {
  return {"profiles",
          {{"current_profile",
            {{"type", "string"},
             {"default", "Default"},
             {"description", "The profile loaded last (the profile actor keeps it)"},
             {settings_schema::live_state, true}}}}};
}

}  // namespace mixerd
