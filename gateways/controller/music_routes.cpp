// Routes of the music capability (docs/api.md, "Music"): the state of the active MPRIS player,
// answered from the music actor's published view.
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/music.hpp"

namespace mixerd::controller {

namespace {

void get_music(http::exchange& x) {
  auto latest = x.dir.view<music_view>();
  if (!latest) return x.respond(x.error(503, "The music capability is not running"));
  reply(x, music::to_json(*latest));
}

const http::route_registration routes{http::listener_kind::controller,
                                      {
                                          {"GET", "/api/music", true, get_music},
                                      }};

}  // namespace

}  // namespace mixerd::controller
