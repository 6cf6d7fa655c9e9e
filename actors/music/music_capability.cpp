// The music row: MPRIS players on the session D-Bus, whose connection runs on the io thread. A
// bus that is absent or slow never holds up start-up (the actor reports connected false and
// tries again).
#include <caf/all.hpp>

#include "actors/music/music_actor.hpp"
#include "actors/music/music_commands.hpp"
#include "protocol/music.hpp"

namespace mixerd {

const capability& music_capability() {
  static const capability c = [] {
    capability c;
    c.name = "music";
    c.spawn = [](spawn_context& ctx) {
      music_wiring wiring{ctx.io, ctx.dir.get<hub_actor>(), ctx.dir.get<toast_actor>(),
                          music_bus_from_environment(), true};
      auto view = ctx.dir.slot(music_view{});
      auto music = ctx.sys.spawn(music_behavior, std::move(wiring), view);
      return ctx.registered<music_actor>(music);
    };
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_music>();
    };
    c.events = [] { return list_of_kinds<music_change>(); };
    c.contribute = [](const directory& dir, nlohmann::json& state) {
      if (auto view = dir.view<music_view>()) state["music"] = music::to_json(*view);
    };
    c.after_ready = send_ready<music_actor>;
    c.commands = music_commands;
    c.macro_kinds = music_macro_kinds;
    c.toast_handlers = music_toast_handlers;
    return c;
  }();
  return c;
}

}  // namespace mixerd
