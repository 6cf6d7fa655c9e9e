// The plugin-host capability (docs/plugins.md, docs/api.md "Plugins"): Python plugins under
// DATA_DIR/plugins/executable/, one /usr/bin/python3 process each, driven by the plugin bridge
// (plugins/bridge/) over the line protocol of protocol/README.md, "Plugins". This file holds the
// bridge's interface to the rest of the daemon, its limits and its hub subscriptions. Pure: no I/O.
#pragma once

#include <atomic>
#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "protocol/device.hpp"
#include "protocol/events.hpp"
#include "protocol/macros.hpp"
#include "protocol/mixer.hpp"
#include "protocol/music.hpp"
#include "protocol/profiles.hpp"
#include "protocol/settings.hpp"
#include "protocol/toast.hpp"
#include "protocol/types.hpp"

namespace mixerd {

// ---- Events (protocol/events.hpp) ---------------------------------------------------------

// A plugin's state, restarts, last error or switch changed (GET /api/plugins shows the same).
struct plugin_status {
  static constexpr std::string_view wire_name = "plugin_status";
  static constexpr bool for_clients = true;
  plugin_info plugin;
  nlohmann::json to_json() const;
};

// What the bridge publishes after every change (GET /api/plugins): every plugin folder found,
// the invalid and incompatible ones too, sorted by id.
struct plugins_view {
  std::vector<plugin_info> plugins;
  // By id: the manifest's settings_schema as GET /api/plugins shows it (plugins::schema_to_json);
  // absent for a plugin whose manifest declares none or could not be read.
  std::map<std::string, nlohmann::json> settings_schemas;
};

// ---- Requests to the bridge --------------------------------------------------------------------

// -> plugin_switch_result. POST /api/plugins/{id}: enabling starts it (on_load, on_enable) and
// clears `failed`; disabling calls on_disable and on_unload and ends its process. Persisted as
// plugins.<id>.enabled.
struct plugin_switch {
  std::string id;
  bool enabled = true;
};
struct plugin_switch_result {
  bool found = false;
  plugin_info plugin;  // as it is after the switch
};

// -> bool, within about plugins::macro_execute_wait. The macro actor asks before it runs a macro:
// true when a running plugin's on_macro_execute(macro) returned True (the plugin handled it and
// the macro is not run); false when none did, none answered in time or none runs.
struct plugin_macro_ask {
  nlohmann::json macro;  // the Macro object as stored
  int depth = 0;  // the asking command's depth (the run's + 1): what the plugin asks meanwhile
};

// -> plugin_macro_outcome. Runs a `plugin` macro (or sequence step) through the handler the
// plugin that registered fields["plugin_type"] gave register_macro_type.
struct plugin_macro_run {
  nlohmann::json macro;
  int depth = 0;  // as in plugin_macro_ask
};
struct plugin_macro_outcome {
  bool ok = false;
  std::string error;  // a sentence for macro_executed when not ok
};

using plugins_actor =
    caf::typed_actor<caf::replies_to<plugin_switch>::with<plugin_switch_result>,
                     caf::replies_to<plugin_macro_ask>::with<bool>,
                     caf::replies_to<plugin_macro_run>::with<plugin_macro_outcome>,
                     caf::reacts_to<event>, caf::reacts_to<settings_reloaded>>;

// The events (hub subscriptions) of the bridge: exactly what the hooks need. Device lines (sliders,
// buttons, encoder, pages, raw serial), connects, the mute state after a press, macro page changes,
// track changes and profile changes.
inline event_kind_set plugins_subscriptions() {
  return kinds_of<device_input, serial_raw, device_status, mute_change, macro_page_change,
                  music_change, profile_change>();
}

namespace plugins {

// The isolation limits (protocol/README.md, "Plugins").
inline constexpr auto hook_timeout = std::chrono::seconds(5);  // unanswered: the process is killed
inline constexpr auto macro_execute_wait = std::chrono::seconds(1);   // then taken as False
inline constexpr auto first_restart_delay = std::chrono::seconds(1);  // doubling after each crash
inline constexpr auto max_restart_delay = std::chrono::seconds(60);
inline constexpr int crashes_until_failed = 5;  // within crash_window
inline constexpr auto crash_window = std::chrono::minutes(10);
inline constexpr int max_calls_per_second = 200;             // more: flooding, killed
inline constexpr std::size_t max_line_bytes = 1024 * 1024;   // a longer line: killed
inline constexpr std::size_t max_queued_hooks = 1000;        // beyond: the oldest dropped
inline constexpr auto stop_grace = std::chrono::seconds(2);  // after on_unload, then SIGKILL
inline constexpr std::size_t max_stderr_line_bytes = 4096;   // longer log lines are cut
inline constexpr std::string_view supported_api_major = "1";

// ---- Manifests (protocol/README.md, "Plugins", "Discovery and start") --------------------------

inline constexpr std::size_t max_manifest_bytes = 64 * 1024;
inline constexpr std::size_t max_id_bytes = 128;
inline constexpr std::size_t max_schema_keys = 64;

// One key of a manifest's settings_schema.
struct setting_spec {
  std::string type;              // string, integer, number or boolean
  nlohmann::json default_value;  // null when the schema gives none
  std::string description;
  std::optional<double> min;  // integer and number only
  std::optional<double> max;
};
using settings_schema = std::map<std::string, setting_spec>;

struct manifest {
  std::string id;
  std::string name;
  std::string version;
  std::string api_version;
  std::string entry_point;  // a file name in the plugin's folder
  std::string main_class;
  std::string description;
  std::string author;
  settings_schema schema;
};

// A manifest as read: `state` is stopped when it may run, else invalid or incompatible with the
// reason in `reason`; `m` holds what could be read (id: the folder's name when it has none).
struct manifest_check {
  manifest m;
  plugin_state state = plugin_state::stopped;
  std::string reason;
};

manifest_check parse_manifest(std::string_view text, std::string_view folder);
manifest_check parse_manifest_json(const nlohmann::json& doc, std::string_view folder);

// Reverse-dotted: at least two `.`-separated parts of letters, digits, `_` and `-`, at most
// max_id_bytes bytes.
bool valid_plugin_id(std::string_view id);
// A Python identifier (ASCII letters, digits and `_`, not starting with a digit).
bool valid_class_name(std::string_view name);
// A plain file name ending in `.py`: no `/`, not `.` or `..`, no leading `.`, no control byte.
bool valid_entry_point(std::string_view name);
// A register_macro_type name, as a `plugin` macro's plugin_type: 1 to 64 letters, digits, `_`,
// `-` or `.`.
bool valid_macro_type(std::string_view name);

// ---- The line codec --------------------------------------------------------------------------

// Nesting of a plugin line's JSON beyond this is a bad line.
inline constexpr int max_line_depth = 64;

struct line_ready {
  std::vector<std::string> hooks;
};
struct line_fatal {
  std::string error;
};
struct line_hook_done {
  std::uint64_t id = 0;
  nlohmann::json result;  // null when the hook gave none or raised
  std::optional<std::string> error;
};
struct line_call {
  std::optional<std::uint64_t> id;  // none: no reply wanted (log)
  std::string method;
  nlohmann::json args;  // an object: arguments by parameter name
};
struct line_bad {
  std::string reason;  // a sentence for the log
};
using plugin_line = std::variant<line_ready, line_fatal, line_hook_done, line_call, line_bad>;

// One line from a plugin (without its '\n'). Never throws; anything unusable is line_bad.
plugin_line decode_plugin_line(std::string_view line);

// Host lines, each without its '\n'.
std::string encode_init(const manifest& m, std::string_view folder);
std::string encode_hook(std::uint64_t id, std::string_view hook, const nlohmann::json& args);
std::string encode_reply(std::uint64_t id, const nlohmann::json& result);
std::string encode_reply_error(std::uint64_t id, std::string_view kind, std::string_view message);

// ---- Plugin settings -------------------------------------------------------------------------

// "" when `value` may be stored under `key`, else the ValueError text. With a schema only its
// keys are allowed, with their type and bounds; without one any JSON value nested at most 16
// levels deep.
std::string check_setting(const settings_schema& schema, std::string_view key,
                          const nlohmann::json& value);
// The first plugin setting in `plugins` (settings.json's key, {id: {"enabled", "settings"}}, or a
// merge patch of it) that its manifest's schema refuses, as "plugins.<id>.settings.<key> must
// be ..."; "" when none. `schemas` are the manifests' schemas by id as plugins_view holds them;
// a plugin without one is not checked here (the bridge checks what it stores).
std::string settings_problem(const nlohmann::json& plugins,
                             const std::map<std::string, nlohmann::json>& schemas);
// The schema's defaults with the stored values (an object; anything else counts as empty) over
// them.
nlohmann::json effective_settings(const settings_schema& schema, const nlohmann::json& stored);
// The schema as GET /api/plugins shows it, so that a settings page can draw a field per key:
// {key: {"type", "default" (null when none), "description", "min"?, "max"?}}.
nlohmann::json schema_to_json(const settings_schema& schema);

// ---- Hooks from events -----------------------------------------------------------------------

struct hook_call {
  std::string hook;
  nlohmann::json args;  // an array: the positional arguments
};

// What the mapping remembers between events: the macro page (for on_macro_button), the mute
// presses awaiting their mute_change, and the last music state (for track changes).
struct hook_mapper {
  int macro_page = 0;
  std::vector<int> pending_mutes;  // 1-4, or protocol::master_index for the master
  std::optional<now_playing> music;
};
inline constexpr std::size_t max_pending_mutes = 16;

// The hooks one hub event fires (protocol/README.md, "Hooks and their sources"), in order.
std::vector<hook_call> hooks_of(const event& e, hook_mapper& mapper);

}  // namespace plugins

// ---- The bridge's own messages (plugins/bridge/) ---------------------------------------------

// A line on a plugin process's standard output (without its '\n').
struct plugin_output {
  std::string id;
  std::uint64_t gen = 0;
  std::string line;
};
// A plugin process is gone (exited, killed, reaped); `reason` says how, for last_error.
struct plugin_ended {
  std::string id;
  std::uint64_t gen = 0;
  std::string reason;
};
// A timer of the bridge: `what` says which, `seq` which hook, ask or attempt it was set for.
struct plugin_timer {
  enum class kind { ready, hook, restart, stop_grace, macro_ask, shutdown };
  kind what = kind::ready;
  std::string id;
  std::uint64_t gen = 0;
  std::uint64_t seq = 0;
};

namespace macros {
struct kind;
}  // namespace macros

// The plugin host's macro kind: plugin (a type a plugin registered).
std::vector<macros::kind> plugins_macro_kinds();

namespace settings_schema {
struct part;
}  // namespace settings_schema

// Its key of settings.json: plugins (each plugin's switch and own settings).
settings_schema::part plugins_settings();

// The plugin host's counter for GET /metrics: plugins started again after a crash, an exit or a
// kill.
std::atomic<std::uint64_t>& plugin_restarts_of_process();

// Its toast handler: a plugin's show_notification; loaded while a plugin runs.
toast_handler_list plugins_toast_handlers();

}  // namespace mixerd

// The plugins capability's CAF type-ID block, chained after the music block (docs/architecture.md,
// "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_switch)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_switch_result)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_macro_ask)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_macro_run)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_macro_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_output)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_ended)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::plugin_timer)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_plugins, caf::id_block::mixerd_music::end)
CAF_ADD_TYPE_ID(mixerd_plugins, (mixerd::plugin_switch))
CAF_ADD_TYPE_ID(mixerd_plugins, (mixerd::plugin_switch_result))
CAF_ADD_TYPE_ID(mixerd_plugins, (mixerd::plugin_macro_ask))
CAF_ADD_TYPE_ID(mixerd_plugins, (mixerd::plugin_macro_run))
CAF_ADD_TYPE_ID(mixerd_plugins, (mixerd::plugin_macro_outcome))
CAF_ADD_TYPE_ID(mixerd_plugins, (mixerd::plugin_output))
CAF_ADD_TYPE_ID(mixerd_plugins, (mixerd::plugin_ended))
CAF_ADD_TYPE_ID(mixerd_plugins, (mixerd::plugin_timer))
CAF_END_TYPE_ID_BLOCK(mixerd_plugins)
