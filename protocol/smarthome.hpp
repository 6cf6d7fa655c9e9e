// The smart-home capability (docs/api.md, "Smart home"; protocol/README.md, "Smart home"): the
// `smarthome` settings, the messages of Home Assistant's WebSocket API that mixerd sends and
// reads, the Smart-home devices it lists, the API bodies and the messages of the smart-home
// actor. Pure: no I/O.
#pragma once

#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/events.hpp"
#include "protocol/plants.hpp"
#include "protocol/settings.hpp"
#include "protocol/toast.hpp"
#include "protocol/types.hpp"
#include "protocol/uri.hpp"

namespace mixerd {

// ---- Events (protocol/events.hpp) ---------------------------------------------------------

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

// ---- Requests to the smart-home actor --------------------------------------------------------

// One service call on a listed entity; answers a smarthome_outcome.
struct smarthome_command {
  enum class action { toggle, turn_on, turn_off };
  std::string entity_id;
  action what = action::toggle;
  // turn_on of a light: brightness_pct 0-100 (0 turns it off). Other entities: refused.
  std::optional<int> brightness;
};

struct smarthome_outcome {
  // not_connected: not configured, or not authenticated with its states loaded (503);
  // not_found: not a listed entity (404); invalid: brightness of a non-light (400);
  // timeout: Home Assistant did not answer (or, for a toggle, report the new state) within
  // smarthome::call_timeout (504); refused: Home Assistant answered the call with an error (502);
  // busy: too many calls waiting (503).
  enum class result { ok, not_connected, not_found, invalid, timeout, refused, busy };
  result what = result::ok;
  std::string error;        // a sentence for the client when not ok
  smarthome_device device;  // ok: the device as Home Assistant reports it after the call
};

// What the smart-home actor publishes after every change (GET /api/smarthome, initial_state).
// Never holds the token.
struct smarthome_view {
  bool connected = false;
  std::vector<smarthome_device> devices;  // empty while not connected
};

using smarthome_actor =
    caf::typed_actor<caf::replies_to<smarthome_command>::with<smarthome_outcome>,
                     caf::reacts_to<settings_reloaded>>;

namespace smarthome {

// The contract's limits and mixerd's own bounds (protocol/README.md, "Smart home").
inline constexpr auto call_timeout = std::chrono::seconds(3);
// From opening the WebSocket to authenticated with the states loaded.
inline constexpr auto setup_timeout = std::chrono::seconds(10);
inline constexpr auto first_retry = std::chrono::seconds(1);
inline constexpr auto max_retry = std::chrono::seconds(30);
// Home Assistant's own heartbeat (ping/pong messages) while connected; a ping unanswered by the
// next one ends the connection.
inline constexpr auto heartbeat_interval = std::chrono::seconds(20);
inline constexpr std::size_t max_pending_calls = 32;
inline constexpr std::size_t max_devices = 512;
inline constexpr std::size_t max_entities = 512;  // the `entities` setting
inline constexpr std::size_t max_token_bytes = 4096;
inline constexpr std::size_t max_entity_id_bytes = 255;
inline constexpr std::size_t max_friendly_name_bytes = 255;
inline constexpr std::size_t max_state_bytes = 255;
// get_states of a large installation is a few MB; more closes the connection.
inline constexpr std::size_t max_message_bytes = 16 * 1024 * 1024;
// The domains listed when the setting names no entities.
inline constexpr std::string_view default_domains[] = {"light", "switch", "fan", "input_boolean"};

// ---- Settings ---------------------------------------------------------------------------------
// "smarthome": {"url": "http(s)://host:port", "token": "<long-lived token>",
//               "entities": ["light.desk", ...] (optional), "verify_tls": true (optional)}.
// No key, or an empty url: not configured.
struct settings {
  std::string url;           // as written, for the log
  uri::url_parts websocket;  // where the WebSocket is: <url's path>/api/websocket
  std::string token;
  std::vector<std::string> entities;  // empty: every entity of default_domains
  bool verify_tls = true;

  friend bool operator==(const settings& a, const settings& b) {
    return a.url == b.url && a.token == b.token && a.entities == b.entities &&
           a.verify_tls == b.verify_tls;
  }
  friend bool operator!=(const settings& a, const settings& b) { return !(a == b); }
};

// Checks the `smarthome` key of a settings object: nullopt when valid (or absent); else the key
// path ("smarthome.url") and what is wrong. Never quotes the token.
struct settings_problem {
  std::string key;
  std::string message;
};
std::optional<settings_problem> check_settings(const nlohmann::json& all_settings);

// The configured connection, or nullopt when not configured (or invalid: check_settings first).
std::optional<settings> settings_from(const nlohmann::json& all_settings);

// "light.desk": a domain and an object id of a-z 0-9 _, at most 255 bytes.
bool valid_entity_id(std::string_view id);
std::string_view domain_of(std::string_view entity_id);

// Whether `entity_id` is one mixerd lists: named in `entities`, or of a default domain when the
// list is empty.
bool listed(std::string_view entity_id, const std::vector<std::string>& entities);

// ---- Home Assistant's messages (developers.home-assistant.io/docs/api/websocket) -------------

// One incoming message, as far as mixerd reads it.
struct incoming {
  enum class kind { auth_required, auth_ok, auth_invalid, result, event, pong, other };
  kind type = kind::other;
  std::optional<std::int64_t> id;
  bool success = false;   // result
  nlohmann::json result;  // result: its "result" (null when absent)
  std::string error;      // result with success false: "code: message"; auth_invalid: message
  // event of type state_changed: the entity and its new state (null: the entity was removed).
  std::string changed_entity;
  nlohmann::json new_state;
};

// Parses one message; nullopt when it is not a JSON object with a string "type" (or is nested
// deeper than any message of Home Assistant). Never throws.
std::optional<incoming> parse(std::string_view text);

// A state object of get_states or state_changed as a Smart-home device: nullopt when it has no
// valid entity_id or no string state. friendly_name falls back to the entity id; brightness
// (0-255) is scaled to 0-100 and rounded; only a number is read as one.
std::optional<smarthome_device> device_of(const nlohmann::json& state);

// 0-255 -> 0-100, rounded to the nearest (half up); values outside 0-255 are clamped.
int brightness_percent(double ha_brightness);

std::string auth_message(const std::string& token);
std::string subscribe_state_changed(std::int64_t id);
std::string get_states(std::int64_t id);
std::string ping(std::int64_t id);
// call_service: <domain>.<service> with the entity as target; brightness_pct when given.
std::string call_service(std::int64_t id, std::string_view domain, std::string_view service,
                         const std::string& entity_id, std::optional<int> brightness_pct);

// ---- API bodies --------------------------------------------------------------------------------
// GET /api/smarthome and initial_state.smarthome: {"connected", "devices": [...]}.
nlohmann::json to_json(const smarthome_view& view);

// The toast that shows a toggle's result: the friendly name (at most 30 characters, control
// bytes as spaces) and "Now <state>".
struct toast_text {
  std::string message;
  std::string subtitle;
};
toast_text toggle_toast(const smarthome_device& device);

}  // namespace smarthome

namespace macros {
struct kind;
}  // namespace macros

// The smart home's macro kind: smarthome.
std::vector<macros::kind> smarthome_macro_kinds();

namespace settings_schema {
struct part;
}  // namespace settings_schema

// Its key of settings.json: smarthome (Home Assistant).
settings_schema::part smarthome_settings();

// Its toast handler: a toggle's result.
toast_handler_list smarthome_toast_handlers();

}  // namespace mixerd

// The smarthome capability's CAF type-ID block, chained after the plants block
// (docs/architecture.md, "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::smarthome_command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::smarthome_outcome)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_smarthome, caf::id_block::mixerd_plants::end)
CAF_ADD_TYPE_ID(mixerd_smarthome, (mixerd::smarthome_command))
CAF_ADD_TYPE_ID(mixerd_smarthome, (mixerd::smarthome_outcome))
CAF_END_TYPE_ID_BLOCK(mixerd_smarthome)
