// The MQTT capability's settings: the key `mqtt` of settings.json (the broker, the node id, the
// discovery prefix, the commands switch), read into mqtt::settings and declared as its settings
// part. Topics, commands and discovery are in mqtt.cpp and mqtt_discovery.cpp.
#include "protocol/mqtt.hpp"
#include "protocol/settings_schema.hpp"
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

// A port written as decimal digits from 1 to 65535 (the path rule of validation.hpp).
std::optional<int> port_of(std::string_view text) {
  std::string ignored;
  return validation::index_segment(text, "port", 1, 65535, ignored);
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

}  // namespace

bool operator==(const settings& a, const settings& b) {
  return a.enabled == b.enabled && a.url == b.url && a.username == b.username &&
         a.password == b.password && a.node_id == b.node_id &&
         a.discovery_prefix == b.discovery_prefix && a.commands == b.commands;
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
        "\"discovery_prefix\", \"commands\"}";
    return std::nullopt;
  }
  for (const auto& [name, value] : m.items()) {
    if (name != "url" && name != "username" && name != "password" && name != "node_id" &&
        name != "discovery_prefix" && name != "commands") {
      key = "mqtt";
      error =
          "has an unknown key (known: url, username, password, node_id, discovery_prefix, "
          "commands)";
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
  if (const json* commands = field(m, "commands")) {
    if (!commands->is_boolean()) {
      key = "mqtt.commands";
      error = "must be true or false";
      return std::nullopt;
    }
    out.commands = commands->get<bool>();
  }
  return out;
}

}  // namespace mixerd::mqtt

namespace mixerd {

// ---- Settings: the broker ----------------------------------------------------------------------

namespace {

// MQTT: {"url": mqtt:// or mqtts://, "username", "password", "node_id", "discovery_prefix",
// "commands"} (protocol/mqtt.hpp). The host name only gives a default node_id: any will do here.
// Guarded: it holds the broker password and the commands switch (an access rule).
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
      {settings_schema::guarded(
          {"mqtt",
           {{"type", "object"},
            {"description", "MQTT with Home Assistant discovery (docs/mqtt.md); without url: off"},
            {"properties",
             {{"url",
               {{"type", "string"}, {"description", "mqtt://host:1883 or mqtts://host:8883"}}},
              {"username", {{"type", "string"}}},
              {"password", {{"type", "string"}, {"writeOnly", true}}},
              {"node_id",
               {{"type", "string"},
                {"description", "This mixer's id on the broker (default: the host name)"}}},
              {"discovery_prefix", {{"type", "string"}, {"default", "homeassistant"}}},
              {"commands",
               {{"type", "boolean"},
                {"default", true},
                {"description",
                 "Act on the command topics (any client of the broker may send them); false: "
                 "publish the state only"}}}}}},
           check_mqtt})}};
}

}  // namespace mixerd
