// Routes of the controller login: status, login, logout and the session cookie (they need no
// session themselves), setting the password, and the sessions with "log out everywhere".
#include "actors/auth/session_table.hpp"
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/limits.hpp"
#include "protocol/validation.hpp"

namespace mixerd::controller {

namespace {

constexpr std::size_t max_credential_bytes = 1024;

// HttpOnly keeps scripts away from it; SameSite=Lax keeps other sites from riding on it.
std::string session_cookie_header(const std::string& id, int max_age, bool tls) {
  std::string c = std::string(session_cookie) + "=" + id + "; Path=/; HttpOnly; SameSite=Lax";
  if (max_age > 0) c += "; Max-Age=" + std::to_string(max_age);
  if (tls) c += "; Secure";
  return c;
}

// Max-Age=0 makes the browser forget the cookie at once.
std::string forget_cookie_header(bool tls) {
  return std::string(session_cookie) + "=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0" +
         (tls ? "; Secure" : "");
}

void get_auth_status(http::exchange& x) {
  auto view = x.dir.view<auth_view>();
  auto s = view ? auth::check_session(*view, x.session_id) : auth_verdict{false, true, {}};
  nlohmann::json username = nullptr;
  if (s.enabled && s.authenticated) username = s.username;
  reply(x, {{"auth_enabled", s.enabled},
            {"authenticated", s.authenticated},
            {"username", std::move(username)},
            {"password_set", view && view->password_set}});
}

void answer_login(const http::responder& respond, const http::listener_policy& policy,
                  const login_outcome& out) {
  using r = login_outcome::result;
  if (out.what == r::invalid) return respond(policy.errors(401, "Invalid username or password"));
  if (out.what == r::throttled || out.what == r::busy) {
    const auto again = "; try again in " + std::to_string(out.retry_after) + " s";
    auto res = out.what == r::throttled ? policy.errors(429, "Too many failed logins" + again)
                                        : policy.errors(503, "Too many logins at once" + again);
    res.headers.emplace_back("Retry-After", std::to_string(out.retry_after));
    return respond(std::move(res));
  }
  auto res = http::json_response(200, {{"success", true}, {"redirect", "/"}});
  if (out.what == r::ok)
    res.headers.emplace_back("Set-Cookie",
                             session_cookie_header(out.session_id, out.max_age, policy.tls));
  respond(std::move(res));
}

void post_login(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  std::string error;
  auto username = validation::string_field(*body, "username", max_credential_bytes, error);
  if (!username) return x.respond(x.error(400, error));
  auto password = validation::string_field(*body, "password", max_credential_bytes, error);
  if (!password) return x.respond(x.error(400, error));
  auto remember = validation::bool_field(*body, "remember", false, error);
  if (!remember) return x.respond(x.error(400, error));
  login_attempt attempt{std::move(*username), std::move(*password), *remember,
                        x.req.client_address};
  x.ask_within(
      limits::login_request_timeout, x.dir.get<auth_actor>(),
      [respond = x.respond, &policy = x.policy](const login_outcome& out) {
        answer_login(respond, policy, out);
      },
      std::move(attempt));
}

// Answered after the auth actor has ended the session: the old cookie is refused from then on.
void post_logout(http::exchange& x) {
  x.ask(
      x.dir.get<auth_actor>(),
      [respond = x.respond, tls = x.policy.tls](bool) {
        auto res = http::json_response(200, {{"success", true}});
        res.headers.emplace_back("Set-Cookie", forget_cookie_header(tls));
        respond(std::move(res));
      },
      logout_request{x.session_id});
}

// The first password may come from any client (while none exists); a change needs a trusted
// caller (checked here for the right status, and again by the auth actor) and the current one.
void post_password(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  for (const auto& [key, value] : body->items())
    if (key != "password" && key != "current_password" && key != "username")
      return x.respond(x.error(400, key + " is not a field of a password change (known: "
                                          "password, current_password, username)"));
  std::string error;
  auto password = validation::string_field(*body, "password", max_credential_bytes, error);
  if (!password) return x.respond(x.error(400, error));
  std::string current, username;
  const std::pair<const char*, std::string*> optional_fields[] = {{"current_password", &current},
                                                                  {"username", &username}};
  for (auto [name, out] : optional_fields) {
    if (!body->contains(name)) continue;
    auto value = validation::string_field(*body, name, max_credential_bytes, error);
    if (!value) return x.respond(x.error(400, error));
    *out = std::move(*value);
  }
  auto view = x.dir.view<auth_view>();
  if (view && view->password_set && !x.trusted)
    return x.respond(view->enabled ? x.error(401, "Authentication required")
                                   : x.error(403,
                                             "Changing the password needs login, or a "
                                             "client on this machine while login is off"));
  password_change change{std::move(username), std::move(*password),
                         std::move(current),  x.req.client_address,
                         x.trusted,           change_source(x)};
  x.ask_within(
      limits::login_request_timeout, x.dir.get<auth_actor>(),
      [respond = x.respond, &policy = x.policy](const password_outcome& out) {
        if (out.status != 200) {
          auto res = policy.errors(out.status, out.error);
          if (out.retry_after > 0)
            res.headers.emplace_back("Retry-After", std::to_string(out.retry_after));
          return respond(std::move(res));
        }
        auto res = http::json_response(
            200, {{"success", true}, {"auth_enabled", true}, {"username", out.username}});
        res.headers.emplace_back("Set-Cookie",
                                 session_cookie_header(out.session_id, 0, policy.tls));
        respond(std::move(res));
      },
      std::move(change));
}

void get_sessions(http::exchange& x) {
  x.ask(
      x.dir.get<auth_actor>(),
      [respond = x.respond](const nlohmann::json& sessions) {
        respond(http::json_response(200, sessions));
      },
      sessions_request{x.session_id});
}

// Every session ends, the caller's too: its cookie is dropped with the answer.
void post_logout_everywhere(http::exchange& x) {
  x.ask(
      x.dir.get<auth_actor>(),
      [respond = x.respond, tls = x.policy.tls](int ended) {
        auto res = http::json_response(200, {{"success", true}, {"ended", ended}});
        res.headers.emplace_back("Set-Cookie", forget_cookie_header(tls));
        respond(std::move(res));
      },
      logout_everywhere{});
}

const http::route_registration routes{
    http::listener_kind::controller,
    {
        {"GET", "/api/auth/status", false, get_auth_status},
        {"POST", "/api/auth/login", false, post_login},
        {"POST", "/api/auth/logout", false, post_logout},
        {"POST", "/api/auth/password", false, post_password},
        {"GET", "/api/auth/sessions", true, get_sessions},
        {"POST", "/api/auth/logout-everywhere", true, post_logout_everywhere},
    }};

}  // namespace

}  // namespace mixerd::controller
