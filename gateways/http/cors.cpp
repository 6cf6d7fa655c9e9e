#include "gateways/http/cors.hpp"

#include "protocol/uri.hpp"

namespace mixerd::http {

bool same_origin(const request& req, bool tls) {
  auto origin = req.header("Origin");
  if (origin.empty()) return true;
  auto host = req.header("Host");
  std::string own = (tls ? "https://" : "http://") + std::string(host);
  return !host.empty() && origin == own;
}

std::vector<std::pair<std::string, std::string>> cors_headers(const request& req, bool tls) {
  auto origin = req.header("Origin");
  if (!origin.empty() && same_origin(req, tls))
    return {{"Access-Control-Allow-Origin", std::string(origin)},
            {"Access-Control-Allow-Credentials", "true"},
            {"Vary", "Origin"}};
  // `*` never carries credentials: browsers send no cookie cross-origin with it.
  return {{"Access-Control-Allow-Origin", "*"}};
}

std::string cross_origin_write_problem(const request& req, bool own_origin) {
  if (own_origin || req.method == "GET" || req.method == "HEAD" || req.method == "OPTIONS")
    return "";
  // The media type, without parameters such as charset.
  std::string_view type = req.header("Content-Type");
  type = type.substr(0, type.find(';'));
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t'))
    type.remove_suffix(1);
  if (uri::iequals(type, "application/json")) return "";
  return "A request from another web page (Origin " + std::string(req.header("Origin")) +
         ") must send Content-Type: application/json";
}

response preflight(const request& req) {
  response res;
  res.status = 204;
  res.content_type.clear();
  res.headers.emplace_back("Access-Control-Allow-Methods",
                           "GET, POST, PUT, PATCH, DELETE, OPTIONS");
  auto asked = req.header("Access-Control-Request-Headers");
  res.headers.emplace_back("Access-Control-Allow-Headers",
                           asked.empty() ? std::string("Content-Type") : std::string(asked));
  res.headers.emplace_back("Access-Control-Max-Age", "600");
  return res;
}

}  // namespace mixerd::http
