#include "protocol/events.hpp"

#include "protocol/json.hpp"

namespace mixerd {

nlohmann::json slider_change::to_json() const {
  return {{"index", index}, {"value", value}};
}

nlohmann::json assignment_change::to_json() const {
  return {{"index", index}, {"assignment", json::to_json(assigned)}, {"label", label}};
}

nlohmann::json mute_change::to_json() const {
  nlohmann::json wire_index =
      index == protocol::master_index ? nlohmann::json("master") : nlohmann::json(index);
  return {{"index", std::move(wire_index)}, {"muted", muted}};
}

nlohmann::json volume_change::to_json() const {
  return json::volume_to_json(volume);
}

nlohmann::json profile_change::to_json() const {
  return {{"profile", profile}};
}

nlohmann::json macro_executed::to_json() const {
  nlohmann::json j = {{"page", page}, {"index", index}, {"name", name}, {"ok", ok}};
  if (!ok) j["error"] = error;
  return j;
}

nlohmann::json macro_page_change::to_json() const {
  return {{"page", page}};
}

nlohmann::json macros_change::to_json() const {
  return set;
}

nlohmann::json device_status_change::to_json() const {
  return {{"connected", connected}, {"port", port}};
}

nlohmann::json audio_status_change::to_json() const {
  return {{"connected", connected}, {"server", server}};
}

nlohmann::json smarthome_change::to_json() const {
  return json::to_json(device);
}

nlohmann::json smarthome_status::to_json() const {
  return {{"connected", connected}};
}

nlohmann::json stream_change::to_json() const {
  return {{"scene", scene}};
}

nlohmann::json stream_status::to_json() const {
  return {{"connected", connected}, {"streaming", streaming}, {"recording", recording}};
}

nlohmann::json music_change::to_json() const {
  return state ? json::to_json(*state) : nlohmann::json(nullptr);
}

nlohmann::json plugin_status::to_json() const {
  return json::to_json(plugin);
}

nlohmann::json serial_raw::to_json() const {
  return {{"data", line}};
}

nlohmann::json device_input::to_json() const {
  return {{"line", protocol::encode_device_event(input)}};
}

namespace {
template <std::size_t... I>
topic_set client_topics_of(std::index_sequence<I...>) {
  topic_set set;
  ((std::variant_alternative_t<I, event>::for_clients ? set.set(I) : set), ...);
  return set;
}
}  // namespace

topic_set client_topics() {
  static const topic_set set =
      client_topics_of(std::make_index_sequence<std::variant_size_v<event>>{});
  return set;
}

std::string_view event_name(const event& e) {
  return std::visit([](const auto& ev) { return ev.wire_name; }, e);
}

bool is_client_event(const event& e) {
  return std::visit([](const auto& ev) { return ev.for_clients; }, e);
}

namespace json {
nlohmann::json event_payload(const event& e) {
  return std::visit([](const auto& ev) { return ev.to_json(); }, e);
}
}  // namespace json

}  // namespace mixerd
