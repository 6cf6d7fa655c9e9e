#include "protocol/mdns.hpp"

#include <doctest/doctest.h>

#include "protocol/types.hpp"

using namespace mixerd;

TEST_CASE("mdns: on unless the setting is false") {
  CHECK(mdns::enabled_in(nlohmann::json::object()));
  CHECK(mdns::enabled_in({{"mdns", true}}));
  CHECK_FALSE(mdns::enabled_in({{"mdns", false}}));
}

TEST_CASE("mdns: the instance name names the host and fits one DNS label") {
  CHECK(mdns::instance_name("pi") == "mixerd on pi");
  CHECK(mdns::instance_name("") == "mixerd on localhost");
  const auto long_name = mdns::instance_name(std::string(100, 'x'));
  CHECK(long_name.size() == mdns::max_name_bytes);
  // A two-byte character across the limit is left out whole.
  std::string host(52, 'a');
  host += "\xC3\xA9";  // é at bytes 62-63 of the name
  const auto cut = mdns::instance_name(host);
  CHECK(cut == "mixerd on " + std::string(52, 'a'));
}

TEST_CASE("mdns: both services with the port and TXT path and version, https with TLS") {
  const auto plain = mdns::records_for({5000, false});
  REQUIRE(plain.size() == 2);
  CHECK(plain[0].type == "_http._tcp");
  CHECK(plain[1].type == "_mixerd._tcp");
  const std::vector<std::string> txt{"path=/", "version=" + std::string(app_version)};
  for (const auto& r : plain) {
    CHECK(r.port == 5000);
    CHECK(r.txt == txt);
  }
  const auto tls = mdns::records_for({443, true});
  CHECK(tls[0].type == "_https._tcp");
  CHECK(tls[1].type == "_mixerd._tcp");
  CHECK(tls[1].port == 443);
}
