#include "protocol/settings_schema.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <utility>
#include <vector>

#include "protocol/host_names.hpp"
#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/macros.hpp"
#include "protocol/mqtt.hpp"
#include "protocol/network.hpp"
#include "protocol/plants.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/stream.hpp"
#include "protocol/validation.hpp"

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
      const auto& text = label->get_ref<const std::string&>();
      if (text.size() > 64) return problem{base + ".label", "must be at most 64 bytes"};
      if (std::string copy = text, why; !validation::device_text(copy, "label", why))
        return problem{base + ".label", "must not contain control characters"};
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
    if (auto e = slider.find("enforce_volume"); e != slider.end() && !e->is_boolean())
      return problem{base + ".enforce_volume", "must be true or false"};
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

// The Macro page set (protocol/README.md, "Macros"): a key such as "macros.pages.1[4].argv".
std::optional<problem> check_macros(const json& s) {
  auto it = s.find("macros");
  if (it == s.end()) return std::nullopt;
  std::string key;
  std::string error;
  if (macros::validate_settings(*it, key, error)) return std::nullopt;
  return problem{key, error};
}

std::optional<problem> check_bind_address(const json& s) {
  auto it = s.find("bind_address");
  if (it == s.end()) return std::nullopt;
  if (it->is_string() && is_ip_address(it->get_ref<const std::string&>())) return std::nullopt;
  return problem{"bind_address", "must be an IP address such as \"0.0.0.0\" or \"127.0.0.1\""};
}

// {"<handler id>": <bool>}; ids mixerd does not know (yet) are kept and ignored.
std::optional<problem> check_toast_handlers(const json& s) {
  auto it = s.find("toast_handlers");
  if (it == s.end()) return std::nullopt;
  if (!it->is_object())
    return problem{"toast_handlers", "must be an object of handler ids to true or false"};
  for (const auto& [id, enabled] : it->items())
    if (!enabled.is_boolean()) return problem{"toast_handlers." + id, "must be true or false"};
  return std::nullopt;
}

// The plugin bridge's key: plugin id -> {"enabled": bool, "settings": object}. The values of a
// plugin's settings are checked against its manifest when it sets them, not here (the manifest
// may change while the file stays).
std::optional<problem> check_plugins(const json& s) {
  auto it = s.find("plugins");
  if (it == s.end()) return std::nullopt;
  if (!it->is_object())
    return problem{"plugins", "must be an object of plugin ids to {\"enabled\", \"settings\"}"};
  for (const auto& [id, entry] : it->items()) {
    const std::string key = "plugins." + id;
    if (!entry.is_object()) return problem{key, "must be an object"};
    if (auto e = entry.find("enabled"); e != entry.end() && !e->is_boolean())
      return problem{key + ".enabled", "must be true or false"};
    if (auto st = entry.find("settings"); st != entry.end() && !st->is_object())
      return problem{key + ".settings", "must be an object"};
  }
  return std::nullopt;
}

// A session ends session_max_lifetime after its login, so the lifetime is at least the idle
// timeout. Without the key the lifetime is the longer of its default and the timeout.
std::optional<problem> check_session_max_lifetime(const json& s) {
  constexpr const char* key = "session_max_lifetime";
  if (auto range = check_int(s, key, 1, 31'536'000)) return range;
  auto lifetime = s.find(key);
  if (lifetime == s.end()) return std::nullopt;
  auto timeout = s.find("session_timeout");
  if (timeout != s.end() && !is_int_in(*timeout, 1, 31'536'000)) return std::nullopt;
  const long long timeout_s =
      timeout == s.end() ? default_session_timeout : timeout->get<long long>();
  if (lifetime->get<long long>() >= timeout_s) return std::nullopt;
  return problem{key, "must be at least session_timeout (" + std::to_string(timeout_s) + ")"};
}

// A list of host names (or "*.name") served besides the machine's own (docs/api.md).
std::optional<problem> check_allowed_hosts(const json& s) {
  auto it = s.find("allowed_hosts");
  if (it == s.end()) return std::nullopt;
  if (!it->is_array() || it->size() > host_names::max_allowed_hosts)
    return problem{"allowed_hosts", "must be an array of at most " +
                                        std::to_string(host_names::max_allowed_hosts) +
                                        " host names"};
  for (std::size_t i = 0; i < it->size(); ++i) {
    const auto& entry = (*it)[i];
    if (!entry.is_string() || !host_names::valid_allowed_entry(entry.get_ref<const std::string&>()))
      return problem{"allowed_hosts[" + std::to_string(i) + "]",
                     "must be a host name such as \"mixer.example.com\" or \"*.example.com\""};
  }
  return std::nullopt;
}

// The streaming software: {"url": ws:// or wss://, "password"} (protocol/stream.hpp).
std::optional<problem> check_stream(const json& s) {
  std::string key;
  std::string error;
  if (stream::settings_from(s, key, error)) return std::nullopt;
  return problem{key, error};
}

// MQTT: {"url": mqtt:// or mqtts://, "username", "password", "node_id", "discovery_prefix"}
// (protocol/mqtt.hpp). The host name only gives a default node_id: any will do here.
std::optional<problem> check_mqtt(const json& s) {
  std::string key;
  std::string error;
  if (mqtt::settings_from(s, "", key, error)) return std::nullopt;
  return problem{key, error};
}

// GET /metrics takes it as `Authorization: Bearer <token>`: it must be one a header can carry.
std::optional<problem> check_metrics_token(const json& s) {
  if (auto short_one = check_secret(s, "metrics_token")) return short_one;
  auto it = s.find("metrics_token");
  if (it == s.end()) return std::nullopt;
  if (plants::parse_bearer("Bearer " + it->get<std::string>()).problem !=
      plants::bearer_problem::none)
    return problem{"metrics_token", "must be letters, digits and -._~+/ (at most 1024)"};
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

// nlohmann's copy and dump recurse, and the daemon copies the settings into messages and dumps
// them on every save: a value nested a few ten thousand levels deep would overflow the stack
// there. The parser and the destructor do not recurse, and neither does this check.
constexpr int max_nesting = 64;

std::optional<problem> check_nesting(const json& s) {
  // The top level is the first level.
  for (const auto& [key, value] : s.items())
    if (mixerd::json::nested_deeper_than(value, max_nesting - 1))
      return problem{key, "is nested deeper than " + std::to_string(max_nesting) + " levels"};
  return std::nullopt;
}

}  // namespace

std::optional<problem> validate(const nlohmann::json& s) {
  if (!s.is_object()) return problem{"(top level)", "must be a JSON object"};
  if (auto deep = check_nesting(s)) return deep;
  using vt = json::value_t;
  const std::array<std::optional<problem>, 24> checks{
      check_secret(s, "toast_api_key"),
      check_secret(s, "plant_store_token"),
      check_type(s, "auth_enabled", vt::boolean, "true or false"),
      check_type(s, "auth_username", vt::string, "a string"),
      check_type(s, "auth_password_hash", vt::string, "a string"),
      check_int(s, "session_timeout", 1, 31'536'000),
      check_session_max_lifetime(s),
      check_int(s, "controller_port", 0, 65535),
      check_int(s, "toast_port", 0, 65535),
      check_int(s, "plants_port", 0, 65535),
      check_type(s, "serial_port", vt::string, "a string: auto, none or a device path"),
      check_bind_address(s),
      check_log_level(s),
      check_toast_handlers(s),
      check_plugins(s),
      check_int(s, "socketio_ping_interval_ms", 1000, 600'000),
      check_int(s, "socketio_ping_timeout_ms", 1000, 600'000),
      check_int(s, "socketio_connect_timeout_ms", 1000, 600'000),
      check_int(s, "socketio_max_sessions", 1, 100'000),
      check_int(s, "socketio_max_sessions_per_address", 1, 100'000),
      check_sliders(s),
      check_mutes(s),
      check_int(s, "master_volume", limits::volume_min, limits::volume_max),
      check_macros(s),
  };
  for (const auto& c : checks)
    if (c) return c;
  if (auto hosts = check_allowed_hosts(s)) return hosts;
  if (auto stream = check_stream(s)) return stream;
  if (auto mqtt = check_mqtt(s)) return mqtt;
  if (auto token = check_metrics_token(s)) return token;
  if (auto mdns = check_type(s, "mdns", vt::boolean, "true or false")) return mdns;
  // The profile actor falls back to another profile when the name is not one (or not valid).
  if (auto current = check_type(s, "current_profile", vt::string, "a string")) return current;
  if (auto home = smarthome::check_settings(s))
    return problem{std::move(home->key), std::move(home->message)};
  return std::nullopt;
}

namespace {

// One step of a key path: an object key, or an array index when `key` is empty.
struct path_step {
  std::string key;
  int index = -1;
};

std::vector<path_step> split_path(std::string_view path) {
  std::vector<path_step> steps;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
    } else if (path[i] == '[') {
      auto close = path.find(']', i);
      if (close == std::string_view::npos) break;
      steps.push_back({"", std::atoi(std::string(path.substr(i + 1, close - i - 1)).c_str())});
      i = close + 1;
    } else {
      auto end = path.find_first_of(".[", i);
      if (end == std::string_view::npos) end = path.size();
      steps.push_back({std::string(path.substr(i, end - i)), -1});
      i = end;
    }
  }
  return steps;
}

// A container being scanned: where the scanner is inside it.
struct scan_frame {
  bool array = false;
  std::string key;        // objects: the key whose value comes next
  int index = -1;         // arrays: the element being read
  bool want_key = false;  // objects: the next string is a key
  bool in_element = false;
};

bool at_path(const std::vector<scan_frame>& stack, const std::vector<path_step>& target) {
  if (stack.size() != target.size()) return false;
  for (std::size_t i = 0; i < stack.size(); ++i) {
    const auto& f = stack[i];
    if (f.array ? target[i].index != f.index : target[i].key != f.key) return false;
  }
  return true;
}

}  // namespace

bool is_ip_address(const std::string& text) {
  return network::is_ipv4(text) || network::is_ipv6(text);
}

int locate_key(std::string_view text, std::string_view key_path) {
  // A small scanner over the (already valid) JSON text that follows the key path through
  // objects and arrays; nlohmann::json keeps no source positions.
  const auto target = split_path(key_path);
  if (target.empty()) return 0;
  std::vector<scan_frame> stack;
  int line = 1;
  auto element_start = [&]() {
    if (stack.empty() || !stack.back().array || stack.back().in_element) return false;
    stack.back().in_element = true;
    ++stack.back().index;
    return at_path(stack, target);
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == ':') continue;
    if (c == ',') {
      if (!stack.empty()) {
        stack.back().want_key = !stack.back().array;
        stack.back().in_element = false;
      }
      continue;
    }
    if (c == '}' || c == ']') {
      if (!stack.empty()) stack.pop_back();
      continue;
    }
    if (element_start()) return line;
    if (c == '{' || c == '[') {
      stack.push_back({c == '[', "", -1, c == '{', false});
      continue;
    }
    if (c == '"') {
      std::string s;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) ++i;
        s.push_back(text[i]);
      }
      if (!stack.empty() && !stack.back().array && stack.back().want_key) {
        stack.back().key = std::move(s);
        stack.back().want_key = false;
        if (at_path(stack, target)) return line;
      }
    }
  }
  return 0;
}

}  // namespace mixerd::settings_schema
