// Text rules of HTTP requests that every listener shares: percent-decoding, query parameters,
// case-insensitive names; and the URLs of outside services (http macros, Home Assistant, OBS).
// Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mixerd::uri {

// Decodes %XX sequences (a malformed one stays as it is). '+' means a space only in a query
// (`plus_is_space`), never in a path.
std::string percent_decode(std::string_view text, bool plus_is_space = false);

// The decoded value of `name` in a raw query string ("a=1&api_key=x"); "" for a bare "name".
std::optional<std::string> query_parameter(std::string_view query, std::string_view name);

// ASCII case-insensitive equality (header names, auth schemes).
bool iequals(std::string_view a, std::string_view b);

// The parts of a URL of an outside service, as a client needs them.
struct url_parts {
  bool tls = false;    // https or wss
  std::string host;    // without the brackets of an IPv6 literal
  int port = 80;       // the scheme's default when the URL names none (80, 443)
  std::string target;  // path and query, "/" when the url has none
};
enum class url_family { http, ws };  // http/https or ws/wss
// Splits an absolute URL of the family's two schemes (no user name or password, no fragment, no
// blank or control byte); nullopt when it is not one.
std::optional<url_parts> split_url(std::string_view url, url_family family = url_family::http);

}  // namespace mixerd::uri
