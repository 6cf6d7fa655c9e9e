// Routes of the smart home (docs/api.md, "Smart home"): the device list is answered from the
// smart-home actor's published view; toggle and brightness ask the smart-home actor, which
// answers within smarthome::call_timeout (504 after it).
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/validation.hpp"

namespace mixerd::controller {

namespace {

using result = smarthome_outcome::result;

int status_of(result what) {
  switch (what) {
    case result::ok:
      return 200;
    case result::not_connected:
    case result::busy:
      return 503;
    case result::not_found:
      return 404;
    case result::invalid:
      return 400;
    case result::timeout:
      return 504;
    case result::refused:
      return 502;
  }
  return 500;
}

// The entity_id of a body: an entity id as Home Assistant writes them. Answers 400 otherwise.
std::optional<std::string> entity_field(http::exchange& x, const nlohmann::json& body) {
  std::string error;
  auto id = validation::string_field(body, "entity_id", smarthome::max_entity_id_bytes, error);
  if (id && !smarthome::valid_entity_id(*id))
    error = "entity_id must be an entity id such as light.desk";
  if (!error.empty()) {
    x.respond(x.error(400, error));
    return std::nullopt;
  }
  return id;
}

template <class Body>
void ask_smarthome(http::exchange& x, smarthome_command req, Body body) {
  x.ask(
      x.dir.get<smarthome_actor>(),
      [body, respond = x.respond, errors = x.policy.errors](const smarthome_outcome& out) {
        if (out.what != result::ok) return respond(errors(status_of(out.what), out.error));
        respond(http::json_response(200, body(out)));
      },
      std::move(req));
}

void get_smarthome(http::exchange& x) {
  auto latest = x.dir.view<smarthome_view>();
  reply(x, smarthome::view_to_json(latest ? *latest : smarthome_view{}));
}

void post_toggle(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  auto entity = entity_field(x, *body);
  if (!entity) return;
  ask_smarthome(x, smarthome_command{*entity, smarthome_command::action::toggle, std::nullopt},
                [](const smarthome_outcome& out) {
                  return nlohmann::json{{"success", true},
                                        {"entity_id", out.device.entity_id},
                                        {"state", out.device.state}};
                });
}

// Answered once Home Assistant accepted the call, with the brightness asked for (a light set to
// the brightness it has reports no state_changed).
void post_brightness(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  auto entity = entity_field(x, *body);
  if (!entity) return;
  std::string error;
  auto value = validation::int_field(*body, "value", 0, 100, error);
  if (!value) return x.respond(x.error(400, error));
  ask_smarthome(
      x, smarthome_command{*entity, smarthome_command::action::turn_on, *value},
      [entity = *entity, value = *value](const smarthome_outcome&) {
        return nlohmann::json{{"success", true}, {"entity_id", entity}, {"brightness", value}};
      });
}

const http::route_registration routes{
    http::listener_kind::controller,
    {
        {"GET", "/api/smarthome", true, get_smarthome},
        {"POST", "/api/smarthome/toggle", true, post_toggle},
        {"POST", "/api/smarthome/brightness", true, post_brightness},
    }};

}  // namespace

}  // namespace mixerd::controller
