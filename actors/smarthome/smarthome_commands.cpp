// The smart home's commands: Home Assistant service calls on one entity. The smart-home actor
// answers within smarthome::call_timeout (504 after it).
#include "actors/smarthome/smarthome_commands.hpp"

#include "protocol/smarthome.hpp"
#include "protocol/validation.hpp"

namespace mixerd {

namespace {

using result = smarthome_outcome::result;
using action = smarthome_command::action;

constexpr std::string_view smarthome_missing = "Smart home not available";

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

// An entity id as Home Assistant writes them.
bool read_entity(const nlohmann::json& input, nlohmann::json& args, commands::problem& why) {
  auto id = validation::string_field(input, "entity_id", smarthome::max_entity_id_bytes, why.text);
  if (!id) return false;
  if (!smarthome::valid_entity_id(*id)) {
    why.text = "entity_id must be an entity id such as light.desk";
    return false;
  }
  args["entity_id"] = std::move(*id);
  return true;
}

commands::param entity_param() {
  auto p =
      commands::text("entity_id", smarthome::max_entity_id_bytes, "The entity, e.g. light.desk");
  p.read = read_entity;
  return p;
}

// Answers with the entity's state as Home Assistant reports it after the call.
void call_service(const command_call_ptr& call, action what, std::optional<int> brightness) {
  call->ask(
      call->dir().get<smarthome_actor>(),
      smarthome_command{call->text("entity_id"), what, brightness},
      [](const command_call_ptr& c, const smarthome_outcome& out) {
        if (out.what != result::ok) return c->fail(status_of(out.what), out.error);
        c->ok(
            {{"success", true}, {"entity_id", out.device.entity_id}, {"state", out.device.state}});
      });
}

void toggle(const command_call_ptr& call) {
  call_service(call, action::toggle, std::nullopt);
}
void turn_on(const command_call_ptr& call) {
  call_service(call, action::turn_on, std::nullopt);
}
void turn_off(const command_call_ptr& call) {
  call_service(call, action::turn_off, std::nullopt);
}

// Answered once Home Assistant accepted the call, with the brightness asked for (a light set to
// the brightness it has reports no state_changed). 0 turns the light off.
void set_brightness(const command_call_ptr& call) {
  const auto entity = call->text("entity_id");
  const int value = static_cast<int>(call->integer("value"));
  call->ask(call->dir().get<smarthome_actor>(), smarthome_command{entity, action::turn_on, value},
            [entity, value](const command_call_ptr& c, const smarthome_outcome& out) {
              if (out.what != result::ok) return c->fail(status_of(out.what), out.error);
              c->ok({{"success", true}, {"entity_id", entity}, {"brightness", value}});
            });
}

}  // namespace

std::vector<command> smarthome_commands() {
  return {
      {"smarthome.toggle",
       "Toggles a Home Assistant entity (light, switch, fan, input_boolean)",
       {entity_param()},
       commands::permission::control,
       smarthome_missing,
       toggle},
      {"smarthome.turn_on",
       "Turns a Home Assistant entity on",
       {entity_param()},
       commands::permission::control,
       smarthome_missing,
       turn_on},
      {"smarthome.turn_off",
       "Turns a Home Assistant entity off",
       {entity_param()},
       commands::permission::control,
       smarthome_missing,
       turn_off},
      {"smarthome.brightness",
       "Sets a light's brightness (0 turns it off)",
       {entity_param(), commands::integer("value", 0, 100, "The brightness, 0-100")},
       commands::permission::control,
       smarthome_missing,
       set_brightness},
  };
}

}  // namespace mixerd
