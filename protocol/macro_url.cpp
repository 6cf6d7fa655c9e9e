// The URL of an http macro, split for the HTTP client: scheme, host, port, target.
#include <algorithm>

#include "protocol/macros.hpp"
#include "protocol/uri.hpp"
#include "protocol/validation.hpp"

namespace mixerd::macros {

std::optional<url_parts> split_url(std::string_view url) {
  url_parts parts;
  auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::nullopt;
  auto scheme = url.substr(0, scheme_end);
  if (uri::iequals(scheme, "https"))
    parts.tls = true;
  else if (!uri::iequals(scheme, "http"))
    return std::nullopt;
  parts.port = parts.tls ? 443 : 80;
  if (std::any_of(url.begin(), url.end(),
                  [](char c) { return c == ' ' || c == '#' || validation::is_control_byte(c); }))
    return std::nullopt;
  auto rest = url.substr(scheme_end + 3);
  auto authority_end = rest.find_first_of("/?");
  auto authority = rest.substr(0, authority_end);
  parts.target =
      authority_end == std::string_view::npos ? "/" : std::string(rest.substr(authority_end));
  if (parts.target.front() == '?') parts.target.insert(0, "/");
  if (authority.empty() || authority.find('@') != std::string_view::npos) return std::nullopt;
  std::string_view port_text;
  if (authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string_view::npos || close < 2) return std::nullopt;
    parts.host = std::string(authority.substr(1, close - 1));
    auto after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return std::nullopt;
      port_text = after.substr(1);
      if (port_text.empty()) return std::nullopt;
    }
  } else {
    auto colon = authority.find(':');
    parts.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port_text = authority.substr(colon + 1);
      if (port_text.empty()) return std::nullopt;
    }
  }
  if (parts.host.empty() || parts.host.find_first_of("[]") != std::string::npos)
    return std::nullopt;
  if (!port_text.empty()) {
    std::string error;
    auto port = validation::index_segment(port_text, "port", 1, 65535, error);
    if (!port) return std::nullopt;
    parts.port = *port;
  }
  return parts;
}

}  // namespace mixerd::macros
