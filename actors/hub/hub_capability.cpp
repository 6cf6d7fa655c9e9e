// The hub's row: spawned first (every other row subscribes to it), stopped last.
#include <caf/all.hpp>

#include "actors/hub/hub_actor.hpp"
#include "protocol/limits.hpp"

namespace mixerd {

const capability& hub_capability() {
  static const capability c = [] {
    capability c;
    c.name = "hub";
    c.spawn = [](spawn_context& ctx) {
      auto hub = ctx.sys.spawn(hub_behavior, limits::hub_max_subscribers);
      return ctx.registered<hub_actor>(hub);
    };
    c.stop = stop_phase::infrastructure;
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_core>();
    };
    return c;
  }();
  return c;
}

}  // namespace mixerd
