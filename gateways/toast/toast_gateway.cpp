#include "gateways/toast/toast_gateway.hpp"

#include <caf/all.hpp>
#include <memory>
#include <string_view>

#include "actors/log.hpp"
#include "gateways/http/call.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/limits.hpp"
#include "protocol/messages.hpp"
#include "protocol/network.hpp"
#include "protocol/toast.hpp"
#include "protocol/validation.hpp"

namespace mixerd {

namespace {

using http::json_response;
using http::notification_error;

// One admitted request on its way through a route.
struct toast_call {
  caf::event_based_actor* self;
  const notification_targets& targets;
  http::request& req;
  http::responder respond;
  std::string param;  // the {id} of /api/toast/handlers/{id}
};

std::function<void(caf::error&)> unavailable(http::responder respond) {
  return [respond = std::move(respond)](caf::error&) {
    respond(notification_error(503, "The daemon is shutting down"));
  };
}

std::optional<nlohmann::json> body_object(toast_call& call) {
  std::string error;
  auto body = validation::json_object(call.req.body, error);
  if (!body) call.respond(notification_error(400, error));
  return body;
}

void get_health(toast_call& call) {
  call.respond(
      json_response(200, {{"status", "ok"}, {"version", "1.0"}, {"port", call.targets.port()}}));
}

void post_send(toast_call& call) {
  auto body = body_object(call);
  if (!body) return;
  std::string error;
  auto toast = notify::parse_toast_request(*body, error);
  if (!toast) return call.respond(notification_error(400, error));
  call.self->request(call.targets.toast, caf::infinite, toast_post{"api", std::move(*toast)})
      .then(
          [respond = call.respond](const toast_outcome& out) {
            using r = toast_outcome::result;
            if (out.what == r::shown)
              return respond(json_response(
                  200, {{"status", "success"}, {"message", "Toast sent to the device"}}));
            if (out.what == r::handler_disabled)
              return respond(notification_error(503, "The api handler is disabled"));
            respond(notification_error(503, "Device not connected"));
          },
          unavailable(call.respond));
}

void get_handlers(toast_call& call) {
  call.self->request(call.targets.toast, caf::infinite, caf::get_atom_v, handlers_atom_v)
      .then(
          [respond = call.respond](const toast_handler_list& handlers) {
            auto list = nlohmann::json::array();
            for (const auto& h : handlers)
              list.push_back(notify::handler_to_json(h));
            respond(json_response(200, {{"status", "success"}, {"handlers", std::move(list)}}));
          },
          unavailable(call.respond));
}

void post_handler(toast_call& call) {
  auto body = body_object(call);
  if (!body) return;
  auto enabled = body->find("enabled");
  if (enabled == body->end() || enabled->is_null())
    return call.respond(notification_error(400, "enabled field is required"));
  if (!enabled->is_boolean())
    return call.respond(notification_error(400, "enabled must be true or false"));
  call.self
      ->request(call.targets.toast, caf::infinite, toast_switch{call.param, enabled->get<bool>()})
      .then(
          [respond = call.respond, id = call.param](const toast_switch_result& out) {
            if (!out.found) return respond(notification_error(404, "No handler '" + id + "'"));
            respond(json_response(
                200, {{"status", "success"}, {"handler", notify::handler_to_json(out.handler)}}));
          },
          unavailable(call.respond));
}

void get_status(toast_call& call) {
  call.self->request(call.targets.device, caf::infinite, caf::get_atom_v, status_atom_v)
      .then(
          [respond = call.respond, port = call.targets.port()](const device_status& s) {
            const auto window =
                std::chrono::duration_cast<std::chrono::seconds>(limits::toast_rate_window);
            respond(json_response(200, {{"status", "success"},
                                        {"server_running", true},
                                        {"device_connected", s.connected},
                                        {"port", port},
                                        {"rate_limit",
                                         {{"window_seconds", window.count()},
                                          {"max_requests", limits::toast_rate_max_requests}}}}));
          },
          unavailable(call.respond));
}

void get_network(toast_call& call) {
  call.self->request(call.targets.network, caf::infinite, caf::get_atom_v)
      .then(
          [respond = call.respond, bind = call.targets.bind_address, port = call.targets.port(),
           tls = call.targets.tls](const network_snapshot& facts) {
            respond(json_response(200, network::network_info_json(facts, bind, port, tls)));
          },
          unavailable(call.respond));
}

void post_regenerate(toast_call& call) {
  call.self->request(call.targets.toast, caf::infinite, regenerate_atom_v)
      .then(
          [respond = call.respond](const std::string& key) {
            respond(json_response(
                200,
                {{"status", "success"}, {"api_key", key}, {"message", "API key regenerated"}}));
          },
          unavailable(call.respond));
}

struct route {
  std::string_view method;
  std::string_view path;  // a trailing '/' takes one more segment: the {id}
  void (*handler)(toast_call&);
  bool needs_key = true;
};

constexpr std::string_view handlers_prefix = "/api/toast/handlers/";

constexpr route routes[] = {
    {"GET", "/api/toast/health", get_health, false},    {"POST", "/api/toast/send", post_send},
    {"GET", "/api/toast/handlers", get_handlers},       {"POST", handlers_prefix, post_handler},
    {"GET", "/api/toast/status", get_status},           {"GET", "/api/toast/network", get_network},
    {"POST", "/api/toast/regenerate", post_regenerate},
};

// The {id} of a path under a prefix route: one non-empty segment.
bool matches(const route& r, std::string_view path, std::string& param) {
  if (r.path.back() != '/') return path == r.path;
  if (path.size() <= r.path.size() || path.compare(0, r.path.size(), r.path) != 0) return false;
  auto rest = path.substr(r.path.size());
  if (rest.find('/') != std::string_view::npos) return false;
  param = std::string(rest);
  return true;
}

std::string api_key_of(const http::request& req) {
  if (auto header = req.header("X-API-Key"); !header.empty()) return std::string(header);
  return notify::query_parameter(req.query, "api_key").value_or("");
}

void dispatch(caf::event_based_actor* self, const notification_targets& targets, http::call& c) {
  auto& req = c.req;
  const route* found = nullptr;
  std::string allowed;
  std::string param;
  for (const auto& r : routes) {
    if (!matches(r, req.path, param)) continue;
    if (r.method == req.method || (r.method == "GET" && req.method == "HEAD")) {
      found = &r;
      break;
    }
    allowed += (allowed.empty() ? "" : ", ") + std::string(r.method);
  }
  toast_admit admit{req.client_address, api_key_of(req), found != nullptr && found->needs_key};
  const bool key_given = !admit.api_key.empty();
  // The request must outlive the admission it waits for.
  auto held = std::make_shared<http::request>(std::move(req));
  auto respond = c.respond;
  self->request(targets.toast, caf::infinite, std::move(admit))
      .then(
          [self, &targets, held, respond, found, allowed, param,
           key_given](const toast_admission& a) {
            using v = toast_admission::verdict;
            if (a.what == v::rate_limited) {
              auto res = notification_error(429, "Too many requests");
              res.headers.emplace_back("Retry-After", std::to_string(a.retry_after));
              return respond(std::move(res));
            }
            if (!found && allowed.empty())
              return respond(notification_error(404, "No such endpoint: " + held->path));
            if (!found) {
              auto res = notification_error(
                  405, "Method " + held->method + " is not allowed on " + held->path);
              res.headers.emplace_back("Allow", allowed);
              return respond(std::move(res));
            }
            if (a.what == v::unauthorized)
              return respond(notification_error(
                  401, key_given ? "Invalid API key"
                                 : "Missing API key: send it in the X-API-Key header or the "
                                   "api_key query parameter"));
            toast_call call{self, targets, *held, respond, param};
            found->handler(call);
          },
          unavailable(respond));
}

}  // namespace

caf::behavior notification_gateway(caf::event_based_actor* self, notification_targets targets) {
  // The targets live in the actor's behavior for its lifetime; handlers refer to them.
  auto shared_targets = std::make_shared<const notification_targets>(std::move(targets));
  return http::guarded_gateway(
      "notification", notification_error,
      [self, shared_targets](http::call& c) { dispatch(self, *shared_targets, c); });
}

}  // namespace mixerd
