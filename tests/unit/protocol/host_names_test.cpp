#include "protocol/host_names.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace mixerd;
using nlohmann::json;

TEST_CASE("host_of strips the port, the brackets and a trailing dot, and lowers the case") {
  CHECK(host_names::host_of("Mixer.Local") == "mixer.local");
  CHECK(host_names::host_of("mixer.local.:5000") == "mixer.local");
  CHECK(host_names::host_of("localhost:") == "localhost");
  CHECK(host_names::host_of("127.0.0.1:8889") == "127.0.0.1");
  CHECK(host_names::host_of("[::1]:5000") == "::1");
  CHECK(host_names::host_of("[FE80::1]") == "fe80::1");
  CHECK(host_names::host_of("my_pi") == "my_pi");
}

TEST_CASE("host_of refuses what is no host[:port]") {
  for (const char* value : {"", ":5000", ".", "::1", "[::1", "[::1]x", "[::1]:50a",
                            "[fe80::1%25eth0]", "[1.2.3.4]", "a..b", "-a.b", "a-.b", "a b", "a/b",
                            "a@b", "mixer.local:5000:1", "mixer.local:-1", "\xc3\xa9.example"}) {
    CAPTURE(value);
    CHECK_FALSE(host_names::host_of(value));
  }
  CHECK_FALSE(host_names::host_of(std::string(64, 'a') + ".example"));
  CHECK(host_names::host_of(std::string(63, 'a') + ".example"));
  CHECK_FALSE(host_names::host_of(std::string("local\0host", 10)));
}

TEST_CASE("the machine's names: localhost, the host name with .local, the overlay, the setting") {
  const auto names = host_names::make_machine_names("MixerPi", "mixer-pi.tail1234.ts.net",
                                                    {"Studio.Example.com", "*.lan"});
  for (const char* served :
       {"localhost", "LOCALHOST:5000", "localhost.", "mixerpi", "mixerpi.local",
        "MixerPi.local.:8889", "mixer-pi.tail1234.ts.net", "studio.example.com", "desk.lan",
        "a.b.lan:80", "127.0.0.1", "10.1.2.3:5000", "[::1]:5000", "[fd7a:115c:a1e0::1]"}) {
    CAPTURE(served);
    CHECK(host_names::served(names, served));
  }
  for (const char* refused :
       {"evil.example", "mixerpi.evil.example", "mixerpi.local.evil", "lan", "example.com",
        "tail1234.ts.net", "localhost.evil.example", "evil-localhost", "", "::1", "127.1"}) {
    CAPTURE(refused);
    CHECK_FALSE(host_names::served(names, refused));
  }
}

TEST_CASE("a dotted host name also answers to its first label, as mDNS announces it") {
  const auto names = host_names::make_machine_names("pi.home.arpa", "", {});
  for (const char* served : {"pi.home.arpa", "pi", "pi.local", "pi.home.arpa.local"}) {
    CAPTURE(served);
    CHECK(host_names::served(names, served));
  }
  CHECK_FALSE(host_names::served(names, "home.arpa"));
  // No host name (gethostname failed) and no overlay: localhost and IP literals only.
  const auto bare = host_names::make_machine_names("", "", {});
  CHECK(bare.names == std::vector<std::string>{"localhost"});
  CHECK(host_names::served(bare, "192.168.1.20:5000"));
  CHECK_FALSE(host_names::served(bare, ".local"));
}

TEST_CASE("allowed_hosts entries: host names and *.name, the rest is skipped") {
  CHECK(host_names::valid_allowed_entry("mixer.example.com"));
  CHECK(host_names::valid_allowed_entry("mixer.example.com."));
  CHECK(host_names::valid_allowed_entry("*.example.com"));
  CHECK(host_names::valid_allowed_entry("*.local"));
  for (const char* bad : {"", "*", "*.", "**.example", "a.*.example", "*example.com", "http://a",
                          "a:80", "[::1]", "a b", ".example"}) {
    CAPTURE(bad);
    CHECK_FALSE(host_names::valid_allowed_entry(bad));
  }
  const json settings = {{"allowed_hosts", {"a.example", 5, "", "*.b.example"}}};
  CHECK(host_names::allowed_from_settings(settings) ==
        std::vector<std::string>{"a.example", "*.b.example"});
  CHECK(host_names::allowed_from_settings(json::object()).empty());
  CHECK(host_names::allowed_from_settings(json{{"allowed_hosts", "a.example"}}).empty());
}
