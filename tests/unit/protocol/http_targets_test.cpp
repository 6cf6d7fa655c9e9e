#include "protocol/http_targets.hpp"

#include <doctest/doctest.h>

#include <string>

using json = nlohmann::json;
namespace targets = mixerd::http_targets;
namespace uri = mixerd::uri;

namespace {

targets::rule rule_of(const json& allow, std::vector<std::uint16_t> own = {5000, 8889, 8080}) {
  std::string key;
  std::string error;
  auto entries = targets::parse_allow(allow, key, error);
  REQUIRE_MESSAGE(entries, key, ": ", error);
  return {*entries, std::move(own)};
}

std::string saved(const std::string& url, const targets::rule& r) {
  return targets::check_url(*uri::split_url(url), r);
}

std::string resolved(const std::string& url, const std::string& address, const targets::rule& r,
                     const std::vector<std::string>& mine = {"192.168.1.20", "fe80::1"}) {
  return targets::check_address(address, *uri::split_url(url), r, mine);
}

}  // namespace

TEST_CASE("http targets: the allow list reads names, addresses and networks, with ports") {
  auto r = rule_of(json::array(
      {"localhost:8123", "127.0.0.1", "[::1]:9000", "169.254.0.0/16", "fe80::/10", "Hub.Local"}));
  REQUIRE(r.allow.size() == 6);
  CHECK(r.allow[0].name == "localhost");
  CHECK(r.allow[0].port == 8123);
  CHECK(r.allow[1].name.empty());
  CHECK(r.allow[1].prefix == 128);
  CHECK(r.allow[2].port == 9000);
  CHECK(r.allow[3].prefix == 96 + 16);
  CHECK(r.allow[4].prefix == 10);
  CHECK(r.allow[5].name == "hub.local");
  CHECK(rule_of(json(nullptr)).allow.empty());
}

TEST_CASE("http targets: a bad entry names its index and the problem") {
  auto refused = [](const json& list) {
    std::string key;
    std::string error;
    CHECK_FALSE(targets::parse_allow(list, key, error));
    return key + " " + error;
  };
  CHECK(refused(json::array({"ok.local", 5})) == "http_macro_allow[1] must be a string");
  CHECK(refused(json::array({"10.0.0.0/8:80"}))
            .find("http_macro_allow[0] names a network and a "
                  "port") == 0);
  CHECK(refused(json::array({"localhost:0"})).find("port") != std::string::npos);
  CHECK(refused(json::array({"127.0.0.0/33"})).find("network") != std::string::npos);
  CHECK(refused(json::array({"bad host"})).find("[0] must be a host name") != std::string::npos);
  CHECK(refused(json::array({"[::1"})).find("']'") != std::string::npos);
  CHECK(refused(json("127.0.0.1")).find("http_macro_allow must be a list") == 0);
}

TEST_CASE("http targets: saving refuses this machine and link-local unless allowed") {
  auto none = rule_of(json::array());
  CHECK(saved("http://hub.local/lamp", none).empty());  // a name is checked once resolved
  CHECK(saved("http://192.168.1.50/lamp", none).empty());
  CHECK(saved("http://127.0.0.1:8123/x", none).find("this machine") != std::string::npos);
  CHECK(saved("http://localhost:8123/x", none).find("http_macro_allow") != std::string::npos);
  CHECK(saved("http://[::1]:8123/x", none).find("this machine") != std::string::npos);
  CHECK(saved("http://0.0.0.0:8123/x", none).find("this machine") != std::string::npos);
  CHECK(saved("http://[::ffff:127.0.0.1]:8123/", none).find("this machine") != std::string::npos);
  CHECK(saved("http://169.254.169.254/latest", none).find("link-local") != std::string::npos);
  CHECK(saved("http://224.0.0.1/", none).find("one host") != std::string::npos);

  auto some = rule_of(json::array({"localhost:8123", "169.254.0.0/16"}));
  CHECK(saved("http://localhost:8123/x", some).empty());
  CHECK_FALSE(saved("http://localhost:8124/x", some).empty());  // another port
  CHECK_FALSE(saved("http://127.0.0.1:8123/x", some).empty());  // the name was allowed, not this
  CHECK(saved("http://169.254.169.254/latest", some).empty());
}

TEST_CASE("http targets: mixerd's own listeners are refused even when allowed") {
  auto all = rule_of(json::array({"127.0.0.0/8", "localhost", "::1"}));
  CHECK(saved("http://127.0.0.1:8123/", all).empty());
  CHECK(saved("http://127.0.0.1:5000/api/macros/trigger", all).find("own listener") !=
        std::string::npos);
  CHECK(saved("http://localhost:8889/", all).find("own listener") != std::string::npos);
  CHECK(resolved("http://127.0.0.1:8080/", "127.0.0.1", all).find("own listener") !=
        std::string::npos);
  // The machine's LAN address is this machine too.
  CHECK(resolved("http://pi.local:5000/", "192.168.1.20", all).find("own listener") !=
        std::string::npos);
}

TEST_CASE("http targets: after the lookup every address is checked, names as written") {
  auto none = rule_of(json::array());
  CHECK(resolved("http://hub.local/", "192.168.1.50", none).empty());
  // A name that points at this machine (DNS rebinding, or the machine's own name).
  CHECK(resolved("http://evil.example/", "127.0.0.1", none).find("this machine") !=
        std::string::npos);
  CHECK(resolved("http://pi.local:8123/", "192.168.1.20", none).find("this machine") !=
        std::string::npos);
  CHECK(resolved("http://evil.example/", "::ffff:169.254.169.254", none).find("link-local") !=
        std::string::npos);
  CHECK(resolved("http://hub.local/", "fe80::1", none).find("this machine") != std::string::npos);
  CHECK(resolved("http://evil.example/", "0.0.0.0", none).find("this machine") !=
        std::string::npos);

  auto named = rule_of(json::array({"ha.local:8123", "192.168.1.20:9000"}));
  CHECK(resolved("http://ha.local:8123/", "192.168.1.20", named).empty());
  CHECK_FALSE(resolved("http://other.local:8123/", "192.168.1.20", named).empty());
  CHECK(resolved("http://other.local:9000/", "192.168.1.20", named).empty());
  // localhost is this machine whatever the lookup said.
  CHECK_FALSE(resolved("http://localhost:8123/", "192.168.1.50", none).empty());
}
