// Routes of the mixer: sliders, assignments, mutes, master volume. Reads answer from the mixer's
// published view; writes run the mixer's commands (actors/mixer/mixer_commands.cpp).
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/validation.hpp"

namespace mixerd::controller {

namespace {

// Answers with `view` of the mixer's latest published state.
template <class View>
void read_mixer(http::exchange& x, View view) {
  auto latest = x.dir.view<mixer_view>();
  if (!latest) return x.respond(x.error(503, "The mixer is not running"));
  reply(x, view(*latest));
}

void get_sliders(http::exchange& x) {
  auto latest = x.dir.view<mixer_view>();
  if (!latest) return x.respond(x.error(503, "The mixer is not running"));
  http::response res;
  res.body =
      latest->sliders_body.get([&] { return http::json_text(json::sliders_to_json(latest->mix)); });
  x.respond(std::move(res));
}

void get_assignment(http::exchange& x) {
  const int i = x.integer(0) - 1;
  read_mixer(x, [i](const mixer_view& v) { return json::to_json(v.mix.sliders[i].assigned); });
}

void get_mutes(http::exchange& x) {
  read_mixer(x, [](const mixer_view& v) { return json::mutes_to_json(v.mix.mutes); });
}

void get_master_volume(http::exchange& x) {
  read_mixer(x, [](const mixer_view& v) { return json::volume_to_json(v.mix.master_volume); });
}

// "/api/mutes/master" comes before "/api/mutes/{index}": the first match wins.
const http::route_registration routes{
    http::listener_kind::controller,
    {
        {"GET", "/api/sliders", true, get_sliders},
        http::command_route("POST", "/api/sliders/{index:1-4}", "slider.set"),
        {"GET", "/api/sliders/{index:1-4}/assignment", true, get_assignment},
        http::command_route("POST", "/api/sliders/{index:1-4}/assignment", "slider.assign"),
        {"GET", "/api/mutes", true, get_mutes},
        http::command_route("POST", "/api/mutes/master", "master.mute_toggle",
                            http::body_use::none),
        http::command_route("POST", "/api/mutes/{index:1-4}", "mute.toggle", http::body_use::none),
        {"GET", "/api/volume/master", true, get_master_volume},
        http::command_route("POST", "/api/volume/master", "master.set"),
    }};

}  // namespace

}  // namespace mixerd::controller
