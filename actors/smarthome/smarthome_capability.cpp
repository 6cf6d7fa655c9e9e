// The smart-home row: Home Assistant, its connection on the io thread; a toggle's result is a
// toast.
#include <caf/all.hpp>

#include "actors/smarthome/smarthome_actor.hpp"
#include "actors/smarthome/smarthome_commands.hpp"
#include "protocol/smarthome.hpp"

namespace mixerd {

const capability& smarthome_capability() {
  static const capability c = [] {
    capability c;
    c.name = "smarthome";
    c.spawn = [](spawn_context& ctx) {
      auto& dir = ctx.dir;
      smarthome_wiring wiring{ctx.io, dir.get<hub_actor>(), dir.get<settings_actor>(),
                              dir.get<toast_actor>()};
      auto view = dir.slot(smarthome_view{});
      auto smarthome = ctx.sys.spawn(smarthome_behavior, std::move(wiring), ctx.settings, view);
      return ctx.registered<smarthome_actor>(smarthome);
    };
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_smarthome>();
    };
    c.events = [] { return list_of_kinds<smarthome_change, smarthome_status>(); };
    c.contribute = [](const directory& dir, nlohmann::json& state) {
      auto view = dir.view<smarthome_view>();
      state["smarthome"] = smarthome::to_json(view ? *view : smarthome_view{});
    };
    c.commands = smarthome_commands;
    c.macro_kinds = smarthome_macro_kinds;
    c.settings = smarthome_settings;
    c.toast_handlers = smarthome_toast_handlers;
    return c;
  }();
  return c;
}

}  // namespace mixerd
