// The plant store's row: detached (it fsyncs plants.json).
#include <caf/all.hpp>

#include "actors/plants/plants_actor.hpp"
#include "actors/plants/plants_commands.hpp"
#include "protocol/plants.hpp"

namespace mixerd {

const capability& plants_capability() {
  static const capability c = [] {
    capability c;
    c.name = "plants";
    c.spawn = [](spawn_context& ctx) {
      auto plants =
          ctx.sys.spawn<caf::detached>(plants_behavior, ctx.paths.data_dir + "/plants.json",
                                       ctx.dir.get<settings_actor>(), ctx.settings);
      return ctx.registered<plants_actor>(plants);
    };
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_plants>();
    };
    c.commands = plants_commands;
    c.settings = plants_settings;
    return c;
  }();
  return c;
}

}  // namespace mixerd
