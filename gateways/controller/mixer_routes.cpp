// Routes of the mixer: sliders, assignments, audio sessions, mutes, master volume, status.
#include <caf/all.hpp>

#include "gateways/controller/routes.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/messages.hpp"
#include "protocol/validation.hpp"

namespace mixerd::controller {

namespace {

using http::controller_error;
using http::json_response;

constexpr std::size_t max_label_bytes = 64;
constexpr std::size_t max_app_names = 32;
constexpr std::size_t max_app_name_bytes = 256;

// Asks the mixer for a snapshot and answers with `view` of it.
template <class View>
void read_mixer(route_call& call, View view) {
  call.self->request(call.targets.mixer, caf::infinite, caf::get_atom_v)
      .then([view, respond = call.respond](
                const mixer_snapshot& m) { respond(json_response(200, view(m))); },
            unavailable(call.respond));
}

// Parses the body as a JSON object, answering 400 when it is not one.
std::optional<nlohmann::json> body_object(route_call& call, bool empty_ok = false) {
  std::string error;
  auto body = validation::json_object(call.req.body, error, empty_ok);
  if (!body) call.respond(controller_error(400, error));
  return body;
}

}  // namespace

void get_status(route_call& call) {
  auto mixer = call.targets.mixer;
  auto self = call.self;
  auto respond = call.respond;
  self->request(call.targets.device, caf::infinite, caf::get_atom_v, status_atom_v)
      .then(
          [self, mixer, respond](const device_status& status) {
            self->request(mixer, caf::infinite, caf::get_atom_v)
                .then(
                    [respond, status](const mixer_snapshot& m) {
                      respond(json_response(200, json::status_to_json(status, m.audio_connected)));
                    },
                    unavailable(respond));
          },
          unavailable(respond));
}

void get_sliders(route_call& call) {
  read_mixer(call, [](const mixer_snapshot& m) { return json::sliders_to_json(m); });
}

void post_slider(route_call& call) {
  auto body = body_object(call);
  if (!body) return;
  std::string error;
  auto value = validation::int_field(*body, "value", limits::volume_min, limits::volume_max, error);
  if (!value) return call.respond(controller_error(400, error));
  int index = call.params[0];
  call.self->request(call.targets.mixer, caf::infinite, set_slider_value{index - 1, *value})
      .then(
          [index, respond = call.respond](int now) {
            respond(json_response(200, {{"success", true}, {"index", index}, {"value", now}}));
          },
          unavailable(call.respond));
}

void get_assignment(route_call& call) {
  int i = call.params[0] - 1;
  read_mixer(call, [i](const mixer_snapshot& m) { return json::to_json(m.sliders[i].assigned); });
}

void post_assignment(route_call& call) {
  auto body = body_object(call);
  if (!body) return;
  std::string error;
  auto parsed = json::assignment_from_json(*body, error);
  if (!parsed) return call.respond(controller_error(400, error));
  // settings.json may hold an app assignment without names (it matches nothing); a new one
  // must name at least one application.
  if (parsed->type == assignment_type::app && parsed->names.empty())
    return call.respond(controller_error(400, "names must list at least one application name"));
  if (parsed->names.size() > max_app_names)
    return call.respond(controller_error(400, "names must hold at most 32 application names"));
  for (const auto& name : parsed->names)
    if (name.size() > max_app_name_bytes)
      return call.respond(controller_error(400, "names must be at most 256 bytes each"));
  set_slider_assignment req{call.params[0] - 1, std::move(*parsed), std::nullopt, std::nullopt};
  if (body->contains("label")) {
    auto label = validation::string_field(*body, "label", max_label_bytes, error);
    if (!label) return call.respond(controller_error(400, error));
    req.label = std::move(*label);
  }
  if (body->contains("enforce_volume")) {
    auto enforce = validation::bool_field(*body, "enforce_volume", true, error);
    if (!enforce) return call.respond(controller_error(400, error));
    req.enforce_volume = *enforce;
  }
  call.self->request(call.targets.mixer, caf::infinite, std::move(req))
      .then(
          [respond = call.respond](const assignment& now) {
            respond(json_response(200, {{"success", true}, {"assignment", json::to_json(now)}}));
          },
          unavailable(call.respond));
}

void get_audio_sessions(route_call& call) {
  call.self->request(call.targets.audio, caf::infinite, caf::get_atom_v, sessions_atom_v)
      .then(
          [respond = call.respond](const audio_sessions& sessions) {
            auto list = nlohmann::json::array();
            for (const auto& s : sessions)
              list.push_back({{"name", s.name}, {"displayName", s.display_name}});
            auto options = nlohmann::json::array(
                {{{"name", "system_default_output"}, {"displayName", "System output"}},
                 {{"name", "system_default_input"}, {"displayName", "Microphone"}}});
            respond(
                json_response(200, {{"sessions", std::move(list)}, {"systemOptions", options}}));
          },
          unavailable(call.respond));
}

void get_mutes(route_call& call) {
  read_mixer(call, [](const mixer_snapshot& m) { return json::mutes_to_json(m.mutes); });
}

void post_mute(route_call& call) {
  int index = call.params[0];
  call.self->request(call.targets.mixer, caf::infinite, toggle_mute{index - 1})
      .then(
          [index, respond = call.respond](bool muted) {
            respond(json_response(200, {{"success", true},
                                        {"index", index},
                                        {"muted", muted},
                                        {"message", "Mute toggle requested"}}));
          },
          unavailable(call.respond));
}

void post_master_mute(route_call& call) {
  call.self->request(call.targets.mixer, caf::infinite, toggle_mute{protocol::master_index})
      .then(
          [respond = call.respond](bool muted) {
            respond(json_response(200, {{"success", true},
                                        {"muted", muted},
                                        {"message", "Master mute toggle requested"}}));
          },
          unavailable(call.respond));
}

void get_master_volume(route_call& call) {
  read_mixer(call, [](const mixer_snapshot& m) { return json::volume_to_json(m.master_volume); });
}

void post_master_volume(route_call& call) {
  auto body = body_object(call);
  if (!body) return;
  std::string error;
  auto value = validation::int_field(*body, "value", limits::volume_min, limits::volume_max, error);
  if (!value) return call.respond(controller_error(400, error));
  call.self->request(call.targets.mixer, caf::infinite, set_master_volume{*value})
      .then(
          [respond = call.respond](int now) {
            respond(json_response(200, {{"success", true}, {"volume", now}}));
          },
          unavailable(call.respond));
}

}  // namespace mixerd::controller
