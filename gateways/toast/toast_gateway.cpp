#include "gateways/toast/toast_gateway.hpp"

#include "gateways/http/json_body.hpp"

namespace mixerd {

http::handler notification_routes(std::function<std::uint16_t()> port) {
  return [port = std::move(port)](http::request&& req, http::responder respond) {
    if (req.path == "/api/toast/health") {
      if (req.method != "GET" && req.method != "HEAD") {
        auto r = http::notification_error(405, "Method " + req.method + " is not allowed");
        r.headers.emplace_back("Allow", "GET");
        return respond(std::move(r));
      }
      return respond(
          http::json_response(200, {{"status", "ok"}, {"version", "1.0"}, {"port", port()}}));
    }
    respond(http::notification_error(404, "No such endpoint: " + req.path));
  };
}

}  // namespace mixerd
