// The MQTT capability's topics, entities and commands (protocol/mqtt.hpp). The settings are in
// mqtt_settings.cpp, discovery in mqtt_discovery.cpp.
#include "protocol/mqtt.hpp"

#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/profiles.hpp"
#include "protocol/types.hpp"
#include "protocol/validation.hpp"

namespace mixerd::mqtt {

namespace {

using nlohmann::json;

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

std::string_view component(const entity& e, bool commands) {
  switch (e.kind) {
    case entity_kind::slider:
    case entity_kind::master_volume:
      return commands ? "number" : "sensor";
    case entity_kind::mute:
    case entity_kind::master_mute:
      return commands ? "switch" : "binary_sensor";
    case entity_kind::macro:
      return "button";
    case entity_kind::profile:
      return commands ? "select" : "sensor";
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
  return s.discovery_prefix + "/" + std::string(component(e, s.commands)) + "/" + s.node_id + "/" +
         object_id(e) + "/config";
}

std::vector<std::string> other_layout_config_topics(const settings& s) {
  settings other = s;
  other.commands = !s.commands;
  std::vector<std::string> out;
  for (const auto& e : fixed_entities())
    if (component(e, s.commands) != component(e, other.commands))
      out.push_back(config_topic(other, e));
  return out;
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

std::vector<status_fact> link_facts(const settings& config, link_state state, int code) {
  const std::string broker = config.url + " as node " + config.node_id;
  switch (state) {
    case link_state::off:
      return {};
    case link_state::connecting:
      return {{"MQTT", "Connecting to " + broker}};
    case link_state::connected:
      return {{"MQTT", "Connected to " + broker}};
    case link_state::refused:
      // CONNACK 4 and 5: a wrong user name or password, or one the broker does not authorise.
      return {{"MQTT", "Refused by " + config.url + " (code " + std::to_string(code) +
                           (code == 4 || code == 5 ? ": check the user name and password" : "") +
                           "); retrying"}};
    case link_state::unavailable:
      return {{"MQTT", "Not connected to " + config.url + "; retrying"}};
  }
  return {};
}

}  // namespace mixerd::mqtt
