#include "actors/support/scheduler.hpp"

#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>

namespace mixerd {

void configure_scheduler(caf::actor_system_config& cfg) {
  // One worker runs every cooperative actor. With two, nearly every message between the
  // actors woke the other worker (futex + context switch). The actors that block (fsync of
  // settings.json, plants.json and the profile files) run detached and the auth actor checks
  // passwords on a detached helper (PBKDF2), each on its own thread, so they never hold up slider
  // events.
  cfg.set("scheduler.policy", caf::atom("sharing"));
  cfg.set("scheduler.max-threads", 1);
}

}  // namespace mixerd
