#include "gateways/http/json_body.hpp"

namespace mixerd::http {

std::string json_text(const nlohmann::json& body) {
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

response json_response(int status, const nlohmann::json& body) {
  response r;
  r.status = status;
  // Text from the device or a client may be invalid UTF-8; it must never make encoding throw.
  r.body = json_text(body);
  return r;
}

std::string_view reason_phrase(int status) {
  switch (status) {
    case 400:
      return "Bad request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not found";
    case 405:
      return "Method not allowed";
    case 413:
      return "Payload too large";
    case 421:
      return "Misdirected request";
    case 429:
      return "Rate limited";
    case 431:
      return "Request header fields too large";
    case 501:
      return "Not implemented";
    case 503:
      return "Service unavailable";
    default:
      return status >= 500 ? "Internal error" : "Error";
  }
}

response controller_error(int status, std::string_view message) {
  return json_response(status, {{"error", message}});
}

response toast_error(int status, std::string_view message) {
  return json_response(status, {{"error", reason_phrase(status)}, {"message", message}});
}

response plants_error(int status, std::string_view message) {
  return json_response(status, {{"error", status}, {"message", message}});
}

}  // namespace mixerd::http
