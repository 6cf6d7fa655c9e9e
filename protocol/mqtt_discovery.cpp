// Home Assistant MQTT discovery: the retained config of each entity (controllable, or read-only
// with mqtt.commands false) and of each sensor the capabilities offer, and when a birth message
// gets the discovery again (birth_coalescer) (protocol/README.md, "MQTT"). The settings are in
// mqtt_settings.cpp, the topics and commands in mqtt.cpp.
#include "protocol/limits.hpp"
#include "protocol/mqtt.hpp"
#include "protocol/types.hpp"

namespace mixerd::mqtt {

namespace {

using nlohmann::json;

// What every entity's config shares: its ids, the node's availability and the device it is on.
json entity_config(const settings& s, const std::string& object, const std::string& name,
                   std::string_view unique_suffix = {}) {
  const std::string unique = "mixerd_" + s.node_id + "_" + object + std::string(unique_suffix);
  return {
      {"name", name},
      {"unique_id", unique},
      {"object_id", unique},
      {"availability_topic", availability_topic(s.node_id)},
      {"payload_available", online},
      {"payload_not_available", offline},
      {"device",
       {{"identifiers", json::array({"mixerd_" + s.node_id})},
        {"name", "mixerd " + s.node_id},
        {"manufacturer", "mixerd"},
        {"model", "USB mixer"},
        {"sw_version", app_version}}},
  };
}

// The read-only layout (mqtt.commands false): the states as sensors, no command topic.
json read_only_config(const settings& s, const entity& e, const discovery_context& c) {
  // The device link reads the same either way: its unique_id stays.
  const bool same = component(e, true) == component(e, false);
  json config = entity_config(s, object_id(e), c.name.empty() ? default_name(e) : c.name,
                              same ? "" : "_readonly");
  if (auto state = state_topic(s.node_id, e); !state.empty()) config["state_topic"] = state;
  switch (e.kind) {
    case entity_kind::slider:
    case entity_kind::master_volume:
      config["unit_of_measurement"] = "%";
      config["state_class"] = "measurement";
      break;
    case entity_kind::mute:
    case entity_kind::master_mute:
      config["payload_on"] = payload_on;
      config["payload_off"] = payload_off;
      break;
    case entity_kind::device:
      config["payload_on"] = payload_on;
      config["payload_off"] = payload_off;
      config["device_class"] = "connectivity";
      break;
    case entity_kind::macro:
    case entity_kind::profile:
      break;
  }
  return config;
}

}  // namespace

nlohmann::json discovery_config(const settings& s, const entity& e, const discovery_context& c) {
  if (!s.commands) return read_only_config(s, e, c);
  json config = entity_config(s, object_id(e), c.name.empty() ? default_name(e) : c.name);
  if (auto state = state_topic(s.node_id, e); !state.empty()) config["state_topic"] = state;
  if (auto command = command_topic(s.node_id, e); !command.empty())
    config["command_topic"] = command;
  switch (e.kind) {
    case entity_kind::slider:
    case entity_kind::master_volume:
      config["min"] = limits::volume_min;
      config["max"] = limits::volume_max;
      config["step"] = 1;
      config["mode"] = "slider";
      break;
    case entity_kind::mute:
    case entity_kind::master_mute:
      config["payload_on"] = payload_on;
      config["payload_off"] = payload_off;
      break;
    case entity_kind::macro:
      config["payload_press"] = payload_press;
      break;
    case entity_kind::profile:
      config["options"] = c.options;
      break;
    case entity_kind::device:
      config["payload_on"] = payload_on;
      config["payload_off"] = payload_off;
      config["device_class"] = "connectivity";
      break;
  }
  return config;
}

std::string sensor_state_topic(std::string_view node_id, std::string_view object_id) {
  return base_topic(node_id) + "/sensor/" + std::string(object_id) + "/state";
}

std::string sensor_config_topic(const settings& s, std::string_view object_id) {
  return s.discovery_prefix + "/sensor/" + s.node_id + "/" + std::string(object_id) + "/config";
}

nlohmann::json sensor_config(const settings& s, const sensor_reading& r) {
  json config = entity_config(s, r.object_id, r.name);
  config["state_topic"] = sensor_state_topic(s.node_id, r.object_id);
  if (!r.unit.empty()) config["unit_of_measurement"] = r.unit;
  if (!r.device_class.empty()) config["device_class"] = r.device_class;
  if (!r.state_class.empty()) config["state_class"] = r.state_class;
  return config;
}

birth_coalescer::verdict birth_coalescer::birth(clock::time_point now) {
  if (owed_) return verdict::owed;
  if (!open_ || now - last_ >= interval_) {
    open_ = true;
    last_ = now;
    return verdict::publish;
  }
  owed_ = true;
  return verdict::schedule;
}

bool birth_coalescer::on_timer(clock::time_point now) {
  if (!owed_ || now < due()) return false;
  owed_ = false;
  last_ = now;
  return true;
}

void birth_coalescer::reset() {
  open_ = false;
  owed_ = false;
}

}  // namespace mixerd::mqtt
