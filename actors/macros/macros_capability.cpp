// The macros' row: a producer (it changes the mixer through mute and volume macros, and its
// page set is persisted).
#include <caf/all.hpp>

#include "actors/macros/macro_actor.hpp"
#include "protocol/macro_runs.hpp"

namespace mixerd {

const capability& macros_capability() {
  static const capability c = [] {
    capability c;
    c.name = "macros";
    c.spawn = [](spawn_context& ctx) {
      auto& dir = ctx.dir;
      macro_wiring wiring{dir.get<device_actor>(), dir.get<hub_actor>(), dir.get<settings_actor>(),
                          dir.get<mixer_actor>(), ctx.io};
      auto view = dir.slot(macro_view_of(macros::pages_from_settings(ctx.settings)));
      auto macros = ctx.sys.spawn(macro_behavior, wiring, ctx.settings, view);
      return ctx.registered<macros_actor>(macros);
    };
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_macros>();
      cfg.add_message_types<caf::id_block::mixerd_macro_runs>();
    };
    c.events = [] { return list_of_kinds<macro_executed, macro_page_change, macros_change>(); };
    c.subscriptions = macro_subscriptions;
    c.contribute = [](const directory& dir, nlohmann::json& state) {
      if (auto view = dir.view<macro_view>()) state["macros"] = macros::to_json(view->set);
    };
    // Macros load profiles and call the integrations, which are spawned after it.
    c.link = [](const directory& dir, const caf::actor& self) {
      caf::anon_send(
          caf::actor_cast<macros_impl>(self),
          macro_links{dir.get<profiles_actor>(), dir.get<smarthome_actor>(),
                      dir.get<stream_actor>(), dir.get<music_actor>(), dir.get<plugins_actor>()});
    };
    return c;
  }();
  return c;
}

}  // namespace mixerd
