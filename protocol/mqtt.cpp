#include "protocol/mqtt.hpp"

#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/profiles.hpp"
#include "protocol/settings_schema.hpp"
#include "protocol/types.hpp"
#include "protocol/validation.hpp"

namespace mixerd::mqtt {

namespace {

using nlohmann::json;

constexpr std::string_view url_example = "mqtt://host[:1883] or mqtts://host[:8883]";

bool is_id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

bool is_host_char(char c) {
  return is_id_char(c) || c == '.';
}

// A port written as 1 to 5 digits from 1 to 65535.
std::optional<int> port_of(std::string_view text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  int port = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    port = port * 10 + (c - '0');
  }
  if (port < 1 || port > 65535) return std::nullopt;
  return port;
}

// Splits mqtt://host[:port] or mqtts://host[:port] (an IPv6 literal in brackets; an optional
// trailing '/'; no user, path, query or fragment) into `out`.
bool split_url(std::string_view url, settings& out) {
  std::string_view rest;
  if (url.rfind("mqtt://", 0) == 0) {
    out.tls = false;
    out.port = default_port;
    rest = url.substr(7);
  } else if (url.rfind("mqtts://", 0) == 0) {
    out.tls = true;
    out.port = default_tls_port;
    rest = url.substr(8);
  } else {
    return false;
  }
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  std::string_view host;
  std::string_view port;
  if (!rest.empty() && rest.front() == '[') {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return false;
    host = rest.substr(1, close - 1);
    auto after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return false;
      port = after.substr(1);
      if (port.empty()) return false;
    }
    for (char c : host)
      if (!(is_id_char(c) || c == ':' || c == '.')) return false;
  } else {
    auto colon = rest.find(':');
    host = rest.substr(0, colon);
    if (colon != std::string_view::npos) {
      port = rest.substr(colon + 1);
      if (port.empty()) return false;
    }
    for (char c : host)
      if (!is_host_char(c)) return false;
  }
  if (host.empty() || host.size() > max_host_bytes) return false;
  if (!port.empty()) {
    auto number = port_of(port);
    if (!number) return false;
    out.port = *number;
  }
  out.host = std::string(host);
  return true;
}

bool valid_prefix(std::string_view prefix) {
  if (prefix.empty() || prefix.size() > max_prefix_bytes) return false;
  if (prefix.front() == '/' || prefix.back() == '/') return false;
  char previous = 0;
  for (char c : prefix) {
    if (!(is_id_char(c) || c == '/')) return false;
    if (c == '/' && previous == '/') return false;
    previous = c;
  }
  return true;
}

const json* field(const json& object, const char* name) {
  auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

// A string member of `object` of at most `max_bytes` without control bytes, or an error.
bool string_member(const json& object, const char* name, std::size_t max_bytes, std::string& out,
                   std::string& key, std::string& error) {
  const json* v = field(object, name);
  if (v == nullptr) return true;
  bool ok = v->is_string() && v->get_ref<const std::string&>().size() <= max_bytes;
  if (ok)
    for (char c : v->get_ref<const std::string&>())
      if (validation::is_control_byte(c)) ok = false;
  if (!ok) {
    key = "mqtt." + std::string(name);
    error = "must be a string of at most " + std::to_string(max_bytes) +
            " bytes without control characters";
    return false;
  }
  out = v->get<std::string>();
  return true;
}

std::string index_part(const entity& e) {
  return std::to_string(e.index);
}

// The topic path of an entity below mixerd/<node_id>/: "slider/1", "mute/master", "profile".
std::string entity_path(const entity& e) {
  switch (e.kind) {
    case entity_kind::slider:
      return "slider/" + index_part(e);
    case entity_kind::mute:
      return "mute/" + index_part(e);
    case entity_kind::master_mute:
      return "mute/master";
    case entity_kind::master_volume:
      return "volume/master";
    case entity_kind::macro:
      return "macro/" + index_part(e);
    case entity_kind::profile:
      return "profile";
    case entity_kind::device:
      return "device";
  }
  return {};
}

// A decimal index in [lo, hi] written without sign or leading zeros.
std::optional<int> index_of(std::string_view text, int lo, int hi) {
  if (text.empty() || text.size() > 2 || (text.size() > 1 && text.front() == '0'))
    return std::nullopt;
  int n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n < lo || n > hi) return std::nullopt;
  return n;
}

// The entity a command topic's path (below mixerd/<node_id>/) stands for.
std::optional<entity> command_entity(std::string_view path) {
  auto slash = path.find('/');
  const auto head = path.substr(0, slash);
  const auto tail = slash == std::string_view::npos ? std::string_view{} : path.substr(slash + 1);
  if (head == "profile" && tail == "set") return entity{entity_kind::profile, 0};
  auto second = tail.find('/');
  if (second == std::string_view::npos) return std::nullopt;
  const auto which = tail.substr(0, second);
  const auto verb = tail.substr(second + 1);
  if (head == "macro") {
    auto slot = index_of(which, 0, limits::macro_count - 1);
    if (verb != "press" || !slot) return std::nullopt;
    return entity{entity_kind::macro, *slot};
  }
  if (verb != "set") return std::nullopt;
  if (head == "volume" && which == "master") return entity{entity_kind::master_volume, 0};
  if (head == "mute" && which == "master") return entity{entity_kind::master_mute, 0};
  if (head == "mute") {
    if (auto i = index_of(which, 1, limits::mute_count)) return entity{entity_kind::mute, *i};
  }
  if (head == "slider") {
    if (auto i = index_of(which, 1, limits::slider_count)) return entity{entity_kind::slider, *i};
  }
  return std::nullopt;
}

}  // namespace

bool operator==(const settings& a, const settings& b) {
  return a.enabled == b.enabled && a.url == b.url && a.username == b.username &&
         a.password == b.password && a.node_id == b.node_id &&
         a.discovery_prefix == b.discovery_prefix;
}

std::string node_id_from_host(std::string_view host_name) {
  std::string out;
  for (char c : host_name) {
    if (out.size() == max_node_id_bytes) break;
    out.push_back(is_id_char(c) ? c : '_');
  }
  return out.empty() ? "mixerd" : out;
}

bool valid_node_id(std::string_view id) {
  if (id.empty() || id.size() > max_node_id_bytes) return false;
  for (char c : id)
    if (!is_id_char(c)) return false;
  return true;
}

std::optional<settings> settings_from(const nlohmann::json& all, std::string_view host_name,
                                      std::string& key, std::string& error) {
  settings out;
  out.node_id = node_id_from_host(host_name);
  auto it = all.find(std::string(settings_key));
  if (it == all.end()) return out;
  const json& m = *it;
  if (!m.is_object()) {
    key = settings_key;
    error =
        "must be an object {\"url\", \"username\", \"password\", \"node_id\", "
        "\"discovery_prefix\"}";
    return std::nullopt;
  }
  for (const auto& [name, value] : m.items()) {
    if (name != "url" && name != "username" && name != "password" && name != "node_id" &&
        name != "discovery_prefix") {
      key = "mqtt";
      error = "has an unknown key (known: url, username, password, node_id, discovery_prefix)";
      return std::nullopt;
    }
  }
  if (const json* url = field(m, "url")) {
    if (!url->is_string() || !split_url(url->get_ref<const std::string&>(), out)) {
      key = "mqtt.url";
      error = "must be a broker URL: " + std::string(url_example);
      return std::nullopt;
    }
    out.url = url->get<std::string>();
    out.enabled = true;
  }
  if (!string_member(m, "username", max_credential_bytes, out.username, key, error) ||
      !string_member(m, "password", max_credential_bytes, out.password, key, error))
    return std::nullopt;
  if (!out.password.empty() && out.username.empty()) {
    key = "mqtt.password";
    error = "needs mqtt.username (MQTT sends no password without a user name)";
    return std::nullopt;
  }
  if (const json* id = field(m, "node_id")) {
    if (!id->is_string() || !valid_node_id(id->get_ref<const std::string&>())) {
      key = "mqtt.node_id";
      error = "must be 1 to 64 characters of a-z, A-Z, 0-9, _ and -";
      return std::nullopt;
    }
    out.node_id = id->get<std::string>();
  }
  if (const json* prefix = field(m, "discovery_prefix")) {
    if (!prefix->is_string() || !valid_prefix(prefix->get_ref<const std::string&>())) {
      key = "mqtt.discovery_prefix";
      error =
          "must be a topic of 1 to 128 characters of a-z, A-Z, 0-9, _, - and inner /, "
          "such as \"homeassistant\"";
      return std::nullopt;
    }
    out.discovery_prefix = prefix->get<std::string>();
  }
  return out;
}

std::vector<entity> fixed_entities() {
  std::vector<entity> out;
  for (int i = 1; i <= limits::slider_count; ++i)
    out.push_back({entity_kind::slider, i});
  for (int i = 1; i <= limits::mute_count; ++i)
    out.push_back({entity_kind::mute, i});
  out.push_back({entity_kind::master_mute, 0});
  out.push_back({entity_kind::master_volume, 0});
  out.push_back({entity_kind::profile, 0});
  out.push_back({entity_kind::device, 0});
  return out;
}

std::string object_id(const entity& e) {
  std::string path = entity_path(e);
  for (char& c : path)
    if (c == '/') c = '_';
  return path;
}

std::string_view component(const entity& e) {
  switch (e.kind) {
    case entity_kind::slider:
    case entity_kind::master_volume:
      return "number";
    case entity_kind::mute:
    case entity_kind::master_mute:
      return "switch";
    case entity_kind::macro:
      return "button";
    case entity_kind::profile:
      return "select";
    case entity_kind::device:
      return "binary_sensor";
  }
  return {};
}

std::string base_topic(std::string_view node_id) {
  return "mixerd/" + std::string(node_id);
}

std::string availability_topic(std::string_view node_id) {
  return base_topic(node_id) + "/availability";
}

std::string state_topic(std::string_view node_id, const entity& e) {
  if (e.kind == entity_kind::macro) return {};
  return base_topic(node_id) + "/" + entity_path(e) + "/state";
}

std::string command_topic(std::string_view node_id, const entity& e) {
  if (e.kind == entity_kind::device) return {};
  return base_topic(node_id) + "/" + entity_path(e) +
         (e.kind == entity_kind::macro ? "/press" : "/set");
}

std::string config_topic(const settings& s, const entity& e) {
  return s.discovery_prefix + "/" + std::string(component(e)) + "/" + s.node_id + "/" +
         object_id(e) + "/config";
}

std::string status_topic(const settings& s) {
  return s.discovery_prefix + "/status";
}

std::vector<std::string> command_filters(std::string_view node_id) {
  const std::string base = base_topic(node_id);
  return {base + "/slider/+/set", base + "/mute/+/set", base + "/volume/master/set",
          base + "/macro/+/press", base + "/profile/set"};
}

std::string default_name(const entity& e) {
  switch (e.kind) {
    case entity_kind::slider:
      return "Slider " + index_part(e);
    case entity_kind::mute:
      return "Mute " + index_part(e);
    case entity_kind::master_mute:
      return "Master mute";
    case entity_kind::master_volume:
      return "Master volume";
    case entity_kind::macro:
      return "Macro " + std::to_string(e.index + 1);
    case entity_kind::profile:
      return "Profile";
    case entity_kind::device:
      return "Device link";
  }
  return {};
}

std::string on_off(bool on) {
  return std::string(on ? payload_on : payload_off);
}

std::optional<command> parse_command(std::string_view node_id, std::string_view topic,
                                     std::string_view payload, std::string& error) {
  const std::string base = base_topic(node_id) + "/";
  std::optional<entity> target;
  if (topic.rfind(base, 0) == 0) target = command_entity(topic.substr(base.size()));
  if (!target) {
    error = "not a command topic of node " + std::string(node_id);
    return std::nullopt;
  }
  const std::string where(topic);
  if (payload.size() > max_payload_bytes) {
    error = where + ": the payload is longer than " + std::to_string(max_payload_bytes) + " bytes";
    return std::nullopt;
  }
  command out;
  out.target = *target;
  switch (target->kind) {
    case entity_kind::slider:
    case entity_kind::master_volume: {
      // The API's own check of {"value": ...}: an integer from 0 to 100 (57.0 is refused there
      // too).
      std::string why;
      auto parsed = mixerd::json::parse_depth_limited(payload, 2, why);
      if (!parsed) {
        error = where + ": value must be an integer from 0 to 100";
        return std::nullopt;
      }
      auto value = validation::int_field(json{{"value", *parsed}}, "value", limits::volume_min,
                                         limits::volume_max, why);
      if (!value) {
        error = where + ": " + why;
        return std::nullopt;
      }
      out.value = *value;
      return out;
    }
    case entity_kind::mute:
    case entity_kind::master_mute:
      if (payload != payload_on && payload != payload_off) {
        error = where + ": the payload must be ON or OFF";
        return std::nullopt;
      }
      out.on = payload == payload_on;
      return out;
    case entity_kind::macro:
      if (payload != payload_press) {
        error = where + ": the payload must be PRESS";
        return std::nullopt;
      }
      return out;
    case entity_kind::profile: {
      auto problem = profiles::name_problem(payload, "profile name");
      if (!problem.empty()) {
        error = where + ": " + problem;
        return std::nullopt;
      }
      out.name = std::string(payload);
      return out;
    }
    case entity_kind::device:
      break;
  }
  error = where + ": the device link takes no commands";
  return std::nullopt;
}

command_request request_of(const command& c) {
  switch (c.target.kind) {
    case entity_kind::slider:
      return {"slider.set", {{"index", c.target.index}, {"value", c.value}}};
    case entity_kind::master_volume:
      return {"master.set", {{"value", c.value}}};
    case entity_kind::mute:
      return {"mute.set", {{"index", c.target.index}, {"muted", c.on}}};
    case entity_kind::master_mute:
      return {"master.mute_set", {{"muted", c.on}}};
    case entity_kind::macro:
      return {"macro.trigger", {{"index", c.target.index}}};
    case entity_kind::profile:
      return {"profile.load", {{"name", c.name}}};
    case entity_kind::device:
      break;
  }
  return {};
}

}  // namespace mixerd::mqtt

namespace mixerd {

// ---- Settings: the broker ----------------------------------------------------------------------

namespace {

// MQTT: {"url": mqtt:// or mqtts://, "username", "password", "node_id", "discovery_prefix"}
// (protocol/mqtt.hpp). The host name only gives a default node_id: any will do here.
std::optional<settings_schema::problem> check_mqtt(const nlohmann::json& s) {
  std::string key;
  std::string error;
  if (mqtt::settings_from(s, "", key, error)) return std::nullopt;
  return settings_schema::problem{key, error};
}

}  // namespace

settings_schema::part mqtt_settings() {
  return {
      "mqtt",
      {{"mqtt",
        {{"type", "object"},
         {"description", "MQTT with Home Assistant discovery (docs/mqtt.md); without url: off"},
         {"properties",
          {{"url", {{"type", "string"}, {"description", "mqtt://host:1883 or mqtts://host:8883"}}},
           {"username", {{"type", "string"}}},
           {"password", {{"type", "string"}, {"writeOnly", true}}},
           {"node_id",
            {{"type", "string"},
             {"description", "This mixer's id on the broker (default: the host name)"}}},
           {"discovery_prefix", {{"type", "string"}, {"default", "homeassistant"}}}}}},
        check_mqtt}}};
}

}  // namespace mixerd
