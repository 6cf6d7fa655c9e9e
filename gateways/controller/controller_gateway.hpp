// The controller's route table (interfaces.md section C): a stateless actor that turns each
// HTTP request into requests to the owning actors and their replies into JSON responses.
// It applies the login gate (contract.md: everything but /api/auth/* needs a valid session
// while login is on) and the CORS rules before routing.
#pragma once

#include <caf/actor.hpp>
#include <caf/event_based_actor.hpp>

#include "gateways/http/server.hpp"

namespace mixerd {

struct controller_targets {
  caf::actor device;
  caf::actor mixer;
  caf::actor auth;
  caf::actor audio;
  bool tls = false;  // the listener serves HTTPS (cookies get Secure)
};

caf::behavior controller_gateway(caf::event_based_actor* self, controller_targets targets);

}  // namespace mixerd
