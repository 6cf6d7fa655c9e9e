// Cross-origin rules of the controller (docs/api.md: CORS for all origins; with login
// on, credentials are honoured only from the page's own origin).
#pragma once

#include "gateways/http/server.hpp"

namespace mixerd::http {

// True when the request carries no Origin header or one equal to its own scheme://Host.
bool same_origin(const request& req, bool tls);
// The Access-Control-* headers for a response: the page's own origin gets credentials, any
// other origin `*`.
std::vector<std::pair<std::string, std::string>> cors_headers(const request& req, bool tls);
// A state-changing request (not GET, HEAD or OPTIONS) from another origin must be one a browser
// sends only after a preflight: Content-Type application/json. "" when it may go on, else the
// sentence of the 415.
std::string cross_origin_write_problem(const request& req, bool own_origin);
// The answer to an OPTIONS preflight.
response preflight(const request& req);  // CORS headers are added by the caller

}  // namespace mixerd::http
