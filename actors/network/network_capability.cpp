// The network row: the machine's names and addresses (the Host check of every listener).
#include <caf/all.hpp>

#include "actors/network/network_actor.hpp"
#include "protocol/host_names.hpp"
#include "protocol/network.hpp"

namespace mixerd {

const capability& network_capability() {
  static const capability c = [] {
    capability c;
    c.name = "network";
    c.spawn = [](spawn_context& ctx) {
      network_config config;
      config.io = ctx.io;
      config.host_name = read_host_name();
      config.allowed_hosts = host_names::allowed_from_settings(ctx.settings);
      config.settings = ctx.dir.get<settings_actor>();
      // Filled from the start: the listeners open before the actor first runs.
      config.names =
          ctx.dir.slot(host_names::make_machine_names(config.host_name, "", config.allowed_hosts));
      auto network = ctx.sys.spawn(network_behavior, std::move(config));
      return ctx.registered<network_actor>(network);
    };
    c.stop = stop_phase::consumers;
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_network>();
    };
    c.settings = network_settings;
    return c;
  }();
  return c;
}

}  // namespace mixerd
