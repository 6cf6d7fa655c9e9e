// Routes of the toast capability on the notification listener: send, handlers, status, health,
// key regeneration.
#include <chrono>

#include "gateways/http/json_body.hpp"
#include "gateways/toast/notification_listener.hpp"
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

void post_send(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  std::string error;
  auto toast = notify::parse_toast_request(*body, error);
  if (!toast) return x.respond(x.error(400, error));
  x.ask(
      x.dir.get<toast_actor>(),
      [respond = x.respond, errors = x.policy.errors](const toast_outcome& out) {
        using r = toast_outcome::result;
        if (out.what == r::shown)
          return respond(
              json_response(200, {{"status", "success"}, {"message", "Toast sent to the device"}}));
        if (out.what == r::handler_disabled)
          return respond(errors(503, "The api handler is disabled"));
        respond(errors(503, "Device not connected"));
      },
      toast_post{"api", std::move(*toast)});
}

void get_handlers(http::exchange& x) {
  auto view = x.dir.view<toast_view>();
  auto list = nlohmann::json::array();
  if (view)
    for (const auto& h : view->handlers)
      list.push_back(notify::handler_to_json(h));
  x.respond(json_response(200, {{"status", "success"}, {"handlers", std::move(list)}}));
}

void post_handler(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  auto enabled = body->find("enabled");
  if (enabled == body->end() || enabled->is_null())
    return x.respond(x.error(400, "enabled field is required"));
  if (!enabled->is_boolean()) return x.respond(x.error(400, "enabled must be true or false"));
  x.ask(
      x.dir.get<toast_actor>(),
      [respond = x.respond, errors = x.policy.errors,
       id = x.segment(0)](const toast_switch_result& out) {
        if (!out.found) return respond(errors(404, "No handler '" + id + "'"));
        respond(json_response(
            200, {{"status", "success"}, {"handler", notify::handler_to_json(out.handler)}}));
      },
      toast_switch{x.segment(0), enabled->get<bool>()});
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

void post_regenerate(http::exchange& x) {
  x.ask(
      x.dir.get<toast_actor>(),
      [respond = x.respond](const std::string& key) {
        respond(json_response(
            200, {{"status", "success"}, {"api_key", key}, {"message", "API key regenerated"}}));
      },
      regenerate_atom_v);
}

const http::route_registration routes{http::listener_kind::notification,
                                      {
                                          {"GET", "/api/toast/health", false, get_health},
                                          {"POST", "/api/toast/send", true, post_send},
                                          {"GET", "/api/toast/handlers", true, get_handlers},
                                          {"POST", "/api/toast/handlers/{id}", true, post_handler},
                                          {"GET", "/api/toast/status", true, get_status},
                                          {"POST", "/api/toast/regenerate", true, post_regenerate},
                                      }};

}  // namespace

}  // namespace mixerd::toast_api
