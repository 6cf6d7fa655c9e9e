// Routes of the smart home (docs/api.md, "Smart home"): the device list is answered from the
// smart-home actor's published view; toggle and brightness run the smart home's commands
// (actors/smarthome/smarthome_commands.cpp).
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/smarthome.hpp"

namespace mixerd::controller {

namespace {

void get_smarthome(http::exchange& x) {
  auto latest = x.dir.view<smarthome_view>();
  reply(x, smarthome::to_json(latest ? *latest : smarthome_view{}));
}

const http::route_registration routes{
    http::listener_kind::controller,
    {
        {"GET", "/api/smarthome", true, get_smarthome},
        http::command_route("POST", "/api/smarthome/toggle", "smarthome.toggle"),
        http::command_route("POST", "/api/smarthome/brightness", "smarthome.brightness"),
    }};

}  // namespace

}  // namespace mixerd::controller
