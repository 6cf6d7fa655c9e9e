#include "gateways/controller/controller_listener.hpp"

#include "actors/auth/session_table.hpp"
#include "actors/support/installed_files.hpp"
#include "gateways/http/cors.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/auth.hpp"
#include "protocol/network.hpp"
#include "protocol/plants.hpp"
#include "protocol/secret.hpp"
#include "protocol/validation.hpp"

namespace mixerd::controller {

namespace {

// A browser asking for a page without a session goes to the login form, which comes back to the
// page after the login.
http::response to_login_form() {
  http::response res;
  res.status = 302;
  res.content_type.clear();
  res.headers = {{"Location", "/login"}, {"Cache-Control", "no-store"}};
  return res;
}

// The request carries the metrics token (compared in constant time) and the route takes it.
bool has_metrics_token(const http::exchange& x, const http::route& found, const auth_view& view) {
  if (!found.accepts_metrics_token || view.metrics_token.empty()) return false;
  auto bearer = plants::parse_bearer(x.req.header("Authorization"));
  return bearer.problem == plants::bearer_problem::none &&
         secret::constant_time_equal(bearer.token, view.metrics_token);
}

// With login on, every route but /api/auth/*, the login form and the page's assets needs a live
// session; the session table is the
// auth capability's published view, so the check costs no message.
void login_gate(const std::shared_ptr<http::exchange>& held, const http::route* found,
                const std::function<void(http::exchange&)>& next) {
  auto& x = *held;
  if (x.req.method == "OPTIONS") return x.respond(http::preflight(x.req));
  const bool own_origin = http::same_origin(x.req, x.policy.tls);
  // A page of another origin reaches a write only through a preflight (docs/api.md, "CORS").
  if (auto refused = http::cross_origin_write_problem(x.req, own_origin); !refused.empty())
    return x.respond(x.error(415, refused));
  // A cookie counts only from the page's own origin: another site cannot ride on it.
  if (own_origin) x.session_id = cookie_value(x.req, session_cookie);
  auto view = x.dir.view<auth_view>();
  const auto verdict = view ? auth::check_session(*view, x.session_id) : auth_verdict{};
  if (found && found->needs_credentials && view && !has_metrics_token(x, *found, *view) &&
      !verdict.authenticated)
    return x.respond(found->handler == http::serve_files ? to_login_form()
                                                         : x.error(401, "Authentication required"));
  // Who may aim mixerd at the network (protocol/README.md): whoever logged in, or with login
  // off a client on this machine whose request no other web page made.
  x.trusted = verdict.enabled ? verdict.authenticated
                              : own_origin && network::is_loopback(x.req.client_address);
  next(x);
}

}  // namespace

http::listener_policy listener_policy(bool tls) {
  http::listener_policy p;
  p.kind = http::listener_kind::controller;
  p.name = "controller";
  p.errors = http::controller_error;
  p.tls = tls;
  p.gate = login_gate;
  p.static_root = (installed_share_dir() / "web").string();
  // Every answer of this listener carries the CORS headers.
  p.decorate = [tls](const http::request& req, http::responder inner) -> http::responder {
    return [inner = std::move(inner), cors = http::cors_headers(req, tls)](http::response res) {
      res.headers.insert(res.headers.end(), cors.begin(), cors.end());
      inner(std::move(res));
    };
  };
  return p;
}

std::string cookie_value(const http::request& req, std::string_view name) {
  std::string_view cookies = req.header("Cookie");
  while (!cookies.empty()) {
    auto end = cookies.find(';');
    auto pair = cookies.substr(0, end);
    while (!pair.empty() && pair.front() == ' ')
      pair.remove_prefix(1);
    if (pair.size() > name.size() && pair.substr(0, name.size()) == name &&
        pair[name.size()] == '=')
      return std::string(pair.substr(name.size() + 1));
    if (end == std::string_view::npos) break;
    cookies.remove_prefix(end + 1);
  }
  return {};
}

std::optional<nlohmann::json> body_object(http::exchange& x, bool empty_ok) {
  std::string error;
  auto body = validation::json_object(x.req.body, error, empty_ok);
  if (!body) x.respond(x.error(400, error));
  return body;
}

void reply(http::exchange& x, const nlohmann::json& body) {
  x.respond(http::json_response(200, body));
}

std::string change_source(const http::exchange& x) {
  return x.req.header("X-Mixerd-Source") == "web" ? "web" : "api";
}

}  // namespace mixerd::controller
