// The plugin bridge: the plugin-host capability (protocol/README.md, "Plugins"). It finds the
// plugins under DATA_DIR/plugins/executable/, runs one /usr/bin/python3 process per enabled
// plugin (plugin_process.hpp) and speaks the line protocol with it: hooks from the hub's events,
// one at a time per plugin with a timer; the plugins' method calls answered from the
// capabilities' views and actors; restarts with back-off, `failed` after repeated crashes, flood
// limits. It never waits on a plugin. Interface: protocol/plugins.hpp.
#pragma once

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "actors/support/capability.hpp"
#include "plugins/bridge/plugin_process.hpp"
#include "protocol/device.hpp"
#include "protocol/hub.hpp"
#include "protocol/macros.hpp"
#include "protocol/mixer.hpp"
#include "protocol/music.hpp"
#include "protocol/plugins.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"
#include "protocol/toast.hpp"

namespace mixerd {

struct plugins_wiring {
  std::string folder;   // DATA_DIR/plugins/executable
  std::string sdk_dir;  // the folder holding the SDK package `mixerd` (PYTHONPATH)
  std::string python = "/usr/bin/python3";
  hub_actor hub;
  settings_actor settings;
  // The methods that act on other capabilities run their commands through it (null in tests
  // that call none of them).
  const command_runner* commands = nullptr;
  // The views method calls read (null: that capability does not run).
  std::shared_ptr<const published<device_view>> device_source;
  std::shared_ptr<const published<mixer_view>> mixer;
  std::shared_ptr<const published<macros_view>> macro_set;
  std::shared_ptr<const published<music_view>> music;
  // Starts the enabled plugins' processes only on ready_atom (the daemon: once its listeners
  // answer; until then they are listed as starting); false in tests, which start them at once.
  bool wait_for_ready = false;
};

namespace bridge {

using clock = std::chrono::steady_clock;

// One entry of a plugin's hook queue.
struct hook_item {
  enum class kind { hook, became_running, close_input } what = kind::hook;
  std::string hook;
  nlohmann::json args;
  std::uint64_t ask = 0;  // on_macro_execute: the plugin_macro_ask it answers
  std::uint64_t run = 0;  // macro_type: the plugin_macro_run it answers
};

struct plugin_entry {
  enum class phase { down, waiting_ready, loading, running, stopping };
  plugins::manifest m;
  std::string folder;  // absolute
  plugin_info info;
  std::shared_ptr<plugin_process> proc;
  std::uint64_t gen = 0;  // of `proc`, and of the restart timer while none runs
  phase ph = phase::down;
  std::set<std::string> hooks;  // those its class overrides (from `ready`)
  std::deque<hook_item> queue;
  std::optional<hook_item> current;  // sent, awaiting hook_done
  std::uint64_t current_id = 0;
  std::uint64_t next_hook_id = 0;
  std::uint64_t dropped = 0;              // hooks dropped from a full queue since the last log line
  std::deque<clock::time_point> crashes;  // within plugins::crash_window
  clock::time_point calls_window{};
  int calls_in_window = 0;
  int bad_lines = 0;              // of this process; only the first few are logged
  std::string pending_error;      // why its process is going (kill, fatal): last_error once gone
  bool stop_requested = false;    // disabled (or daemon stop): its end is not a crash
  bool start_after_stop = false;  // enabled again while it was still stopping
  // Woken by a macro run (on_macro_execute, a macro type's handler): until `woken_until` its
  // calls count as asked by that run, at `woken_depth` (the run's depth + 1).
  int woken_depth = 0;
  clock::time_point woken_until{};
};

struct macro_ask {
  caf::typed_response_promise<bool> promise;
  int waiting = 0;  // plugins yet to answer
};

}  // namespace bridge

struct plugins_state {
  // First member: destroyed last, after the processes below have let go of its io_context.
  std::unique_ptr<plugin_io> io;
  plugins_wiring wiring;
  std::shared_ptr<published<plugins_view>> view;
  std::map<std::string, bridge::plugin_entry> plugins;  // by id
  std::map<std::string, plugin_info> published_infos;   // as last sent in plugin_status
  nlohmann::json stored = nlohmann::json::object();     // the settings key `plugins`
  plugins::hook_mapper mapper;
  std::map<std::string, std::string> macro_types;  // register_macro_type: type -> plugin id
  std::map<std::uint64_t, bridge::macro_ask> asks;
  std::uint64_t next_ask = 0;
  std::map<std::uint64_t, caf::typed_response_promise<plugin_macro_outcome>> runs;
  std::uint64_t next_run = 0;
  bool loaded = false;    // as last told to the toast actor
  bool stopping = false;  // the daemon stops: quit once every process is gone
  caf::error exit_reason;
  static inline const char* name = "plugins";
};

using plugins_impl =
    plugins_actor::extend<caf::reacts_to<ready_atom>, caf::reacts_to<plugin_output>,
                          caf::reacts_to<plugin_ended>, caf::reacts_to<plugin_timer>>;

plugins_impl::behavior_type plugins_behavior(plugins_impl::stateful_pointer<plugins_state> self,
                                             plugins_wiring wiring, const nlohmann::json& settings,
                                             std::shared_ptr<published<plugins_view>> view);

// The folder holding the SDK: <dir of the running binary>/../share/mixerd/python when it has
// mixerd/runner.py, else the source tree's plugins/python.
std::string plugin_sdk_dir();

// Its row of the capability table (plugins/bridge/plugins_capability.cpp).
const capability& plugins_capability();

}  // namespace mixerd
