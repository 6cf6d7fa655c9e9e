// The auth row: login, sessions and the session table the gateways read.
#include <caf/all.hpp>

#include "actors/auth/auth_actor.hpp"
#include "protocol/auth.hpp"

namespace mixerd {

const capability& auth_capability() {
  static const capability c = [] {
    capability c;
    c.name = "auth";
    c.spawn = [](spawn_context& ctx) {
      auto view = ctx.dir.slot(auth_view_of(auth_config_from_settings(ctx.settings)));
      auto auth = ctx.sys.spawn(auth_behavior, ctx.dir.get<settings_actor>(), ctx.settings, view);
      return ctx.registered<auth_actor>(auth);
    };
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_auth>();
    };
    c.settings = auth_settings;
    return c;
  }();
  return c;
}

}  // namespace mixerd
