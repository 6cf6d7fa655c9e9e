// One HTTP request on its way from the io thread to a gateway actor, with the way back, and the
// two pieces every stateless gateway shares: the handler that forwards requests to it, and its
// guarded dispatch.
#pragma once

#include <caf/actor.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/behavior.hpp>
#include <caf/send.hpp>
#include <exception>
#include <string_view>

#include "actors/log.hpp"
#include "gateways/http/server.hpp"

namespace mixerd::http {

struct call {
  request req;
  responder respond;
};

// The server-core handler that hands each request to a gateway actor.
handler forward_to(caf::actor gateway);

// The behaviour of a gateway actor: each call goes to `dispatch(call&)`. An exception would end
// the actor and with it the whole interface, so it is logged under `name` and answered 500 with
// `error_body(500, "Internal error")`.
template <class Dispatch>
caf::behavior guarded_gateway(std::string_view name, response (*error_body)(int, std::string_view),
                              Dispatch dispatch) {
  return {
      [name, error_body, dispatch](call& c) {
        auto respond = c.respond;
        try {
          dispatch(c);
        } catch (const std::exception& e) {
          log::error(name, "request ", c.req.method, " ", c.req.target, " failed: ", e.what());
          respond(error_body(500, "Internal error"));
        }
      },
  };
}

}  // namespace mixerd::http

// Never leaves the process.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::http::call)
