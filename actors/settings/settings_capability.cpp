// The settings actor's row: detached (it fsyncs settings.json), stopped after a final flush.
#include <caf/all.hpp>

#include "actors/settings/settings_actor.hpp"

namespace mixerd {

const capability& settings_capability() {
  static const capability c = [] {
    capability c;
    c.name = "settings";
    c.spawn = [](spawn_context& ctx) {
      auto settings = ctx.sys.spawn<caf::detached>(settings_behavior, ctx.paths, ctx.settings);
      return ctx.registered<settings_actor>(settings);
    };
    c.stop = stop_phase::infrastructure;
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_settings>();
    };
    return c;
  }();
  return c;
}

}  // namespace mixerd
