// The macros' row: a producer (it changes the mixer through mute and volume macros, and its
// page set is persisted).
#include <caf/all.hpp>

#include "actors/macros/macros_actor.hpp"
#include "actors/macros/macros_commands.hpp"
#include "protocol/macros.hpp"

namespace mixerd {

const capability& macros_capability() {
  static const capability c = [] {
    capability c;
    c.name = "macros";
    c.spawn = [](spawn_context& ctx) {
      auto& dir = ctx.dir;
      macros_wiring wiring{dir.get<device_actor>(),
                           dir.get<hub_actor>(),
                           dir.get<settings_actor>(),
                           ctx.io,
                           &ctx.commands,
                           ctx.macro_interceptors,
                           ctx.http,
                           dir.source<http_targets::own_listeners>()};
      auto view = dir.slot(macros_view_of(macros::pages_from_settings(ctx.settings)));
      auto macros = ctx.sys.spawn(macros_behavior, wiring, ctx.settings, view);
      return ctx.registered<macros_actor>(macros);
    };
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_macros>();
    };
    c.events = [] {
      return list_of_kinds<macro_executed, macro_page_change, macros_change, macro_change,
                           macro_page_name_change>();
    };
    c.subscriptions = macros_subscriptions;
    c.contribute = [](const directory& dir, nlohmann::json& state) {
      if (auto view = dir.view<macros_view>()) state["macros"] = macros::to_json(view->set);
    };
    c.commands = macros_commands;
    c.settings = macros_settings;
    return c;
  }();
  return c;
}

}  // namespace mixerd
