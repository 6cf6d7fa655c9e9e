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

// The list rule (RFC 9110 5.6.1): elements separated by commas, empty ones ignored.
std::vector<std::string_view> list_elements(std::string_view value) {
  std::vector<std::string_view> out;
  while (!value.empty()) {
    const auto comma = value.find(',');
    const auto element = trimmed(value.substr(0, comma));
    if (!element.empty()) out.push_back(element);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return out;
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
  std::vector<std::string_view> codings;
  for (auto value : values) {
    auto elements = list_elements(value);
    codings.insert(codings.end(), elements.begin(), elements.end());
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

bool accepts_gzip(std::string_view accept_encoding) {
  for (auto element : list_elements(accept_encoding)) {
    const auto semicolon = element.find(';');
    const auto coding = trimmed(element.substr(0, semicolon));
    if (!uri::iequals(coding, "gzip") && !uri::iequals(coding, "x-gzip")) continue;
    if (semicolon == std::string_view::npos) return true;
    // A weight of zero ("q=0", "q=0.000") refuses the coding.
    auto weight = trimmed(element.substr(semicolon + 1));
    const bool zero = weight.size() > 2 && (weight[0] == 'q' || weight[0] == 'Q') &&
                      weight[1] == '=' &&
                      weight.find_first_not_of("0.", 2) == std::string_view::npos;
    return !zero;
  }
  return false;
}

bool etag_matches(std::string_view if_none_match, std::string_view etag) {
  for (auto element : list_elements(if_none_match)) {
    if (element == "*") return true;
    if (element.substr(0, 2) == "W/") element.remove_prefix(2);
    if (element == etag) return true;
  }
  return false;
}

}  // namespace mixerd::http
