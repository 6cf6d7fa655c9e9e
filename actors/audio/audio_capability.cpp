// The audio row: the libpulse client, which applies the mixer's levels to the audio server.
#include <caf/all.hpp>

#include "actors/audio/audio_actor.hpp"
#include "actors/mixer/mixer_actor.hpp"

namespace mixerd {

const capability& audio_capability() {
  static const capability c = [] {
    capability c;
    c.name = "audio";
    c.spawn = [](spawn_context& ctx) {
      auto audio =
          ctx.sys.spawn(audio_behavior, ctx.dir.get<hub_actor>(), ctx.dir.get<settings_actor>(),
                        mixer_from_settings(ctx.settings), audio_policy_from_settings(ctx.settings),
                        ctx.dir.slot(audio_view{}));
      return ctx.registered<audio_actor>(audio);
    };
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_audio>();
    };
    c.events = [] { return list_of_kinds<audio_status>(); };
    c.settings = audio_settings;
    return c;
  }();
  return c;
}

}  // namespace mixerd
