// Routes of the controller login: status, login, logout, and the session cookie.
#include <caf/all.hpp>

#include "gateways/controller/routes.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/messages.hpp"
#include "protocol/validation.hpp"

namespace mixerd::controller {

namespace {

using http::controller_error;
using http::json_response;

constexpr std::size_t max_credential_bytes = 1024;

// HttpOnly keeps scripts away from it; SameSite=Lax keeps other sites from riding on it.
std::string session_cookie_header(const std::string& id, int max_age, bool tls) {
  std::string c = std::string(session_cookie) + "=" + id + "; Path=/; HttpOnly; SameSite=Lax";
  if (max_age > 0) c += "; Max-Age=" + std::to_string(max_age);
  if (tls) c += "; Secure";
  return c;
}

}  // namespace

std::function<void(caf::error&)> unavailable(http::responder respond) {
  return [respond = std::move(respond)](caf::error&) {
    respond(controller_error(503, "The daemon is shutting down"));
  };
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

void get_auth_status(route_call& call) {
  call.self->request(call.targets.auth, caf::infinite, auth_check{call.session_id})
      .then(
          [respond = call.respond](const auth_state& s) {
            nlohmann::json username = nullptr;
            if (s.enabled && s.authenticated) username = s.username;
            respond(json_response(200, {{"auth_enabled", s.enabled},
                                        {"authenticated", s.authenticated},
                                        {"username", std::move(username)}}));
          },
          unavailable(call.respond));
}

void post_login(route_call& call) {
  std::string error;
  auto body = validation::json_object(call.req.body, error);
  if (!body) return call.respond(controller_error(400, error));
  auto username = validation::string_field(*body, "username", max_credential_bytes, error);
  if (!username) return call.respond(controller_error(400, error));
  auto password = validation::string_field(*body, "password", max_credential_bytes, error);
  if (!password) return call.respond(controller_error(400, error));
  auto remember = validation::bool_field(*body, "remember", false, error);
  if (!remember) return call.respond(controller_error(400, error));
  login_attempt attempt{std::move(*username), std::move(*password), *remember,
                        call.req.client_address};
  const bool tls = call.targets.tls;
  call.self->request(call.targets.auth, caf::infinite, std::move(attempt))
      .then(
          [respond = call.respond, tls](const login_outcome& out) {
            using r = login_outcome::result;
            if (out.what == r::invalid)
              return respond(controller_error(401, "Invalid username or password"));
            if (out.what == r::throttled) {
              auto res = controller_error(429, "Too many failed logins; try again in " +
                                                   std::to_string(out.retry_after) + " s");
              res.headers.emplace_back("Retry-After", std::to_string(out.retry_after));
              return respond(std::move(res));
            }
            auto res = json_response(200, {{"success", true}, {"redirect", "/"}});
            if (out.what == r::ok)
              res.headers.emplace_back("Set-Cookie",
                                       session_cookie_header(out.session_id, out.max_age, tls));
            respond(std::move(res));
          },
          unavailable(call.respond));
}

void post_logout(route_call& call) {
  call.self->send(call.targets.auth, logout_request{call.session_id});
  auto res = json_response(200, {{"success", true}});
  // Max-Age=0 makes the browser forget the cookie at once.
  res.headers.emplace_back("Set-Cookie", std::string(session_cookie) +
                                             "=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0" +
                                             (call.targets.tls ? "; Secure" : ""));
  call.respond(std::move(res));
}

}  // namespace mixerd::controller
