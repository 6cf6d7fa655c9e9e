// The MQTT capability (docs/mqtt.md, protocol/README.md "MQTT"): mixerd's state and commands on
// an MQTT broker, with Home Assistant discovery. The settings key `mqtt`, the node id, the topic
// names, the discovery payloads, the state payloads and the parsing of commands. Pure: no I/O.
#pragma once

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/command_params.hpp"
#include "protocol/device.hpp"
#include "protocol/events.hpp"
#include "protocol/macros.hpp"
#include "protocol/mixer.hpp"
#include "protocol/profiles.hpp"
#include "protocol/sensors.hpp"
#include "protocol/settings.hpp"
#include "protocol/status_facts.hpp"

namespace mixerd {

// The events (hub subscriptions) the MQTT actor mirrors as retained states (and re-publishes
// discovery on).
inline event_kind_set mqtt_subscriptions() {
  return kinds_of<slider_change, assignment_change, mute_change, volume_change, profile_change,
                  macro_page_change, macros_change, device_status>();
}

using mqtt_actor = caf::typed_actor<caf::reacts_to<event>, caf::reacts_to<settings_reloaded>>;

namespace mqtt {

// ---- Settings -----------------------------------------------------------------------------------
inline constexpr std::string_view settings_key = "mqtt";
inline constexpr std::string_view default_discovery_prefix = "homeassistant";
inline constexpr int default_port = 1883;
inline constexpr int default_tls_port = 8883;
inline constexpr std::size_t max_node_id_bytes = 64;
inline constexpr std::size_t max_prefix_bytes = 128;
inline constexpr std::size_t max_credential_bytes = 256;  // username and password each
inline constexpr std::size_t max_host_bytes = 253;

struct settings {
  bool enabled = false;  // false: no `mqtt` key or no url in it
  std::string url;
  bool tls = false;  // mqtts://
  std::string host;  // without the brackets of an IPv6 literal
  int port = default_port;
  std::string username;  // empty: none
  std::string password;  // empty: none; never logged
  std::string node_id;
  std::string discovery_prefix{default_discovery_prefix};
  // false: state only. No command topic is subscribed to or acted on, and discovery shows the
  // entities read-only (see component()).
  bool commands = true;
};
bool operator==(const settings& a, const settings& b);
inline bool operator!=(const settings& a, const settings& b) {
  return !(a == b);
}

// The node id made from a host name: every byte outside [a-zA-Z0-9_-] becomes '_', at most
// max_node_id_bytes; "mixerd" when nothing is left.
std::string node_id_from_host(std::string_view host_name);
// A node id as the setting may give it: 1 to 64 bytes of [a-zA-Z0-9_-].
bool valid_node_id(std::string_view id);

// The `mqtt` key of the whole settings (absent, or without `url`: MQTT off). `host_name` gives
// the default node_id. On a bad value: nullopt, `key` the offending key path ("mqtt.url") and
// `error` the problem; the password is never in the error.
std::optional<settings> settings_from(const nlohmann::json& all, std::string_view host_name,
                                      std::string& key, std::string& error);

// ---- Entities and topics ------------------------------------------------------------------------
enum class entity_kind { slider, mute, master_mute, master_volume, macro, profile, device };

struct entity {
  entity_kind kind = entity_kind::slider;
  int index = 0;  // slider and mute 1-4, macro slot 0-8 (as in the API); else 0
};
inline bool operator==(const entity& a, const entity& b) {
  return a.kind == b.kind && a.index == b.index;
}

// The entities whose discovery does not depend on the macro page: 4 sliders, 4 mutes, the
// master mute, the master volume, the profile and the device link.
std::vector<entity> fixed_entities();

// "slider_1", "mute_master", "volume_master", "macro_0", "profile", "device".
std::string object_id(const entity& e);
// Home Assistant's component: number, switch, button, select, binary_sensor. With `commands`
// false the read-only one: sensor (sliders, master volume, profile), binary_sensor (mutes, the
// device link); a macro button has none (its config is never published).
std::string_view component(const entity& e, bool commands = true);

// mixerd/<node_id>
std::string base_topic(std::string_view node_id);
std::string availability_topic(std::string_view node_id);
// mixerd/<node_id>/slider/1/state ...; empty for a macro (a button has no state).
std::string state_topic(std::string_view node_id, const entity& e);
// mixerd/<node_id>/slider/1/set, .../macro/0/press, .../profile/set; empty for the device link.
std::string command_topic(std::string_view node_id, const entity& e);
// <prefix>/<component>/<node_id>/<object_id>/config, the component as s.commands has it.
std::string config_topic(const settings& s, const entity& e);
// The config topics of the fixed entities as the other value of s.commands has them, where they
// differ: a full publication empties them first, so that switching mqtt.commands leaves no
// stale entity behind (and, with commands off, no control that does nothing).
std::vector<std::string> other_layout_config_topics(const settings& s);
// <prefix>/status: Home Assistant's birth and will.
std::string status_topic(const settings& s);
// The topic filters of this node's commands (and nothing of any other node's).
std::vector<std::string> command_filters(std::string_view node_id);

inline constexpr std::string_view online = "online";
inline constexpr std::string_view offline = "offline";
inline constexpr std::string_view payload_on = "ON";
inline constexpr std::string_view payload_off = "OFF";
inline constexpr std::string_view payload_press = "PRESS";

// ---- Discovery ----------------------------------------------------------------------------------
// What a discovery payload names beyond the settings.
struct discovery_context {
  std::string name;                  // the entity's name (a slider's label, a macro's name, ...)
  std::vector<std::string> options;  // a select's options (the profile names)
};
// The retained config of an entity (Home Assistant MQTT discovery). With s.commands false: no
// command topic, and a unique_id of its own (mixerd_<node_id>_<object_id>_readonly), so that
// the read-only entity never collides with the controllable one it replaces.
nlohmann::json discovery_config(const settings& s, const entity& e, const discovery_context& c);
// The default name of an entity: "Slider 1", "Mute 1", "Master mute", "Master volume",
// "Macro 1" (slot 0), "Profile", "Device link".
std::string default_name(const entity& e);

// ---- Home Assistant's birth messages
// ------------------------------------------------------------- Each `online` on <prefix>/status
// asks for the full publication again. A burst of them (a client in a loop, a flood) must not
// become a burst of full publications: the first birth is answered at once and opens a window of
// birth_interval; any birth inside the window is owed one publication at the window's end (which
// opens the next window). So there is at most one full publication for births per window, and the
// last birth is always answered. Pure: the caller passes the time and runs the timer.
inline constexpr std::chrono::seconds birth_interval{10};

class birth_coalescer {
 public:
  using clock = std::chrono::steady_clock;
  // publish: now. schedule: owed; call on_timer() at due(). owed: already owed, nothing to do.
  enum class verdict { publish, schedule, owed };

  explicit birth_coalescer(clock::duration interval = birth_interval) : interval_(interval) {}
  verdict birth(clock::time_point now);
  // The end of the current window: when the owed publication is due.
  clock::time_point due() const { return last_ + interval_; }
  bool owed() const { return owed_; }
  // The timer set on `schedule`: true when the owed publication goes out now. False when
  // nothing is owed (a reset came between) or the window has not ended (set it again).
  bool on_timer(clock::time_point now);
  // A new connection publishes everything by itself: nothing is owed and no window is open.
  void reset();

 private:
  clock::duration interval_;
  clock::time_point last_{};
  bool open_ = false;  // a window is open (last_ is its start)
  bool owed_ = false;
};

// ---- Sensors ------------------------------------------------------------------------------------
// The readings the capabilities offer (protocol/sensors.hpp), each a Home Assistant sensor:
// mixerd/<node_id>/sensor/<object_id>/state, its config at
// <prefix>/sensor/<node_id>/<object_id>/config.
std::string sensor_state_topic(std::string_view node_id, std::string_view object_id);
std::string sensor_config_topic(const settings& s, std::string_view object_id);
nlohmann::json sensor_config(const settings& s, const sensor_reading& r);

// ---- States -------------------------------------------------------------------------------------
std::string on_off(bool on);

// ---- Commands -----------------------------------------------------------------------------------
inline constexpr std::size_t max_payload_bytes = 1024;

struct command {
  entity target;
  int value = 0;     // a number's value (0-100)
  bool on = false;   // a switch's wanted state
  std::string name;  // a select's option (a profile name)
};
// What a command message runs: a command of the command table (docs/api.md, "Commands") and its
// arguments, with the API's indices (sliders and mutes 1-4, macro slots 0-8).
command_request request_of(const command& c);
// A message on one of command_filters(node_id): the entity and its validated payload, with the
// API's rules (numbers: integers from 0 to 100, as POST /api/sliders/{index} takes them; a
// switch: ON or OFF; a button: PRESS; a profile: a valid profile name). nullopt and `error` (a
// sentence naming the topic's problem; the payload is never echoed) otherwise.
std::optional<command> parse_command(std::string_view node_id, std::string_view topic,
                                     std::string_view payload, std::string& error);

// ---- The broker link in the web page ------------------------------------------------------------

// Where the connection to the broker stands: shown in the page's Status section and the settings
// area (status_facts, source "mqtt"), so a user sees that a broker took the settings.
enum class link_state { off, connecting, connected, refused, unavailable };
// The facts for `state` ({} while MQTT is off: nothing to show); `code` is CONNACK's refusal.
std::vector<status_fact> link_facts(const settings& config, link_state state, int code = 0);

}  // namespace mqtt

// The facts as last published, for initial_state (status_facts.mqtt).
struct mqtt_link_view {
  std::vector<status_fact> facts;
};

namespace settings_schema {
struct part;
}  // namespace settings_schema

// Its key of settings.json: mqtt (the broker and the node id).
settings_schema::part mqtt_settings();

}  // namespace mixerd
