// The command table itself (docs/api.md, "Commands"): every command with its parameters, and
// any of them run by name with the same checks, permissions, answer and events as its dedicated
// route. What another front end (OSC, the settings page) lists and calls without per-command code.
#include "gateways/controller/controller_listener.hpp"

namespace mixerd::controller {

namespace {

void get_commands(http::exchange& x) {
  reply(x, x.commands.table().to_json());
}

// The body is the command's arguments (an empty body: none).
void post_command(http::exchange& x) {
  auto body = body_object(x, true);
  if (!body) return;
  x.run(x.segment(0), *body);
}

const http::route_registration routes{http::listener_kind::controller,
                                      {
                                          {"GET", "/api/commands", true, get_commands},
                                          {"POST", "/api/commands/{name}", true, post_command},
                                      }};

}  // namespace

}  // namespace mixerd::controller
