// The mixer's row: sliders, mutes and the master volume; it reacts to device input.
#include <caf/all.hpp>

#include "actors/mixer/mixer_actor.hpp"
#include "actors/mixer/mixer_commands.hpp"
#include "protocol/json.hpp"
#include "protocol/mixer.hpp"

namespace mixerd {

const capability& mixer_capability() {
  static const capability c = [] {
    capability c;
    c.name = "mixer";
    c.spawn = [](spawn_context& ctx) {
      auto& dir = ctx.dir;
      mixer_wiring wiring{dir.get<device_actor>(), dir.get<hub_actor>(), dir.get<settings_actor>(),
                          dir.get<audio_actor>()};
      auto view = dir.slot(mixer_view_of(mixer_from_settings(ctx.settings)));
      auto mixer = ctx.sys.spawn(mixer_behavior, wiring, ctx.settings, view);
      return ctx.registered<mixer_actor>(mixer);
    };
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_mixer>();
    };
    c.events = [] {
      return list_of_kinds<slider_change, assignment_change, mute_change, volume_change>();
    };
    c.subscriptions = mixer_subscriptions;
    c.commands = mixer_commands;
    c.contribute = [](const directory& dir, nlohmann::json& state) {
      auto view = dir.view<mixer_view>();
      if (!view) return;
      state["sliders"] = json::sliders_to_json(view->mix)["sliders"];
      state["mutes"] = json::mutes_to_json(view->mix.mutes);
      state["volume"] = view->mix.master_volume;
    };
    c.macro_kinds = mixer_macro_kinds;
    c.settings = mixer_settings;
    return c;
  }();
  return c;
}

}  // namespace mixerd
