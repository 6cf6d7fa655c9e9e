// The mDNS row: advertises the controller through Avahi once the daemon sends it the bound port
// (mdns_listening). Detached: Avahi's calls are D-Bus round trips.
#include <caf/all.hpp>

#include "actors/mdns/mdns_actor.hpp"
#include "actors/network/network_actor.hpp"
#include "protocol/mdns.hpp"

namespace mixerd {

const capability& mdns_capability() {
  static const capability c = [] {
    capability c;
    c.name = "mdns";
    c.spawn = [](spawn_context& ctx) {
      auto mdns = ctx.sys.spawn<caf::detached>(mdns_behavior, ctx.dir.get<settings_actor>(),
                                               ctx.settings, read_host_name());
      return ctx.registered<mdns_actor>(mdns);
    };
    c.stop = stop_phase::consumers;
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_mdns>();
    };
    c.settings = mdns_settings;
    return c;
  }();
  return c;
}

}  // namespace mixerd
