#include "gateways/http/request_checks.hpp"

#include "protocol/uri.hpp"

namespace mixerd::http {

namespace {

// Echoed into an error body: long enough to recognise, short enough not to matter.
constexpr std::size_t kEchoLimit = 64;

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

std::string echo(std::string_view s) {
  return std::string(s.substr(0, kEchoLimit)) + (s.size() > kEchoLimit ? "..." : "");
}

}  // namespace

std::optional<header_refusal> check_transfer_encoding(const std::vector<std::string_view>& values,
                                                      unsigned http_version) {
  if (values.empty()) return std::nullopt;
  if (http_version < 11)
    return header_refusal{400, "Malformed request: Transfer-Encoding in an HTTP/1.0 request"};
  // The list rule: elements separated by commas, empty ones ignored.
  std::vector<std::string_view> codings;
  for (auto value : values) {
    while (!value.empty()) {
      const auto comma = value.find(',');
      const auto element = trimmed(value.substr(0, comma));
      if (!element.empty()) codings.push_back(element);
      if (comma == std::string_view::npos) break;
      value.remove_prefix(comma + 1);
    }
  }
  if (codings.empty())
    return header_refusal{400, "Malformed request: Transfer-Encoding names no coding"};
  if (!uri::iequals(codings.back(), "chunked"))
    return header_refusal{400,
                          "Malformed request: the last Transfer-Encoding must be chunked, not '" +
                              echo(codings.back()) + "'"};
  for (std::size_t i = 0; i + 1 < codings.size(); ++i) {
    if (uri::iequals(codings[i], "chunked"))
      return header_refusal{400, "Malformed request: Transfer-Encoding chunked more than once"};
  }
  if (codings.size() > 1)
    return header_refusal{
        501, "Transfer-Encoding '" + echo(codings.front()) + "' is not supported: only chunked is"};
  return std::nullopt;
}

std::optional<header_refusal> check_host_count(std::size_t count, unsigned http_version) {
  if (count > 1) return header_refusal{400, "Malformed request: more than one Host header"};
  if (count == 0 && http_version >= 11)
    return header_refusal{400, "Malformed request: an HTTP/1.1 request needs a Host header"};
  return std::nullopt;
}

}  // namespace mixerd::http
