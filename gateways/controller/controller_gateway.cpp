#include "gateways/controller/controller_gateway.hpp"

#include <caf/all.hpp>
#include <string_view>

#include "actors/log.hpp"
#include "gateways/controller/routes.hpp"
#include "gateways/http/call.hpp"
#include "gateways/http/cors.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/limits.hpp"
#include "protocol/messages.hpp"
#include "protocol/validation.hpp"

namespace mixerd {

namespace {

using controller::route_call;
using http::controller_error;

// A path pattern: literal segments, and "#" for an integer parameter with its range.
struct route {
  std::string_view method;
  std::string_view pattern;  // e.g. "/api/sliders/#/assignment"
  void (*handler)(route_call&);
  bool needs_session = true;
};

constexpr route routes[] = {
    {"GET", "/api/auth/status", controller::get_auth_status, false},
    {"POST", "/api/auth/login", controller::post_login, false},
    {"POST", "/api/auth/logout", controller::post_logout, false},
    {"GET", "/api/status", controller::get_status},
    {"GET", "/api/sliders", controller::get_sliders},
    {"POST", "/api/sliders/#", controller::post_slider},
    {"GET", "/api/sliders/#/assignment", controller::get_assignment},
    {"POST", "/api/sliders/#/assignment", controller::post_assignment},
    {"GET", "/api/audio/sessions", controller::get_audio_sessions},
    {"GET", "/api/mutes", controller::get_mutes},
    {"POST", "/api/mutes/master", controller::post_master_mute},
    {"POST", "/api/mutes/#", controller::post_mute},
    {"GET", "/api/volume/master", controller::get_master_volume},
    {"POST", "/api/volume/master", controller::post_master_volume},
};

std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    if (path.front() == '/') {
      path.remove_prefix(1);
      continue;
    }
    auto end = path.find('/');
    out.push_back(path.substr(0, end));
    path = end == std::string_view::npos ? std::string_view() : path.substr(end);
  }
  return out;
}

// Matches the shape of a path; integer parameters are read later, so that a bad index gets a
// 400 naming it rather than a 404.
bool matches(std::string_view pattern, const std::vector<std::string_view>& parts,
             std::vector<std::string_view>& params) {
  auto want = segments(pattern);
  if (want.size() != parts.size()) return false;
  params.clear();
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (want[i] == "#") {
      if (parts[i] == "master") return false;  // "/api/mutes/master" has its own route
      params.push_back(parts[i]);
    } else if (want[i] != parts[i]) {
      return false;
    }
  }
  return true;
}

void dispatch(caf::event_based_actor* self, const controller_targets& targets, http::call& c) {
  auto& req = c.req;
  const bool tls = targets.tls;
  // Every answer of this listener carries the CORS headers.
  http::responder respond = [inner = std::move(c.respond),
                             cors = http::cors_headers(req, tls)](http::response res) mutable {
    res.headers.insert(res.headers.end(), cors.begin(), cors.end());
    inner(std::move(res));
  };
  if (req.method == "OPTIONS") return respond(http::preflight(req));

  auto parts = segments(req.path);
  std::vector<std::string_view> raw_params;
  const route* found = nullptr;
  std::string allowed;
  for (const auto& r : routes) {
    if (!matches(r.pattern, parts, raw_params)) continue;
    bool method_ok = r.method == req.method || (r.method == "GET" && req.method == "HEAD");
    if (method_ok) {
      found = &r;
      break;
    }
    if (allowed.find(r.method) == std::string::npos)
      allowed += (allowed.empty() ? "" : ", ") + std::string(r.method);
  }
  if (!found) {
    if (allowed.empty()) return respond(controller_error(404, "Not found: " + req.path));
    auto res = controller_error(405, "Method " + req.method + " is not allowed on " + req.path);
    res.headers.emplace_back("Allow", allowed);
    return respond(std::move(res));
  }
  // Path parameters are checked after the login gate: without a session, everything is 401.
  auto run = [self, &targets, handler = found->handler,
              raw = std::vector<std::string>(raw_params.begin(), raw_params.end())](
                 http::request& r, http::responder respond, std::string session) {
    std::vector<int> params;
    for (const auto& p : raw) {
      std::string error;
      auto index = validation::index_segment(p, "index", 1, limits::slider_count, error);
      if (!index) return respond(controller_error(400, error));
      params.push_back(*index);
    }
    route_call call{self, targets, r, std::move(respond), std::move(params), std::move(session)};
    handler(call);
  };
  // A cookie counts only from the page's own origin: another site cannot ride on it.
  std::string session =
      http::same_origin(req, tls) ? controller::cookie_value(req, controller::session_cookie) : "";
  if (!found->needs_session) return run(req, std::move(respond), std::move(session));
  // The request must outlive the auth check it waits for.
  auto held = std::make_shared<http::request>(std::move(req));
  self->request(targets.auth, caf::infinite, auth_check{session})
      .then(
          [held, respond, session, run](const auth_state& state) mutable {
            if (!state.authenticated)
              return respond(controller_error(401, "Authentication required"));
            run(*held, std::move(respond), std::move(session));
          },
          controller::unavailable(respond));
}

}  // namespace

caf::behavior controller_gateway(caf::event_based_actor* self, controller_targets targets) {
  // The targets live in the actor's behavior for its lifetime; handlers refer to them.
  auto shared_targets = std::make_shared<const controller_targets>(std::move(targets));
  return http::guarded_gateway(
      "controller", controller_error,
      [self, shared_targets](http::call& c) { dispatch(self, *shared_targets, c); });
}

}  // namespace mixerd
