// Events fanned out by the hub: domain actor -> hub -> subscribers. Each event type describes
// itself: its wire name (the Socket.IO event name), whether clients see it, and its JSON
// payload. The broadcaster, and later the plugin bridge and MQTT, handle every event through
// these three members without per-event code. Adding an event = one struct here, one
// alternative in `event`, its to_json in events.cpp.
#pragma once

#include <bitset>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "protocol/device_codec.hpp"
#include "protocol/types.hpp"

namespace mixerd {

struct slider_change {
  static constexpr std::string_view wire_name = "slider_change";
  static constexpr bool for_clients = true;
  int index = 1;  // 1-4
  int value = 0;
  nlohmann::json to_json() const;
};
struct assignment_change {
  static constexpr std::string_view wire_name = "assignment_change";
  static constexpr bool for_clients = true;
  int index = 1;  // 1-4
  assignment assigned;
  std::string label;
  nlohmann::json to_json() const;
};
struct mute_change {
  static constexpr std::string_view wire_name = "mute_change";
  static constexpr bool for_clients = true;
  int index = 1;  // 1-4, or protocol::master_index for the master mute ("master" on the wire)
  bool muted = false;
  nlohmann::json to_json() const;
};
struct volume_change {
  static constexpr std::string_view wire_name = "volume_change";
  static constexpr bool for_clients = true;
  int volume = 0;
  nlohmann::json to_json() const;
};
struct profile_change {
  static constexpr std::string_view wire_name = "profile_change";
  static constexpr bool for_clients = true;
  std::string profile;
  nlohmann::json to_json() const;
};
// A macro ran (device button or API trigger); `error` only when not ok.
struct macro_executed {
  static constexpr std::string_view wire_name = "macro_executed";
  static constexpr bool for_clients = true;
  int page = 0;   // 0-3
  int index = 0;  // 0-8
  std::string name;
  bool ok = true;
  std::string error;
  nlohmann::json to_json() const;
};
struct macro_page_change {
  static constexpr std::string_view wire_name = "macro_page_change";
  static constexpr bool for_clients = true;
  int page = 0;  // 0-3
  nlohmann::json to_json() const;
};
// The whole Macro page set after an edit or a profile load (encoded by the macro actor).
struct macros_change {
  static constexpr std::string_view wire_name = "macros_change";
  static constexpr bool for_clients = true;
  nlohmann::json set;
  nlohmann::json to_json() const;
};
struct device_status_change {
  static constexpr std::string_view wire_name = "device_status";
  static constexpr bool for_clients = true;
  bool connected = false;
  std::string port;
  nlohmann::json to_json() const;
};
// An audio server was attached or lost (`server` names it).
struct audio_status_change {
  static constexpr std::string_view wire_name = "audio_status";
  static constexpr bool for_clients = true;
  bool connected = false;
  std::string server;
  nlohmann::json to_json() const;
};
// A listed Home Assistant entity changed (state, brightness or name).
struct smarthome_change {
  static constexpr std::string_view wire_name = "smarthome_change";
  static constexpr bool for_clients = true;
  smarthome_device device;
  nlohmann::json to_json() const;
};
// The Home Assistant connection: authenticated and states loaded, or not.
struct smarthome_status {
  static constexpr std::string_view wire_name = "smarthome_status";
  static constexpr bool for_clients = true;
  bool connected = false;
  nlohmann::json to_json() const;
};
// The streaming software's program scene changed.
struct stream_change {
  static constexpr std::string_view wire_name = "stream_change";
  static constexpr bool for_clients = true;
  std::string scene;
  nlohmann::json to_json() const;
};
// The streaming software's connection, streaming and recording state.
struct stream_status {
  static constexpr std::string_view wire_name = "stream_status";
  static constexpr bool for_clients = true;
  bool connected = false;
  bool streaming = false;
  bool recording = false;
  nlohmann::json to_json() const;
};
// The active music player's state changed (none: no player; null on the wire).
struct music_change {
  static constexpr std::string_view wire_name = "music_change";
  static constexpr bool for_clients = true;
  std::optional<music_state> state;
  nlohmann::json to_json() const;
};
// A plugin's state, restarts, last error or switch changed (GET /api/plugins shows the same).
struct plugin_status {
  static constexpr std::string_view wire_name = "plugin_status";
  static constexpr bool for_clients = true;
  plugin_info plugin;
  nlohmann::json to_json() const;
};
// A device line no codec rule understood (boot chatter, newer firmware); for plugins.
struct serial_raw {
  static constexpr std::string_view wire_name = "serial_raw";
  static constexpr bool for_clients = false;
  std::string line;
  nlohmann::json to_json() const;
};
// Every understood device line, for actors that react to input (mixer, macros, plugins).
struct device_input {
  static constexpr std::string_view wire_name = "device_input";
  static constexpr bool for_clients = false;
  protocol::device_event input;
  nlohmann::json to_json() const;
};

using event =
    std::variant<slider_change, assignment_change, mute_change, volume_change, profile_change,
                 macro_executed, macro_page_change, macros_change, device_status_change,
                 audio_status_change, smarthome_change, smarthome_status, stream_change,
                 stream_status, music_change, plugin_status, serial_raw, device_input>;

// ---- Topics: a subscriber names the event kinds it wants (one topic per event type) ----------

using topic_set = std::bitset<std::variant_size_v<event>>;

namespace detail {
template <class T, std::size_t I = 0>
constexpr std::size_t event_index() {
  static_assert(I < std::variant_size_v<event>, "not an event type");
  if constexpr (std::is_same_v<T, std::variant_alternative_t<I, event>>) {
    return I;
  } else {
    return event_index<T, I + 1>();
  }
}
}  // namespace detail

// The topics of the event types Ts, e.g. topics_of<slider_change, mute_change>().
template <class... Ts>
topic_set topics_of() {
  topic_set set;
  (set.set(detail::event_index<Ts>()), ...);
  return set;
}

inline std::size_t topic_of(const event& e) {
  return e.index();
}

// Every event clients see (for_clients), e.g. what the Socket.IO broadcaster subscribes to.
topic_set client_topics();

// The wire name, e.g. "slider_change", and the JSON payload of any event.
std::string_view event_name(const event& e);
bool is_client_event(const event& e);

namespace json {
nlohmann::json event_payload(const event& e);
}  // namespace json

}  // namespace mixerd
