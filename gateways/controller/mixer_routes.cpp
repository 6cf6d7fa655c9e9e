// Routes of the mixer: sliders, assignments, mutes, master volume. Reads answer from the mixer's
// published view; writes ask the mixer actor.
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/validation.hpp"

namespace mixerd::controller {

namespace {

constexpr std::size_t max_label_bytes = 64;
constexpr std::size_t max_app_names = 32;
constexpr std::size_t max_app_name_bytes = 256;

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

void post_slider(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  std::string error;
  auto value = validation::int_field(*body, "value", limits::volume_min, limits::volume_max, error);
  if (!value) return x.respond(x.error(400, error));
  const int index = x.integer(0);
  x.ask(
      x.dir.get<mixer_actor>(),
      [index, respond = x.respond](int now) {
        respond(http::json_response(200, {{"success", true}, {"index", index}, {"value", now}}));
      },
      set_slider_value{index - 1, *value});
}

void get_assignment(http::exchange& x) {
  const int i = x.integer(0) - 1;
  read_mixer(x, [i](const mixer_view& v) { return json::to_json(v.mix.sliders[i].assigned); });
}

void post_assignment(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  std::string error;
  auto parsed = json::assignment_from_json(*body, error);
  if (!parsed) return x.respond(x.error(400, error));
  // settings.json may hold an app assignment without names (it matches nothing); a new one
  // must name at least one application.
  if (parsed->type == assignment_type::app && parsed->names.empty())
    return x.respond(x.error(400, "names must list at least one application name"));
  if (parsed->names.size() > max_app_names)
    return x.respond(x.error(400, "names must hold at most 32 application names"));
  for (const auto& name : parsed->names)
    if (name.size() > max_app_name_bytes)
      return x.respond(x.error(400, "names must be at most 256 bytes each"));
  set_slider_assignment req{x.integer(0) - 1, std::move(*parsed), std::nullopt, std::nullopt};
  if (body->contains("label")) {
    auto label = validation::string_field(*body, "label", max_label_bytes, error);
    if (!label || !validation::device_text(*label, "label", error))
      return x.respond(x.error(400, error));
    req.label = std::move(*label);
  }
  if (body->contains("enforce_volume")) {
    auto enforce = validation::bool_field(*body, "enforce_volume", true, error);
    if (!enforce) return x.respond(x.error(400, error));
    req.enforce_volume = *enforce;
  }
  x.ask(
      x.dir.get<mixer_actor>(),
      [respond = x.respond](const assignment& now) {
        respond(http::json_response(200, {{"success", true}, {"assignment", json::to_json(now)}}));
      },
      std::move(req));
}

void get_mutes(http::exchange& x) {
  read_mixer(x, [](const mixer_view& v) { return json::mutes_to_json(v.mix.mutes); });
}

void post_mute(http::exchange& x) {
  const int index = x.integer(0);
  x.ask(
      x.dir.get<mixer_actor>(),
      [index, respond = x.respond](bool muted) {
        respond(http::json_response(200, {{"success", true},
                                          {"index", index},
                                          {"muted", muted},
                                          {"message", "Mute toggle requested"}}));
      },
      toggle_mute{index - 1});
}

void post_master_mute(http::exchange& x) {
  x.ask(
      x.dir.get<mixer_actor>(),
      [respond = x.respond](bool muted) {
        respond(http::json_response(
            200,
            {{"success", true}, {"muted", muted}, {"message", "Master mute toggle requested"}}));
      },
      toggle_mute{protocol::master_index});
}

void get_master_volume(http::exchange& x) {
  read_mixer(x, [](const mixer_view& v) { return json::volume_to_json(v.mix.master_volume); });
}

void post_master_volume(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  std::string error;
  auto value = validation::int_field(*body, "value", limits::volume_min, limits::volume_max, error);
  if (!value) return x.respond(x.error(400, error));
  x.ask(
      x.dir.get<mixer_actor>(),
      [respond = x.respond](int now) {
        respond(http::json_response(200, {{"success", true}, {"volume", now}}));
      },
      set_master_volume{*value});
}

// "/api/mutes/master" comes before "/api/mutes/{index}": the first match wins.
const http::route_registration routes{
    http::listener_kind::controller,
    {
        {"GET", "/api/sliders", true, get_sliders},
        {"POST", "/api/sliders/{index:1-4}", true, post_slider},
        {"GET", "/api/sliders/{index:1-4}/assignment", true, get_assignment},
        {"POST", "/api/sliders/{index:1-4}/assignment", true, post_assignment},
        {"GET", "/api/mutes", true, get_mutes},
        {"POST", "/api/mutes/master", true, post_master_mute},
        {"POST", "/api/mutes/{index:1-4}", true, post_mute},
        {"GET", "/api/volume/master", true, get_master_volume},
        {"POST", "/api/volume/master", true, post_master_volume},
    }};

}  // namespace

}  // namespace mixerd::controller
