// JSON responses and the error-body style of each listener (docs/api.md: the controller says
// {"error": "..."}, the notification API {"error": "...", "message": "..."}, the plant store
// {"error": <int>, "message": "..."}).
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "gateways/http/server.hpp"

namespace mixerd::http {

response json_response(int status, const nlohmann::json& body);
// The text of a JSON body: invalid UTF-8 (device text may hold any bytes) becomes U+FFFD instead
// of an exception.
std::string json_text(const nlohmann::json& body);

response controller_error(int status, std::string_view message);
response toast_error(int status, std::string_view message);
response plants_error(int status, std::string_view message);

// "Not Found", "Bad Request", ... for a status code.
std::string_view reason_phrase(int status);

}  // namespace mixerd::http
