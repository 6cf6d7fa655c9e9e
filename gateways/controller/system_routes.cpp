// Routes of the system capability (docs/api.md, "System"): the machine's uptime, load and
// temperature, answered from the system actor's published view.
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/system.hpp"

namespace mixerd::controller {

namespace {

void get_system(http::exchange& x) {
  auto latest = x.dir.view<system_view>();
  if (!latest) return x.respond(x.error(503, "The system capability is not running"));
  reply(x, system::to_json(*latest));
}

const http::route_registration routes{http::listener_kind::controller,
                                      {
                                          {"GET", "/api/system", true, get_system},
                                      }};

}  // namespace

}  // namespace mixerd::controller
