#include "protocol/settings_schema.hpp"

#include <algorithm>
#include <array>

#include "protocol/json.hpp"
#include "protocol/limits.hpp"

namespace mixerd::settings_schema {

namespace {

using nlohmann::json;

bool is_int_in(const json& v, long long lo, long long hi) {
  if (!v.is_number_integer()) return false;
  auto x = v.get<long long>();
  return x >= lo && x <= hi;
}

std::string range_text(long long lo, long long hi) {
  return "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
}

std::optional<problem> check_int(const json& s, const char* key, long long lo, long long hi) {
  auto it = s.find(key);
  if (it != s.end() && !is_int_in(*it, lo, hi)) return problem{key, range_text(lo, hi)};
  return std::nullopt;
}

std::optional<problem> check_type(const json& s, const char* key, json::value_t type,
                                  const char* what) {
  auto it = s.find(key);
  if (it != s.end() && it->type() != type) return problem{key, std::string("must be ") + what};
  return std::nullopt;
}

std::optional<problem> check_secret(const json& s, const char* key) {
  auto it = s.find(key);
  if (it == s.end()) return std::nullopt;
  if (!it->is_string() || it->get_ref<const std::string&>().size() < 16)
    return problem{key, "must be a string of at least 16 characters"};
  return std::nullopt;
}

std::optional<problem> check_sliders(const json& s) {
  auto it = s.find("sliders");
  if (it == s.end()) return std::nullopt;
  if (!it->is_array() || it->size() > static_cast<std::size_t>(limits::slider_count))
    return problem{"sliders", "must be an array of at most 4 slider objects"};
  for (std::size_t i = 0; i < it->size(); ++i) {
    const auto& slider = (*it)[i];
    std::string base = "sliders[" + std::to_string(i) + "]";
    if (!slider.is_object()) return problem{base, "must be an object"};
    if (auto label = slider.find("label"); label != slider.end()) {
      if (!label->is_string()) return problem{base + ".label", "must be a string"};
      if (label->get_ref<const std::string&>().size() > 64)
        return problem{base + ".label", "must be at most 64 bytes"};
    }
    if (auto a = slider.find("assignment"); a != slider.end()) {
      std::string why;
      if (!::mixerd::json::assignment_from_json(*a, why)) {
        // `why` names the inner field first ("type must be ...").
        auto space = why.find(' ');
        if (why.compare(0, space, "must") == 0) return problem{base + ".assignment", why};
        return problem{base + ".assignment." + why.substr(0, space), why.substr(space + 1)};
      }
    }
  }
  return std::nullopt;
}

std::optional<problem> check_mutes(const json& s) {
  auto it = s.find("mutes");
  if (it == s.end()) return std::nullopt;
  if (!it->is_object()) return problem{"mutes", "must be an object with individual and master"};
  if (auto ind = it->find("individual"); ind != it->end()) {
    bool ok = ind->is_array() && ind->size() == static_cast<std::size_t>(limits::mute_count) &&
              std::all_of(ind->begin(), ind->end(), [](const json& b) { return b.is_boolean(); });
    if (!ok) return problem{"mutes.individual", "must be an array of 4 booleans"};
  }
  if (auto m = it->find("master"); m != it->end() && !m->is_boolean())
    return problem{"mutes.master", "must be a boolean"};
  return std::nullopt;
}

std::optional<problem> check_log_level(const json& s) {
  auto it = s.find("log_level");
  if (it == s.end()) return std::nullopt;
  static constexpr std::array<std::string_view, 5> levels{"trace", "debug", "info", "warn",
                                                          "error"};
  if (it->is_string() &&
      std::find(levels.begin(), levels.end(), it->get_ref<const std::string&>()) != levels.end())
    return std::nullopt;
  return problem{"log_level", "must be one of trace, debug, info, warn, error"};
}

}  // namespace

std::optional<problem> validate(const nlohmann::json& s) {
  if (!s.is_object()) return problem{"(top level)", "must be a JSON object"};
  using vt = json::value_t;
  const std::array<std::optional<problem>, 17> checks{
      check_secret(s, "toast_api_key"),
      check_secret(s, "plant_store_token"),
      check_type(s, "auth_enabled", vt::boolean, "true or false"),
      check_type(s, "auth_username", vt::string, "a string"),
      check_type(s, "auth_password_hash", vt::string, "a string"),
      check_int(s, "session_timeout", 60, 31'536'000),
      check_int(s, "controller_port", 0, 65535),
      check_int(s, "toast_port", 0, 65535),
      check_int(s, "plants_port", 0, 65535),
      check_type(s, "serial_port", vt::string, "a string: auto, none or a device path"),
      check_type(s, "bind_address", vt::string, "a string holding an IP address"),
      check_log_level(s),
      check_int(s, "socketio_ping_interval_ms", 1000, 600'000),
      check_int(s, "socketio_ping_timeout_ms", 1000, 600'000),
      check_sliders(s),
      check_mutes(s),
      check_int(s, "master_volume", limits::volume_min, limits::volume_max),
  };
  for (const auto& c : checks)
    if (c) return c;
  return std::nullopt;
}

int locate_key(std::string_view text, std::string_view key_path) {
  // Walk the path's names in order, each searched after the previous one's position.
  std::size_t pos = 0;
  std::size_t start = 0;
  bool found_any = false;
  while (start < key_path.size()) {
    auto end = key_path.find_first_of(".[", start);
    auto name = key_path.substr(start, end == std::string_view::npos ? end : end - start);
    if (!name.empty() && name.back() != ']' && name.front() != '(') {
      std::string quoted = "\"" + std::string(name) + "\"";
      auto hit = text.find(quoted, pos);
      if (hit == std::string_view::npos) break;
      pos = hit;
      found_any = true;
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (!found_any) return 0;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + pos, '\n'));
}

}  // namespace mixerd::settings_schema
