#include "protocol/network.hpp"

#include <doctest/doctest.h>

#include <string>

using json = nlohmann::json;
using mixerd::interface_address;
using mixerd::network_snapshot;
using mixerd::overlay_status;
namespace network = mixerd::network;

namespace {

// Shortened from a real `tailscale status --json` (1.58) on a Raspberry Pi.
const char* recorded_status = R"({
  "Version": "1.58.2-t0e7b9b1b2-g8c7e9a1b5",
  "TUN": true,
  "BackendState": "Running",
  "AuthURL": "",
  "TailscaleIPs": ["100.101.102.103", "fd7a:115c:a1e0::1f01:6667"],
  "Self": {
    "ID": "nKx8f3CNTRL",
    "PublicKey": "nodekey:3f1c0d2e",
    "HostName": "mixer-pi",
    "DNSName": "mixer-pi.tail1234.ts.net.",
    "OS": "linux",
    "UserID": 123456789,
    "TailscaleIPs": ["100.101.102.103", "fd7a:115c:a1e0::1f01:6667"],
    "Online": true
  },
  "MagicDNSSuffix": "tail1234.ts.net",
  "CurrentTailnet": {"Name": "someone@example.com", "MagicDNSSuffix": "tail1234.ts.net"},
  "Peer": {}
})";

network_snapshot facts(std::vector<interface_address> interfaces, overlay_status overlay = {}) {
  return {std::move(interfaces), std::move(overlay)};
}

overlay_status running_overlay() {
  return *network::parse_tailscale_status(recorded_status);
}

}  // namespace

TEST_CASE("address classes") {
  CHECK(network::is_loopback("127.0.0.1"));
  CHECK(network::is_loopback("127.0.0.2"));
  CHECK(network::is_loopback("::1"));
  CHECK_FALSE(network::is_loopback("128.0.0.1"));
  CHECK(network::in_overlay_range("100.64.0.0"));
  CHECK(network::in_overlay_range("100.101.102.103"));
  CHECK(network::in_overlay_range("100.127.255.255"));
  CHECK_FALSE(network::in_overlay_range("100.63.255.255"));
  CHECK_FALSE(network::in_overlay_range("100.128.0.0"));
  CHECK(network::in_overlay_range("fd7a:115c:a1e0::1"));
  CHECK_FALSE(network::in_overlay_range("fd7a:115c:a1e1::1"));
  CHECK_FALSE(network::in_overlay_range("not an address"));
  CHECK(network::is_link_local("169.254.3.4"));
  CHECK(network::is_link_local("fe80::1"));
  CHECK_FALSE(network::is_link_local("192.168.1.2"));
  CHECK(network::is_ipv6("::"));
  CHECK_FALSE(network::is_ipv6("10.0.0.1"));
}

TEST_CASE("an IPv6 client is its /64 network, an IPv4 one its address") {
  CHECK(network::client_of("2001:db8:1:2:aaaa:bbbb:cccc:dddd") == "2001:db8:1:2::/64");
  CHECK(network::client_of("::1") == "::/64");
  CHECK(network::client_of("192.0.2.7") == "192.0.2.7");
  CHECK(network::client_of("not an address") == "not an address");
  CHECK(network::client_of(std::string("::1\0x", 5)) == std::string("::1\0x", 5));
}

TEST_CASE("host names: labels of letters, digits, '-' and '_', '-' not at a label's ends") {
  for (const char* good : {"mixer-pi", "mixer-pi.tail1234.ts.net", "pi_2.home.arpa", "a", "x9"})
    CHECK(network::is_host_name(good));
  for (const char* bad : {"", "a..b", ".a", "a.", "-a", "a-", "a.-b", "x/y", "a b", "a:80"})
    CHECK_FALSE(network::is_host_name(bad));
  CHECK(network::is_host_name(std::string(63, 'a')));
  CHECK_FALSE(network::is_host_name(std::string(64, 'a')));
}

TEST_CASE("tailscale status: running, first IPv4, DNS name without the dot") {
  auto o = running_overlay();
  CHECK(o.installed);
  CHECK(o.running);
  CHECK(o.ip == "100.101.102.103");
  CHECK(o.hostname == "mixer-pi.tail1234.ts.net");
}

TEST_CASE("tailscale status: stopped, logged out, or not a status") {
  auto stopped = network::parse_tailscale_status(
      R"({"BackendState": "Stopped", "Self": {"DNSName": "pi.ts.net.", "TailscaleIPs": ["100.70.1.2"]}})");
  REQUIRE(stopped);
  CHECK(stopped->installed);
  CHECK_FALSE(stopped->running);
  CHECK(stopped->ip.empty());
  CHECK(stopped->hostname == "pi.ts.net");
  auto logged_out =
      network::parse_tailscale_status(R"({"BackendState": "NeedsLogin", "Self": null})");
  REQUIRE(logged_out);
  CHECK_FALSE(logged_out->running);
  CHECK(logged_out->hostname.empty());
  CHECK_FALSE(network::parse_tailscale_status(""));
  CHECK_FALSE(network::parse_tailscale_status("failed to connect to local tailscaled"));
  CHECK_FALSE(network::parse_tailscale_status(R"({"Self": {}})"));
  CHECK_FALSE(network::parse_tailscale_status("[1, 2]"));
}

TEST_CASE("tailscale status: a DNSName that is no host name gives no hostname") {
  // Found by fuzzing: "pi.ts.net.." kept a trailing dot; the name goes into urls.
  auto with_name = [](const std::string& name) {
    auto o = network::parse_tailscale_status(R"({"BackendState": "Running", "Self": {"DNSName": )" +
                                             nlohmann::json(name).dump() + "}}");
    REQUIRE(o);
    return o->hostname;
  };
  CHECK(with_name("pi.tail1234.ts.net.") == "pi.tail1234.ts.net");
  CHECK(with_name("mixer-pi") == "mixer-pi");
  for (const char* bad : {"pi.ts.net..", ".", "a b.ts.net", "x/y", "-a.ts.net", "a-.ts.net", "a..b",
                          "caf\xc3\xa9.ts.net"})
    CHECK(with_name(bad).empty());
  CHECK(with_name(std::string(64, 'a')).empty());
}

TEST_CASE("tailscale status: an address followed by a NUL is no address") {
  // Found by fuzzing: inet_pton read the text up to the NUL and took the whole string.
  auto o = network::parse_tailscale_status(
      R"({"BackendState": "Running", "Self": {"TailscaleIPs": ["100.64.0.1\u0000x", "fd7a:115c:a1e0::5\u0000"]}})");
  REQUIRE(o);
  CHECK(o->ip.empty());
  CHECK_FALSE(network::in_overlay_range(std::string("100.64.0.1\0", 11)));
  CHECK_FALSE(network::is_ipv6(std::string("::1\0", 4)));
}

TEST_CASE("without the command, an overlay interface or address stands for the overlay") {
  auto none = network::overlay_from_interfaces({{"lo", "127.0.0.1"}, {"eth0", "192.168.1.20"}});
  CHECK_FALSE(none.installed);
  CHECK_FALSE(none.running);
  auto by_name = network::overlay_from_interfaces({{"eth0", "192.168.1.20"},
                                                   {"tailscale0", "fd7a:115c:a1e0::5"},
                                                   {"tailscale0", "100.80.1.2"}});
  CHECK(by_name.installed);
  CHECK(by_name.running);
  CHECK(by_name.ip == "100.80.1.2");
  auto by_range = network::overlay_from_interfaces({{"ts", "100.99.1.1"}});
  CHECK(by_range.running);
  CHECK(by_range.ip == "100.99.1.1");
}

TEST_CASE("bind 0.0.0.0: localhost, every IPv4 interface address, the overlay marked") {
  auto body = network::network_info_to_json(facts({{"lo", "127.0.0.1"},
                                                   {"eth0", "192.168.1.20"},
                                                   {"eth0", "fe80::1"},
                                                   {"wlan0", "10.0.0.7"},
                                                   {"tailscale0", "100.101.102.103"}},
                                                  running_overlay()),
                                            "0.0.0.0", 8889, false);
  CHECK(body["status"] == "success");
  CHECK(
      body["addresses"] ==
      json::array(
          {{{"ip", "localhost"}, {"url", "http://localhost:8889"}, {"type", "This computer"}},
           {{"ip", "192.168.1.20"}, {"url", "http://192.168.1.20:8889"}, {"type", "Local network"}},
           {{"ip", "10.0.0.7"}, {"url", "http://10.0.0.7:8889"}, {"type", "Local network"}},
           {{"ip", "100.101.102.103"},
            {"url", "http://100.101.102.103:8889"},
            {"type", "Overlay network"},
            {"overlay", true}}}));
  CHECK(body["overlay"] == json{{"installed", true},
                                {"running", true},
                                {"ip", "100.101.102.103"},
                                {"hostname", "mixer-pi.tail1234.ts.net"}});
  CHECK(body["recommended"] == "overlay");
}

TEST_CASE("an overlay without an interface (user-space networking) is still a route") {
  auto body = network::network_info_to_json(facts({{"eth0", "192.168.1.20"}}, running_overlay()),
                                            "0.0.0.0", 8889, false);
  REQUIRE(body["addresses"].size() == 3);
  CHECK(body["addresses"][2]["ip"] == "100.101.102.103");
  CHECK(body["addresses"][2]["overlay"] == true);
  CHECK(body["recommended"] == "overlay");
}

TEST_CASE("with HTTPS every route says so, and the overlay route uses its name") {
  auto body = network::network_info_to_json(facts({{"eth0", "192.168.1.20"}}, running_overlay()),
                                            "0.0.0.0", 8889, true);
  for (const auto& a : body["addresses"])
    CHECK(a["https"] == true);
  CHECK(body["addresses"][0]["url"] == "https://localhost:8889");
  CHECK(body["addresses"][1]["url"] == "https://192.168.1.20:8889");
  CHECK(body["addresses"][2]["url"] == "https://mixer-pi.tail1234.ts.net:8889");
  CHECK(body["addresses"][2]["ip"] == "100.101.102.103");
}

TEST_CASE("recommended: local without an overlay, localhost without a network") {
  auto local =
      network::network_info_to_json(facts({{"eth0", "192.168.1.20"}}), "0.0.0.0", 1, false);
  CHECK(local["recommended"] == "local");
  CHECK_FALSE(local["addresses"][1].contains("overlay"));
  CHECK_FALSE(local["addresses"][1].contains("https"));
  auto alone = network::network_info_to_json(facts({{"lo", "127.0.0.1"}}), "0.0.0.0", 1, false);
  CHECK(alone["addresses"].size() == 1);
  CHECK(alone["recommended"] == "localhost");
  overlay_status stopped;
  stopped.installed = true;
  auto off = network::network_info_to_json(facts({{"eth0", "192.168.1.20"}}, stopped), "0.0.0.0", 1,
                                           false);
  CHECK(off["recommended"] == "local");
  CHECK(off["overlay"]["installed"] == true);
  CHECK(off["overlay"]["running"] == false);
}

TEST_CASE("a specific bind address is the only route") {
  auto all =
      facts({{"eth0", "192.168.1.20"}, {"tailscale0", "100.101.102.103"}}, running_overlay());
  auto loop = network::network_info_to_json(all, "127.0.0.1", 8889, false);
  CHECK(loop["addresses"] ==
        json::array(
            {{{"ip", "127.0.0.1"}, {"url", "http://127.0.0.1:8889"}, {"type", "This computer"}}}));
  CHECK(loop["recommended"] == "localhost");
  auto lan = network::network_info_to_json(all, "192.168.1.20", 8889, false);
  CHECK(lan["addresses"].size() == 1);
  CHECK(lan["addresses"][0]["type"] == "Local network");
  CHECK(lan["recommended"] == "local");
  auto ovl = network::network_info_to_json(all, "100.101.102.103", 8889, false);
  CHECK(ovl["addresses"][0]["overlay"] == true);
  CHECK(ovl["recommended"] == "overlay");
}

TEST_CASE("bind :: adds IPv6 addresses in brackets, never link-local ones") {
  auto body = network::network_info_to_json(
      facts({{"eth0", "192.168.1.20"}, {"eth0", "fe80::1"}, {"eth0", "2001:db8::5"}}), "::", 80,
      false);
  REQUIRE(body["addresses"].size() == 3);
  CHECK(body["addresses"][2]["url"] == "http://[2001:db8::5]:80");
}
