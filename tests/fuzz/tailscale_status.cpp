// Fuzz target: the output of `tailscale status --json` (protocol/network
// parse_tailscale_status), which the network actor reads from a child process, and the
// GET /api/toast/network body built from it. Checked: a status that is accepted gives an overlay
// whose ip is empty or one IPv4/IPv6 address (no other text), empty unless it runs, and a host
// name that is empty or a DNS name without its trailing dot; the body is valid JSON with one url
// per address, each
// `<scheme>://<host>:<port>`, and a recommended route of the three names.
#include <arpa/inet.h>

#include <string>

#include "protocol/network.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace mixerd;

bool is_address(const std::string& text) {
  unsigned char buffer[16];
  return text.find('\0') == std::string::npos && (inet_pton(AF_INET, text.c_str(), buffer) == 1 ||
                                                  inet_pton(AF_INET6, text.c_str(), buffer) == 1);
}

void check_body(const network_snapshot& facts, const std::string& bind, bool tls,
                const std::string& context) {
  const auto body = network::network_info_to_json(facts, bind, 8889, tls);
  const auto text = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const auto back = nlohmann::json::parse(text, nullptr, false);
  FUZZ_CHECK(back.is_object() && back["addresses"].is_array(), context);
  const std::string scheme = tls ? "https://" : "http://";
  for (const auto& entry : back["addresses"]) {
    const auto& url = entry["url"];
    FUZZ_CHECK(url.is_string(), context);
    const auto& u = url.get_ref<const std::string&>();
    FUZZ_CHECK(u.rfind(scheme, 0) == 0 && u.size() > scheme.size() + 5, context + " -> " + u);
    FUZZ_CHECK(u.compare(u.size() - 5, 5, ":8889") == 0, context + " -> " + u);
  }
  const auto& recommended = back["recommended"];
  FUZZ_CHECK(recommended == "overlay" || recommended == "local" || recommended == "localhost",
             context);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const std::string context(text);
  const auto overlay = network::parse_tailscale_status(text);
  if (!overlay) return 0;
  FUZZ_CHECK(overlay->installed, context);
  FUZZ_CHECK(overlay->ip.empty() || is_address(overlay->ip), context + " -> " + overlay->ip);
  if (!overlay->running) FUZZ_CHECK(overlay->ip.empty(), context);
  // The host name goes into urls: labels of letters, digits and '-', no trailing dot.
  const auto& host = overlay->hostname;
  FUZZ_CHECK(
      host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") ==
          std::string::npos,
      context + " -> " + host);
  FUZZ_CHECK(host.empty() || (host.back() != '.' && host.front() != '.' &&
                              host.find("..") == std::string::npos),
             context + " -> " + host);

  network_snapshot facts;
  facts.interfaces = {{"lo", "127.0.0.1"}, {"eth0", "192.168.1.20"}, {"eth0", "fe80::1"}};
  if (!overlay->ip.empty()) facts.interfaces.push_back({"tailscale0", overlay->ip});
  facts.overlay = *overlay;
  for (const char* bind : {"0.0.0.0", "::", "127.0.0.1"})
    for (const bool tls : {false, true})
      check_body(facts, bind, tls, context);
  // The overlay without an interface of its own (user-space networking).
  facts.interfaces.resize(3);
  check_body(facts, "0.0.0.0", true, context);
  if (!overlay->ip.empty()) check_body(facts, overlay->ip, false, context);
  return 0;
}
