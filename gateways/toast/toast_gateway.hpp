// The notification interface's route table (interfaces.md section B, contract.md): a stateless
// actor that turns each HTTP request into requests to the toast, device and network actors,
// and their replies into JSON bodies in this interface's error style.
//
// Checked in this order, for every request: the per-address rate limit (429 with Retry-After;
// every other answer counts, health and 401 included), unknown path 404 / other method 405
// (Allow), the API key (X-API-Key header, else the api_key query parameter; 401), then the
// route: body and fields 400, unknown handler 404, disabled handler or device not connected 503.
#pragma once

#include <caf/actor.hpp>
#include <caf/event_based_actor.hpp>
#include <cstdint>
#include <functional>
#include <string>

#include "gateways/http/server.hpp"

namespace mixerd {

struct notification_targets {
  caf::actor toast;
  caf::actor device;
  caf::actor network;
  std::function<std::uint16_t()> port;  // the bound port (known only after binding port 0)
  std::string bind_address;             // for the network routes
  bool tls = false;                     // the listener serves HTTPS
};

caf::behavior notification_gateway(caf::event_based_actor* self, notification_targets targets);

}  // namespace mixerd
