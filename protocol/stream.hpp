// The streaming-software capability (docs/api.md, "Streaming"): OBS Studio through
// obs-websocket 5 (protocol/README.md, "Streaming software"). The messages OBS and mixerd
// exchange (envelope {"op", "d"}, the challenge authentication, requests, events), the settings
// key `stream`, the API bodies and the messages of the stream actor. Pure: no I/O.
#pragma once

#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "protocol/events.hpp"
#include "protocol/settings.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/toast.hpp"
#include "protocol/uri.hpp"

namespace mixerd {

// ---- Events (protocol/events.hpp) ---------------------------------------------------------

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

// A source of the program scene (a scene item): its name, OBS's item id, visible or not.
struct stream_source_item {
  std::string name;
  std::int64_t id = 0;
  bool enabled = true;
};

// What the stream actor publishes after every change (GET /api/stream/..., initial_state).
struct stream_view {
  bool connected = false;  // identified and the scene list loaded
  bool streaming = false;
  bool recording = false;
  std::vector<std::string> scenes;          // as OBS's scene list shows them (top first)
  std::string current;                      // the program scene; empty when not connected
  std::vector<stream_source_item> sources;  // of the program scene, top first
};

// ---- Requests to the stream actor --------------------------------------------------------------
// Each answers a stream_outcome; `body` is what the route answers with on success.

// SetCurrentProgramScene.
struct stream_scene_set {
  std::string scene_name;
};
// SetSceneItemEnabled in the program scene; no value: the opposite of its visibility now.
struct stream_source_set {
  std::string source_name;
  std::optional<bool> visible;
};
struct stream_outcome {
  // not_connected: 400 (the contract's body); not_found: 404; busy: too many requests waiting
  // for OBS (503); failed: OBS refused or did not answer in time (502).
  enum class result { ok, not_connected, not_found, busy, failed };
  result what = result::ok;
  std::string error;
  nlohmann::json body;
};

using stream_actor = caf::typed_actor<caf::replies_to<stream_scene_set>::with<stream_outcome>,
                                      caf::replies_to<stream_source_set>::with<stream_outcome>,
                                      caf::reacts_to<settings_reloaded>>;

namespace stream {

// ---- Settings -----------------------------------------------------------------------------------
inline constexpr std::string_view settings_key = "stream";
inline constexpr std::string_view default_url = "ws://127.0.0.1:4455";
inline constexpr std::size_t max_password_bytes = 256;
// A scene or source name in a request (as a macro's scene_name and source_name).
inline constexpr std::size_t max_name_bytes = 256;

struct settings {
  std::string url{default_url};
  uri::url_parts endpoint;  // url, split
  std::string password;     // empty: none (OBS without authentication)
};
inline bool operator==(const settings& a, const settings& b) {
  return a.url == b.url && a.password == b.password;
}
inline bool operator!=(const settings& a, const settings& b) {
  return !(a == b);
}

// The `stream` key of the whole settings (absent: the defaults). On a bad value: nullopt,
// `key` the offending key path ("stream.url") and `error` the problem. The password is never in
// the error.
std::optional<settings> settings_from(const nlohmann::json& all, std::string& key,
                                      std::string& error);

// ---- obs-websocket 5 ----------------------------------------------------------------------------
inline constexpr std::string_view subprotocol = "obswebsocket.json";
inline constexpr int rpc_version = 1;
// The events mixerd follows: Scenes (1 << 2), Inputs (1 << 3: a source renamed), Outputs
// (1 << 6: stream and recording), SceneItems (1 << 7).
inline constexpr int event_subscriptions = (1 << 2) | (1 << 3) | (1 << 6) | (1 << 7);
// Close code of a refused password.
inline constexpr int close_authentication_failed = 4009;
// requestStatus codes mixerd tells apart.
inline constexpr int code_success = 100;
inline constexpr int code_not_found = 600;  // ResourceNotFound
// Nested deeper than this, a message is refused before it is parsed.
inline constexpr int max_json_depth = 32;

// base64(sha256(base64(sha256(password + salt)) + challenge)), as obs-websocket 5 wants it.
std::string auth_string(std::string_view password, std::string_view salt,
                        std::string_view challenge);

struct hello {
  int rpc_version = 0;
  std::optional<std::string> challenge;  // both present when OBS wants a password
  std::optional<std::string> salt;
};
struct identified {
  int rpc_version = 0;
};
struct event {
  std::string type;
  nlohmann::json data;  // an object ({} when absent)
};
struct response {
  std::string type;
  std::string id;
  bool ok = false;
  int code = 0;
  std::string comment;
  nlohmann::json data;  // an object ({} when absent)
};
using message = std::variant<hello, identified, event, response>;

// One message from OBS. nullopt (and `error`) for anything that is not valid JSON of the
// documented shapes; messages of other op codes (batch responses, which mixerd never asks for)
// are refused too.
std::optional<message> parse_message(std::string_view text, std::string& error);

// The Identify answering `h` (with its authentication when OBS asks for one).
std::string identify_message(const hello& h, std::string_view password);
// A Request; `data` null: none.
std::string request_message(std::string_view type, std::string_view id,
                            const nlohmann::json& data = nullptr);

// responseData of GetSceneList: the scenes in the order OBS's scene list shows them (OBS sends
// them bottom first, each with its sceneIndex) and the program scene. nullopt when malformed.
struct scene_list {
  std::vector<std::string> scenes;
  std::string current;
};
std::optional<scene_list> scene_list_of(const nlohmann::json& data);
// responseData of GetSceneItemList: the items top first (OBS sends them bottom first, each with
// its sceneItemIndex). nullopt when malformed.
std::optional<std::vector<stream_source_item>> scene_items_of(const nlohmann::json& data);
// outputActive of GetStreamStatus, GetRecordStatus, StreamStateChanged and RecordStateChanged.
std::optional<bool> output_active_of(const nlohmann::json& data);
// A string field of an object; nullopt when absent or not a string.
std::optional<std::string> string_of(const nlohmann::json& data, const char* field);

// ---- API bodies and toasts ---------------------------------------------------------------------
// GET /api/stream/scenes: {"scenes", "current"}.
nlohmann::json scenes_to_json(const stream_view& view);
// GET /api/stream/sources: {"sources": [names]}.
nlohmann::json sources_to_json(const stream_view& view);
// initial_state.stream: {"connected", "streaming", "recording", "scenes", "current" (null when
// not connected), "sources"}.
nlohmann::json to_json(const stream_view& view);

// The `stream` toast handler's toasts.
toast_content scene_toast(std::string_view scene);
toast_content output_toast(bool recording, bool active);

}  // namespace stream

namespace macros {
struct kind;
}  // namespace macros

// The streaming software's macro kinds: stream_scene and stream_source.
std::vector<macros::kind> stream_macro_kinds();

namespace settings_schema {
struct part;
}  // namespace settings_schema

// Its key of settings.json: stream (the OBS connection).
settings_schema::part stream_settings();

// Its toast handler: scene switches, stream and recording start and stop.
toast_handler_list stream_toast_handlers();

}  // namespace mixerd

// The stream capability's CAF type-ID block, chained after the smarthome block
// (docs/architecture.md, "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::stream_scene_set)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::stream_source_set)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::stream_outcome)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_stream, caf::id_block::mixerd_smarthome::end)
CAF_ADD_TYPE_ID(mixerd_stream, (mixerd::stream_scene_set))
CAF_ADD_TYPE_ID(mixerd_stream, (mixerd::stream_source_set))
CAF_ADD_TYPE_ID(mixerd_stream, (mixerd::stream_outcome))
CAF_END_TYPE_ID_BLOCK(mixerd_stream)
