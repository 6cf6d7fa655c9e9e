// Spawns the domain actors and wires them together (design.md "Shape").
#pragma once

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "actors/settings/settings_file.hpp"

namespace boost::asio {
class io_context;
}

namespace mixerd {

// CAF settings for a quiet daemon on a small machine: work-sharing scheduler (idle workers
// sleep), two workers, mixerd's type-ID block.
void configure_actor_system(caf::actor_system_config& cfg);

struct actor_handles {
  caf::actor hub;
  caf::actor settings;
  caf::actor device;
  caf::actor mixer;
  caf::actor audio;
  caf::actor auth;
  caf::actor toast;
  caf::actor network;
  caf::actor plants;  // the plant store (owns DATA_DIR/plants.json)
};

struct actor_options {
  boost::asio::io_context* io = nullptr;
  std::string serial;  // "auto", "none" or a path
  settings_file::paths paths;
  nlohmann::json settings;  // as loaded and validated at start-up
};

actor_handles spawn_actors(caf::actor_system& sys, const actor_options& options);

// Stops the actors that produce changes (and `extra`, e.g. gateways), then saves pending
// settings, then stops the rest; blocks until all have terminated.
void shutdown_actors(caf::actor_system& sys, const actor_handles& actors, const caf::actor& extra);

}  // namespace mixerd
