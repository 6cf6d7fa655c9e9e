// Shared by the bridge actor's files (bridge_actor.cpp: lifecycle and hooks; bridge_calls.cpp:
// the plugins' method calls). Not part of its interface.
#pragma once

#include <string>

#include "plugins/bridge/bridge_actor.hpp"

namespace mixerd::bridge {

using self_ptr = plugins_impl::stateful_pointer<plugins_bridge_state>;

// Answers a plugin's method call (protocol/README.md, "Methods").
void handle_call(self_ptr self, plugin_entry& p, plugins::line_call& call);

// Kills the plugin's process; `reason` becomes its last_error once the process is gone.
void kill_plugin(plugin_entry& p, const std::string& reason);

// Writes the settings key `plugins` back whole (the settings actor saves it soon).
void persist(self_ptr self);

// "plugin <id>", the log component of everything about one plugin.
std::string component_of(const plugin_entry& p);

}  // namespace mixerd::bridge
