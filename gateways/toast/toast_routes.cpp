// Routes of the toast capability on the notification listener: send, handlers, status, health,
// key regeneration. The writes run the toast capability's commands
// (actors/toast/toast_commands.cpp).
#include <chrono>

#include "gateways/http/json_body.hpp"
#include "gateways/toast/toast_listener.hpp"
#include "protocol/device.hpp"
#include "protocol/limits.hpp"
#include "protocol/toast.hpp"

namespace mixerd::toast_api {

namespace {

using http::json_response;

int port_of(const http::exchange& x) {
  return *facts_of(x).port;
}

void get_health(http::exchange& x) {
  x.respond(json_response(200, {{"status", "ok"}, {"version", "1.0"}, {"port", port_of(x)}}));
}

void get_handlers(http::exchange& x) {
  auto view = x.dir.view<toast_view>();
  auto list = nlohmann::json::array();
  if (view)
    for (const auto& h : view->handlers)
      list.push_back(toast::handler_to_json(h));
  x.respond(json_response(200, {{"status", "success"}, {"handlers", std::move(list)}}));
}

void get_status(http::exchange& x) {
  auto device = x.dir.view<device_view>();
  const auto window = std::chrono::duration_cast<std::chrono::seconds>(limits::toast_rate_window);
  x.respond(json_response(200, {{"status", "success"},
                                {"server_running", true},
                                {"device_connected", device && device->connected},
                                {"port", port_of(x)},
                                {"rate_limit",
                                 {{"window_seconds", window.count()},
                                  {"max_requests", limits::toast_rate_max_requests}}}}));
}

const http::route_registration routes{
    http::listener_kind::toast,
    {
        {"GET", "/api/toast/health", false, get_health},
        http::command_route("POST", "/api/toast/send", "toast.send"),
        {"GET", "/api/toast/handlers", true, get_handlers},
        http::command_route("POST", "/api/toast/handlers/{id}", "toast.switch_handler"),
        {"GET", "/api/toast/status", true, get_status},
        http::command_route("POST", "/api/toast/regenerate", "toast.regenerate_key",
                            http::body_use::none),
    }};

}  // namespace

}  // namespace mixerd::toast_api
