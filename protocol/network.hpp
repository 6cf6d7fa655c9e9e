// How the notification interface can be reached (docs/api.md, "Network info"
// "Network info"): address classification, the overlay's state from `tailscale status --json`,
// and the GET /api/toast/network body. Pure: the network actor gathers the facts.
#pragma once

#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/toast.hpp"

namespace mixerd {

// One address of a network interface, as getifaddrs reports it.
struct interface_address {
  std::string interface;  // "eth0", "tailscale0", ...
  std::string address;    // "192.168.1.20", "fd7a:115c:a1e0::1"
};

// The overlay object of GET /api/toast/network.
struct overlay_status {
  bool installed = false;
  bool running = false;
  std::string ip;        // first IPv4 address on the overlay; "" when none
  std::string hostname;  // MagicDNS name without the trailing dot; "" when unknown
};

// -> reply to (get_atom) at the network actor.
struct network_snapshot {
  std::vector<interface_address> interfaces;
  overlay_status overlay;
};

namespace network {

// Whole text is one address (text holding a NUL never is).
bool is_ipv4(std::string_view address);
bool is_ipv6(std::string_view address);
bool is_loopback(std::string_view address);    // 127.0.0.0/8, ::1
bool is_link_local(std::string_view address);  // 169.254.0.0/16, fe80::/10
// 100.64.0.0/10 (the overlay's IPv4 range) or fd7a:115c:a1e0::/48 (its IPv6 range).
bool in_overlay_range(std::string_view address);
// An address as 16 bytes, IPv4 as ::ffff:a.b.c.d (nullopt for text that is none), and back
// (the IPv4 form for a mapped one).
std::optional<std::array<unsigned char, 16>> address_bytes(std::string_view address);
std::string address_text(const std::array<unsigned char, 16>& bytes);

// The client an address counts as in per-client limits: the address itself, or
// "<prefix>::/64" for IPv6 (a client usually gets a whole /64, so counting each of its addresses
// apart would give it millions of places). Text that is no IPv6 address stays as it is.
std::string client_of(std::string_view address);

// A host name as urls and Host headers carry it: dot-separated labels of letters, digits, '-'
// and '_' (1-63 bytes each, '-' not first or last), at most 253 bytes, no trailing dot.
bool is_host_name(std::string_view name);

// The overlay seen in `tailscale status --json`; nullopt when the text is not such a status.
// running = BackendState "Running"; ip = first IPv4 of Self.TailscaleIPs; hostname =
// Self.DNSName without its trailing dot.
std::optional<overlay_status> parse_tailscale_status(std::string_view json_text);

// Without the tailscale command: an interface named tailscale* or an address in 100.64.0.0/10
// means an overlay that runs.
overlay_status overlay_from_interfaces(const std::vector<interface_address>& interfaces);

// The body of GET /api/toast/network: the routes the listener is really reachable on for its
// bind address, with url, type, overlay and https, and the recommended route.
nlohmann::json network_info_to_json(const network_snapshot& facts, const std::string& bind_address,
                                    std::uint16_t port, bool tls);

}  // namespace network

// The network capability: how this machine can be reached (interfaces, overlay). Each get
// gathers fresh facts (the overlay's answer is kept a few seconds).
using network_actor = caf::typed_actor<caf::replies_to<caf::get_atom>::with<network_snapshot>>;

namespace settings_schema {
struct part;
}  // namespace settings_schema

// Its key of settings.json: allowed_hosts.
settings_schema::part network_settings();

}  // namespace mixerd

// The network capability's CAF type-ID block, chained after the toast block (docs/architecture.md,
// "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::network_snapshot)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_network, caf::id_block::mixerd_toast::end)
CAF_ADD_TYPE_ID(mixerd_network, (mixerd::network_snapshot))
CAF_END_TYPE_ID_BLOCK(mixerd_network)
