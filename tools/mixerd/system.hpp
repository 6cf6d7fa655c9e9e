// Spawns, wires and stops the capabilities of a capability table (capability_table.cpp): adding
// a capability is one row there (docs/architecture.md, "Adding a capability").
#pragma once

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "actors/support/capability.hpp"
#include "actors/support/directory.hpp"
#include "actors/support/settings_file.hpp"

namespace boost::asio {
class io_context;
}

namespace mixerd {

using capability_list = std::vector<const capability*>;

// The daemon's CAF settings: the scheduler of actors/support/scheduler.hpp and the type-ID block
// of every capability of `rows`.
void configure_actor_system(caf::actor_system_config& cfg, const capability_list& rows);

// Every command the rows declare.
std::vector<command> commands_of(const capability_list& rows);

// Installs what the rows declare for the whole process, before any settings are read: their
// parts of the settings schema (protocol/settings_schema.hpp) and their macro kinds
// (protocol/macro_kinds.hpp), so that settings.json is read with every key and every kind of
// macro of this build.
void install_declarations(const capability_list& rows);

struct actor_options {
  boost::asio::io_context* io = nullptr;
  std::string serial;  // "auto", "none" or a path
  settings_file::paths paths;
  nlohmann::json settings;  // as loaded and validated at start-up
  http_client* http = nullptr;
};

// The running capabilities: their handles and views, their commands (for every front end) and
// what shutdown needs. Not copied or moved: the runner refers to the table and the directory.
struct running_system {
  running_system() = default;
  running_system(const running_system&) = delete;
  running_system& operator=(const running_system&) = delete;

  directory dir;
  command_table commands;
  command_runner runner{commands, dir};
  std::vector<std::string> macro_interceptors;
  toast_handler_list toast_handlers;
  // Per shutdown phase, the actors to stop in it.
  std::vector<std::vector<caf::actor>> phases;
};

// Gathers every row's commands, then spawns every row in order: each registers its handle and
// views, declares its events and is subscribed to the events it receives. A row's actor finds
// the rows below it through the commands it runs (they look owners up when they run).
void spawn_actors(caf::actor_system& sys, const capability_list& rows, const actor_options& options,
                  running_system& out);

// Watches every capability's actor: when one ends (CAF 0.17 ends an actor whose handler threw),
// `ended` is called with the reason, on the watcher's thread. Stop the watcher (send_exit)
// before shutdown_actors, whose ends are no news.
caf::actor watch_capabilities(caf::actor_system& sys, const running_system& running,
                              std::function<void(std::string reason)> ended);

// Stops `extra` (the gateways' own actors) with the first phase, then phase by phase; before the
// last phase (settings, hub), pending settings are saved. Blocks until all have terminated.
// Once every listener answers: each row's after_ready (the connections to outside services and
// the plugin processes start then, so that none of them delays the first answer).
void start_after_ready(const capability_list& rows, const running_system& running);

void shutdown_actors(caf::actor_system& sys, const running_system& running,
                     const std::vector<caf::actor>& extra);

}  // namespace mixerd
