// The music capability's command: control the active MPRIS player.
#include "actors/music/music_commands.hpp"

#include "protocol/music.hpp"

namespace mixerd {

namespace {

void control(const command_call_ptr& call) {
  const auto action = call->text("action");
  call->ask(call->dir().get<music_actor>(), media_command{action},
            [action](const command_call_ptr& c, const media_outcome& out) {
              if (!out.ok) return c->fail(503, out.error);
              c->ok({{"success", true}, {"action", action}});
            });
}

}  // namespace

std::vector<command> music_commands() {
  return {
      {"music.control",
       "Controls the active music player (MPRIS)",
       {commands::choice("action", {"play_pause", "play", "pause", "next", "previous", "stop"},
                         "What the player does")},
       commands::permission::control,
       "Music player not available",
       control},
  };
}

}  // namespace mixerd
