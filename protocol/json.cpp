#include "protocol/json.hpp"

#include <type_traits>

namespace mixerd {

std::string_view event_name(const event& e) {
  return std::visit(
      [](const auto& ev) -> std::string_view {
        using T = std::decay_t<decltype(ev)>;
        if constexpr (std::is_same_v<T, slider_change>) return "slider_change";
        if constexpr (std::is_same_v<T, assignment_change>) return "assignment_change";
        if constexpr (std::is_same_v<T, mute_change>) return "mute_change";
        if constexpr (std::is_same_v<T, volume_change>) return "volume_change";
        if constexpr (std::is_same_v<T, profile_change>) return "profile_change";
        if constexpr (std::is_same_v<T, device_status_change>) return "device_status";
        if constexpr (std::is_same_v<T, audio_status_change>) return "audio_status";
        if constexpr (std::is_same_v<T, serial_raw>) return "serial_raw";
        if constexpr (std::is_same_v<T, device_input>) return "device_input";
      },
      e);
}

namespace json {

json to_json(const assignment& a) {
  json j = {{"type", to_string(a.type)}};
  if (a.type == assignment_type::app) j["names"] = a.names;
  return j;
}

json slider_to_json(int index, const slider_state& s) {
  return {{"index", index},   {"value", s.value}, {"assignment", to_json(s.assigned)},
          {"label", s.label}, {"muted", s.muted}, {"enforce_volume", s.enforce_volume}};
}

json sliders_to_json(const mixer_snapshot& m) {
  json list = json::array();
  for (int i = 0; i < limits::slider_count; ++i)
    list.push_back(slider_to_json(i + 1, m.sliders[i]));
  return {{"sliders", std::move(list)}};
}

json mutes_to_json(const mute_states& m) {
  return {{"individual", m.individual}, {"master", m.master}};
}

json status_to_json(const device_status& d, bool audio_connected) {
  return {{"connected", d.connected},
          {"port", d.port},
          {"page", d.page},
          {"firmware_version", d.firmware_version},
          {"app_version", app_version},
          {"audio_connected", audio_connected}};
}

json volume_to_json(int volume) {
  return {{"volume", volume}};
}

json event_payload(const event& e) {
  return std::visit(
      [](const auto& ev) -> json {
        using T = std::decay_t<decltype(ev)>;
        if constexpr (std::is_same_v<T, slider_change>) {
          return {{"index", ev.index}, {"value", ev.value}};
        } else if constexpr (std::is_same_v<T, assignment_change>) {
          return {{"index", ev.index}, {"assignment", to_json(ev.assigned)}, {"label", ev.label}};
        } else if constexpr (std::is_same_v<T, mute_change>) {
          json index = ev.index == protocol::master_index ? json("master") : json(ev.index);
          return {{"index", std::move(index)}, {"muted", ev.muted}};
        } else if constexpr (std::is_same_v<T, volume_change>) {
          return volume_to_json(ev.volume);
        } else if constexpr (std::is_same_v<T, profile_change>) {
          return {{"profile", ev.profile}};
        } else if constexpr (std::is_same_v<T, device_status_change>) {
          return {{"connected", ev.connected}, {"port", ev.port}};
        } else if constexpr (std::is_same_v<T, audio_status_change>) {
          return {{"connected", ev.connected}, {"server", ev.server}};
        } else if constexpr (std::is_same_v<T, serial_raw>) {
          return {{"data", ev.line}};
        } else {
          return {{"line", protocol::encode_device_event(ev.input)}};
        }
      },
      e);
}

std::optional<assignment> assignment_from_json(const json& j, std::string& problem) {
  if (!j.is_object()) {
    problem = "must be an object with a 'type'";
    return std::nullopt;
  }
  auto type_it = j.find("type");
  if (type_it == j.end()) {
    problem = "type is missing";
    return std::nullopt;
  }
  if (!type_it->is_string()) {
    problem = "type must be a string";
    return std::nullopt;
  }
  auto type = assignment_type_from_string(type_it->get_ref<const std::string&>());
  if (!type) {
    problem = "type must be one of unassigned, system_default_output, system_default_input, app";
    return std::nullopt;
  }
  assignment result;
  result.type = *type;
  if (result.type != assignment_type::app) return result;
  auto names_it = j.find("names");
  if (names_it == j.end() || !names_it->is_array()) {
    problem = "names must be an array of application names";
    return std::nullopt;
  }
  for (const auto& name : *names_it) {
    if (!name.is_string() || name.get_ref<const std::string&>().empty()) {
      problem = "names must be an array of non-empty strings";
      return std::nullopt;
    }
    result.names.push_back(name.get<std::string>());
  }
  return result;
}

}  // namespace json
}  // namespace mixerd
