// Shared by the bridge actor's files (bridge_actor.cpp: lifecycle and hooks; bridge_calls.cpp:
// the plugins' method calls; bridge_switches.cpp: switches and settings reloads;
// bridge_discovery.cpp: the plugin folders). Not part of its interface.
#pragma once

#include <string>

#include "plugins/bridge/bridge_actor.hpp"

namespace mixerd::bridge {

using self_ptr = plugins_impl::stateful_pointer<plugins_state>;

// Lists every plugin folder (sorted) into the state's plugins: manifest checked, switch from the
// stored settings. Starts none.
void discover(self_ptr self);

// Answers a plugin's method call (protocol/README.md, "Methods").
void handle_call(self_ptr self, plugin_entry& p, plugins::line_call& call);

// Kills the plugin's process; `reason` becomes its last_error once the process is gone.
void kill_plugin(plugin_entry& p, const std::string& reason);

// Writes the settings key `plugins` back whole (the settings actor saves it soon).
void persist(self_ptr self);

// Loading or running: it gets hooks.
bool is_loaded(const plugin_entry& p);
// Neither invalid nor incompatible.
bool is_runnable(const plugin_entry& p);
// The view, the plugin_status events of what changed and the plugins handler's loaded flag.
void publish(self_ptr self);
// Queues a hook for the plugin (the oldest ordinary one dropped when full) and sends the next.
void enqueue(self_ptr self, plugin_entry& p, hook_item item);
// Starts the plugin's process (init, then on_load and on_enable once it is ready).
void start(self_ptr self, plugin_entry& p);
// Starts every enabled, runnable plugin that has no process yet (at start-up).
void start_enabled(self_ptr self);
// Ends the process gently: on_disable (when disabling), on_unload, input closed, then the kill.
void begin_stop(self_ptr self, plugin_entry& p, bool disabling);

// POST /api/plugins/{id} (save: persisted) and a switch changed in the file.
plugin_switch_result switch_plugin(self_ptr self, const std::string& id, bool enabled, bool save);
// After SIGHUP: the switches and own settings as the file has them now.
void on_reload(self_ptr self, const nlohmann::json& settings);

// "plugin <id>", the log component of everything about one plugin.
std::string component_of(const plugin_entry& p);

}  // namespace mixerd::bridge
