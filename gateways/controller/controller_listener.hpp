// The controller listener (:5000): its policy (CORS on every answer, OPTIONS preflight, the login
// gate) and what its route files share.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "gateways/http/router.hpp"

namespace mixerd::controller {

// Name of the session cookie.
inline constexpr std::string_view session_cookie = "controller_session";

http::listener_policy listener_policy(bool tls);

// The value of a cookie of the request; empty when absent.
std::string cookie_value(const http::request& req, std::string_view name);

// The body as a JSON object; answers 400 naming the problem and returns nullopt otherwise.
std::optional<nlohmann::json> body_object(http::exchange& x, bool empty_ok = false);

// A 200 JSON answer.
void reply(http::exchange& x, const nlohmann::json& body);

// Who makes a configuration change, for its history: "web" when the page says so
// (X-Mixerd-Source: web), else "api".
std::string change_source(const http::exchange& x);

}  // namespace mixerd::controller
