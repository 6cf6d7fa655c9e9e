// Routes of the network capability on the notification listener: how it can be reached.
#include "gateways/http/json_body.hpp"
#include "gateways/toast/toast_listener.hpp"
#include "protocol/network.hpp"

namespace mixerd::toast_api {

namespace {

void get_network(http::exchange& x) {
  const auto& facts = facts_of(x);
  x.ask(
      x.dir.get<network_actor>(),
      [respond = x.respond, bind = facts.bind_address, port = *facts.port,
       tls = facts.tls](const network_snapshot& found) {
        respond(http::json_response(200, network::network_info_to_json(found, bind, port, tls)));
      },
      caf::get_atom_v);
}

const http::route_registration routes{http::listener_kind::toast,
                                      {{"GET", "/api/toast/network", true, get_network}}};

}  // namespace

}  // namespace mixerd::toast_api
