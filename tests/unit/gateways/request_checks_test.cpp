#include "gateways/http/request_checks.hpp"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

namespace mh = mixerd::http;

namespace {

// The status a request with these Transfer-Encoding fields gets before its body is read; 0 when
// it goes on.
int transfer_status(std::vector<std::string_view> values, unsigned version = 11) {
  auto refusal = mh::check_transfer_encoding(values, version);
  return refusal ? refusal->status : 0;
}

}  // namespace

TEST_CASE("Transfer-Encoding: chunked alone goes on, absent too") {
  CHECK(transfer_status({}) == 0);
  CHECK(transfer_status({"chunked"}) == 0);
  CHECK(transfer_status({"Chunked"}) == 0);
  CHECK(transfer_status({" chunked "}) == 0);
  CHECK(transfer_status({", chunked,"}) == 0);  // empty list elements are ignored
}

TEST_CASE("Transfer-Encoding whose last coding is not chunked is 400") {
  for (auto value : {"gzip", "xchunked", "identity", "chunked, gzip", "chunkedx", "chunked;a=1", "",
                     ",", "chunked, chunked", "gzip, chunked, chunked"}) {
    CAPTURE(value);
    CHECK(transfer_status({value}) == 400);
  }
  // Split over fields: the list is the fields' values in order.
  CHECK(transfer_status({"chunked", "gzip"}) == 400);
  auto refusal = mh::check_transfer_encoding({"gzip"}, 11);
  REQUIRE(refusal);
  CHECK(refusal->message ==
        "Malformed request: the last Transfer-Encoding must be chunked, not 'gzip'");
}

TEST_CASE("a coding before a final chunked is 501: mixerd decodes none") {
  CHECK(transfer_status({"gzip, chunked"}) == 501);
  CHECK(transfer_status({"gzip", "chunked"}) == 501);
  auto refusal = mh::check_transfer_encoding({"deflate, chunked"}, 11);
  REQUIRE(refusal);
  CHECK(refusal->message == "Transfer-Encoding 'deflate' is not supported: only chunked is");
}

TEST_CASE("Transfer-Encoding in an HTTP/1.0 request is 400, whatever it says") {
  CHECK(transfer_status({"chunked"}, 10) == 400);
  CHECK(transfer_status({}, 10) == 0);
}

TEST_CASE("an echoed coding is cut short") {
  const std::string long_coding(500, 'x');
  auto refusal = mh::check_transfer_encoding({long_coding}, 11);
  REQUIRE(refusal);
  CHECK(refusal->message.size() < 200);
}

TEST_CASE("HTTP/1.1 needs exactly one Host, HTTP/1.0 may have none") {
  CHECK_FALSE(mh::check_host_count(1, 11));
  CHECK(mh::check_host_count(0, 11)->status == 400);
  CHECK(mh::check_host_count(2, 11)->status == 400);
  CHECK_FALSE(mh::check_host_count(0, 10));
  CHECK(mh::check_host_count(2, 10)->status == 400);
}

TEST_CASE("Accept-Encoding: gzip when listed and not weighted zero") {
  CHECK(mh::accepts_gzip("gzip"));
  CHECK(mh::accepts_gzip("gzip, deflate, br"));
  CHECK(mh::accepts_gzip("br;q=1.0, GZIP;q=0.5"));
  CHECK(mh::accepts_gzip(" deflate ,x-gzip"));
  CHECK(mh::accepts_gzip("gzip;q=0.001"));
  CHECK_FALSE(mh::accepts_gzip(""));
  CHECK_FALSE(mh::accepts_gzip("identity"));
  CHECK_FALSE(mh::accepts_gzip("br, deflate"));
  CHECK_FALSE(mh::accepts_gzip("gzip;q=0"));
  CHECK_FALSE(mh::accepts_gzip("gzip; Q=0.000"));
  CHECK_FALSE(mh::accepts_gzip("gzipped"));
}

TEST_CASE("If-None-Match: the tag, in a list, weak or any") {
  const std::string_view tag = "\"10-abc\"";
  CHECK(mh::etag_matches("\"10-abc\"", tag));
  CHECK(mh::etag_matches("\"1-x\", \"10-abc\"", tag));
  CHECK(mh::etag_matches("W/\"10-abc\"", tag));
  CHECK(mh::etag_matches("*", tag));
  CHECK_FALSE(mh::etag_matches("", tag));
  CHECK_FALSE(mh::etag_matches("\"10-abd\"", tag));
  CHECK_FALSE(mh::etag_matches("10-abc", tag));
  CHECK_FALSE(mh::etag_matches("\"10-abc\"-gzip", tag));
}
