// One HTTP request on its way from the io thread to a gateway actor, with the way back.
#pragma once

#include <caf/allowed_unsafe_message_type.hpp>

#include "gateways/http/server.hpp"

namespace mixerd::http {

struct call {
  request req;
  responder respond;
};

}  // namespace mixerd::http

// Never leaves the process.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::http::call)
