// The plugin-host capability (docs/plugins.md, docs/api.md "Plugins"): Python plugins under
// DATA_DIR/plugins/executable/, one /usr/bin/python3 process each, driven by the plugin bridge
// (plugins/bridge/) over the line protocol of protocol/README.md, "Plugins". This file holds the
// bridge's interface to the rest of the daemon, its limits and its hub topics. Pure: no I/O.
#pragma once

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "protocol/events.hpp"
#include "protocol/settings.hpp"
#include "protocol/types.hpp"

namespace mixerd {

// What the bridge publishes after every change (GET /api/plugins): every plugin folder found,
// the invalid and incompatible ones too, sorted by id.
struct plugins_view {
  std::vector<plugin_info> plugins;
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
};

// -> plugin_macro_outcome. Runs a `plugin` macro (or sequence step) through the handler the
// plugin that registered fields["plugin_type"] gave register_macro_type.
struct plugin_macro_run {
  nlohmann::json macro;
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

// Hub topics of the bridge: exactly what the hooks need. Device lines (sliders, buttons, encoder,
// pages, raw serial), connects, the mute state after a press, macro page changes, track changes
// and profile changes.
inline topic_set plugin_topics() {
  return topics_of<device_input, serial_raw, device_status_change, mute_change, macro_page_change,
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

}  // namespace plugins

}  // namespace mixerd
