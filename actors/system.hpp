// Spawns, wires and stops the capabilities from one table (actors/system.cpp): adding a
// capability is one row there (design: docs/architecture.md "Adding a capability").
#pragma once

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "actors/directory.hpp"
#include "actors/settings/settings_file.hpp"

namespace boost::asio {
class io_context;
}

namespace mixerd {

// CAF settings for a quiet daemon on a small machine: work-sharing scheduler (idle workers
// sleep), one worker, mixerd's type-ID block.
void configure_actor_system(caf::actor_system_config& cfg);

struct actor_options {
  boost::asio::io_context* io = nullptr;
  std::string serial;  // "auto", "none" or a path
  settings_file::paths paths;
  nlohmann::json settings;  // as loaded and validated at start-up
};

// The running capabilities: their handles and views (for gateways) and what shutdown needs.
struct running_system {
  directory dir;
  // Per shutdown phase, the actors to stop in it (see system.cpp).
  std::vector<std::vector<caf::actor>> phases;
};

// Spawns every row of the table in order, declares its events, subscribes it to the events it
// receives and registers its initial_state contribution.
void spawn_actors(caf::actor_system& sys, const actor_options& options, running_system& out);

// Stops `extra` (the gateways' own actors) with the first phase, then phase by phase; before the
// last phase (settings, hub), pending settings are saved. Blocks until all have terminated.
void shutdown_actors(caf::actor_system& sys, const running_system& running,
                     const std::vector<caf::actor>& extra);

}  // namespace mixerd
