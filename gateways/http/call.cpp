#include "gateways/http/call.hpp"

namespace mixerd::http {

handler forward_to(caf::actor gateway) {
  return [gateway](request&& req, responder respond) {
    caf::anon_send(gateway, call{std::move(req), std::move(respond)});
  };
}

}  // namespace mixerd::http
