// The streaming software's commands: switch the program scene, show, hide or toggle a source of
// it. The stream actor asks OBS and builds each answer's body; its outcome maps to the status
// here (not connected: 400, as the interface's error table has it).
#include "actors/stream/stream_commands.hpp"

#include "protocol/stream.hpp"

namespace mixerd {

namespace {

using result = stream_outcome::result;

constexpr std::string_view streaming_missing = "Streaming software not available";

int status_of(result what) {
  switch (what) {
    case result::ok:
      return 200;
    case result::not_connected:
      return 400;
    case result::not_found:
      return 404;
    case result::busy:
      return 503;
    case result::failed:
      break;
  }
  return 502;
}

template <class Request>
void ask_stream(const command_call_ptr& call, Request req) {
  call->ask(call->dir().get<stream_actor>(), std::move(req),
            [](const command_call_ptr& c, const stream_outcome& out) {
              if (out.what == result::ok) return c->ok(out.body);
              c->fail(status_of(out.what), out.error);
            });
}

void scene(const command_call_ptr& call) {
  ask_stream(call, stream_scene_set{call->text("scene_name")});
}

void source(const command_call_ptr& call) {
  ask_stream(call, stream_source_set{call->text("source_name"), call->flag("visible")});
}

// OBS is asked whether it is shown, then told the opposite.
void toggle_source(const command_call_ptr& call) {
  ask_stream(call, stream_source_set{call->text("source_name"), std::nullopt});
}

}  // namespace

std::vector<command> stream_commands() {
  const auto source_name =
      commands::text("source_name", stream::max_name_bytes, "A source of the program scene");
  return {
      {"stream.scene",
       "Switches the program scene",
       {commands::text("scene_name", stream::max_name_bytes, "The scene")},
       commands::permission::control,
       streaming_missing,
       scene},
      {"stream.source",
       "Shows or hides a source of the program scene",
       {source_name, commands::flag("visible", "Shown (true) or hidden")},
       commands::permission::control,
       streaming_missing,
       source},
      {"stream.source_toggle",
       "Shows a source of the program scene if hidden, hides it if shown",
       {source_name},
       commands::permission::control,
       streaming_missing,
       toggle_source},
  };
}

}  // namespace mixerd
