// HTTP header rules: the checks the core makes on a request's header before it reads the body or
// routes it, and the header lists static files are answered by. Pure (no Beast), so the rules are
// unit-tested on their own.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mixerd::http {

struct header_refusal {
  int status;
  std::string message;
};

// RFC 9112 section 6: the only transfer coding mixerd reads is chunked, and a body's end is
// only known when chunked comes last. `values` are the request's Transfer-Encoding fields in
// order (empty: none). Absent or exactly one "chunked": nullopt. A final coding other than
// chunked ("gzip", "chunked, gzip", "xchunked", "identity"), chunked twice, an empty list or any
// Transfer-Encoding on HTTP/1.0: 400. Another coding before a final chunked ("gzip, chunked"):
// 501, since mixerd does not decode it. Either way the connection closes after the answer.
std::optional<header_refusal> check_transfer_encoding(const std::vector<std::string_view>& values,
                                                      unsigned http_version);

// RFC 9112 section 3.2: an HTTP/1.1 request carries exactly one Host field. `count` is how many
// it has. HTTP/1.0 requests may omit it.
std::optional<header_refusal> check_host_count(std::size_t count, unsigned http_version);

// RFC 9110 12.5.3: does an Accept-Encoding value take gzip (listed, as gzip or x-gzip, and not
// weighted q=0)?
bool accepts_gzip(std::string_view accept_encoding);

// RFC 9110 13.1.2: does an If-None-Match value name `etag` (a quoted strong tag)? "*" names any;
// a weak tag (W/"...") matches by its text (the weak comparison If-None-Match uses).
bool etag_matches(std::string_view if_none_match, std::string_view etag);

}  // namespace mixerd::http
