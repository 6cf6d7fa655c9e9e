#include "protocol/uri.hpp"

#include <doctest/doctest.h>

#include <string>

namespace uri = mixerd::uri;

TEST_CASE("query parameters are found and percent-decoded") {
  CHECK(uri::query_parameter("api_key=abc", "api_key") == "abc");
  CHECK(uri::query_parameter("x=1&api_key=a%2Bb+c&y", "api_key") == "a+b c");
  CHECK(uri::query_parameter("api%5Fkey=z", "api_key") == "z");
  CHECK(uri::query_parameter("api_key", "api_key") == "");
  CHECK_FALSE(uri::query_parameter("", "api_key").has_value());
  CHECK_FALSE(uri::query_parameter("api_keys=1&key=2", "api_key").has_value());
  CHECK(uri::query_parameter("api_key=%zz%4", "api_key") == "%zz%4");
}

TEST_CASE("query parameters: the first of a repeated name wins, empty pairs are skipped") {
  CHECK(uri::query_parameter("api_key=1&api_key=2", "api_key") == "1");
  CHECK(uri::query_parameter("&&api_key=x&", "api_key") == "x");
  CHECK(uri::query_parameter("api_key=", "api_key") == "");
  CHECK(uri::query_parameter("api+key=1", "api key") == "1");  // '+' is a space in names too
  CHECK(uri::query_parameter("a=b=c", "a") == "b=c");
}

TEST_CASE("percent_decode decodes %XX and leaves malformed escapes alone") {
  CHECK(uri::percent_decode("/api/toast/send") == "/api/toast/send");
  CHECK(uri::percent_decode("%2Fplants%2f1") == "/plants/1");
  CHECK(uri::percent_decode("a%20b") == "a b");
  CHECK(uri::percent_decode("%41%42%43") == "ABC");
  CHECK(uri::percent_decode("%") == "%");
  CHECK(uri::percent_decode("%4") == "%4");
  CHECK(uri::percent_decode("a%4") == "a%4");
  CHECK(uri::percent_decode("%zz") == "%zz");
  CHECK(uri::percent_decode("%4g%41") == "%4gA");
  CHECK(uri::percent_decode("100%") == "100%");
  CHECK(uri::percent_decode("") == "");
  // A decoded NUL is kept as a byte, not an end of text.
  CHECK(uri::percent_decode("a%00b") == std::string("a\0b", 3));
  // Decoding happens once: "%2541" is "%41", not "A".
  CHECK(uri::percent_decode("%2541") == "%41");
}

TEST_CASE("percent_decode: '+' is a space only in a query") {
  CHECK(uri::percent_decode("a+b") == "a+b");
  CHECK(uri::percent_decode("a+b", false) == "a+b");
  CHECK(uri::percent_decode("a+b", true) == "a b");
  CHECK(uri::percent_decode("a%2Bb", true) == "a+b");
}

TEST_CASE("iequals compares ASCII case-insensitively") {
  CHECK(uri::iequals("Authorization", "authorization"));
  CHECK(uri::iequals("X-API-Key", "x-api-key"));
  CHECK(uri::iequals("", ""));
  CHECK(uri::iequals("Bearer", "BEARER"));
  CHECK_FALSE(uri::iequals("Bearer", "Bearer "));
  CHECK_FALSE(uri::iequals("Bearer", "Beare"));
  CHECK_FALSE(uri::iequals("abc", "abd"));
  // Only ASCII letters fold: '[' (0x5B) is not '{' (0x7B) and '@' is not '`'.
  CHECK_FALSE(uri::iequals("[", "{"));
  CHECK_FALSE(uri::iequals("@", "`"));
  // Bytes beyond ASCII compare exactly.
  CHECK(uri::iequals("\xc3\x84", "\xc3\x84"));
  CHECK_FALSE(uri::iequals("\xc3\x84", "\xc3\xa4"));
}

TEST_CASE("urls are split for the client, and only http and https ones are urls") {
  auto u = uri::split_url("HTTPS://Hub.local:8123/api/webhook/x?a=1");
  REQUIRE(u);
  CHECK(u->tls);
  CHECK(u->host == "Hub.local");
  CHECK(u->port == 8123);
  CHECK(u->target == "/api/webhook/x?a=1");
  auto plain = uri::split_url("http://127.0.0.1");
  REQUIRE(plain);
  CHECK(plain->port == 80);
  CHECK(plain->target == "/");
  CHECK(uri::split_url("http://example.com?q")->target == "/?q");
  CHECK(uri::split_url("http://[fe80::1]:81/")->host == "fe80::1");
  for (const char* bad :
       {"", "http://", "http:///x", "http://x:0/", "http://x:65536/", "http://x:/", "http://a b/",
        "http://x/#frag", "file:///etc/passwd", "http://user@x/", "http://[::1/", "//x/"})
    CHECK_MESSAGE(!uri::split_url(bad), bad);
  auto ws = uri::split_url("wss://obs.lan:4455", uri::url_family::ws);
  REQUIRE(ws);
  CHECK(ws->tls);
  CHECK(ws->port == 4455);
  CHECK(ws->target == "/");
  CHECK(uri::split_url("ws://127.0.0.1/", uri::url_family::ws)->port == 80);
  CHECK(!uri::split_url("http://obs.lan:4455", uri::url_family::ws));
  CHECK(!uri::split_url("ws://obs.lan:4455"));
}
