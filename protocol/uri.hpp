// Text rules of HTTP requests that every listener shares: percent-decoding, query parameters,
// case-insensitive names. Pure.
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

}  // namespace mixerd::uri
