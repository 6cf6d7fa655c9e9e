#include "protocol/uri.hpp"

#include <algorithm>

#include "protocol/validation.hpp"

namespace mixerd::uri {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace

std::string percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (plus_is_space && text[i] == '+') {
      out.push_back(' ');
      continue;
    }
    if (text[i] == '%' && i + 2 < text.size()) {
      const int hi = hex_value(text[i + 1]);
      const int lo = hex_value(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

std::optional<std::string> query_parameter(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    auto end = query.find('&');
    auto pair = query.substr(0, end);
    auto eq = pair.find('=');
    if (percent_decode(pair.substr(0, eq), true) == name)
      return eq == std::string_view::npos ? std::string()
                                          : percent_decode(pair.substr(eq + 1), true);
    if (end == std::string_view::npos) break;
    query.remove_prefix(end + 1);
  }
  return std::nullopt;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

std::optional<url_parts> split_url(std::string_view url, url_family family) {
  url_parts parts;
  auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::nullopt;
  auto scheme = url.substr(0, scheme_end);
  const std::string_view plain = family == url_family::http ? "http" : "ws";
  const std::string_view secure = family == url_family::http ? "https" : "wss";
  if (iequals(scheme, secure))
    parts.tls = true;
  else if (!iequals(scheme, plain))
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

}  // namespace mixerd::uri
