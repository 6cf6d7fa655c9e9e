// Where an `http` macro may send its request (protocol/README.md, "Outgoing HTTP"). mixerd must
// not become a tool that reaches what only this machine can reach: the services listening on
// loopback, on the machine's own addresses and on link-local ones (routers' and cloud hosts'
// metadata). Those targets are refused unless the setting `http_macro_allow` names them, and
// mixerd's own listeners are refused always (a macro calling mixerd's API would run macros
// without a person). The rule is checked twice: on the URL as written when a macro is saved,
// and on every address the host name resolves to, just before connecting (a name may point
// anywhere, and may change its answer between the two). Pure: the caller passes the machine's
// addresses and the listeners' ports.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/uri.hpp"

namespace mixerd::http_targets {

inline constexpr std::string_view allow_key = "http_macro_allow";
inline constexpr std::size_t max_allow_entries = 64;
inline constexpr std::size_t max_allow_entry_bytes = 260;

// One entry of `http_macro_allow`: a host name as URLs write it ("localhost", "hub.local"), an
// address ("127.0.0.1", "[::1]") or a network ("127.0.0.0/8", "fe80::/10"); names and addresses
// may add ":port" (a network may not). Without a port every port is allowed.
struct allow_entry {
  std::string name;                         // lower case; empty for an address or a network
  std::array<unsigned char, 16> address{};  // IPv4 as ::ffff:a.b.c.d
  int prefix = 128;                         // bits of `address` that must match
  int port = 0;                             // 0: any
};

// What the check needs: the allowed targets and mixerd's own listening ports.
struct rule {
  std::vector<allow_entry> allow;
  std::vector<std::uint16_t> own_ports;
};

// The ports mixerd listens on (the daemon publishes them once its listeners are bound).
struct own_listeners {
  std::vector<std::uint16_t> ports;
};

// Reads the setting (absent: nothing allowed). nullopt with `key` ("http_macro_allow[2]") and
// `error` for the first bad entry.
std::optional<std::vector<allow_entry>> parse_allow(const nlohmann::json& list, std::string& key,
                                                    std::string& error);

// The URL of a macro being saved, before any lookup: "" when it may be saved, else the sentence
// for the 400 ("url targets this machine (127.0.0.1) ..."). A host name other than localhost is
// checked when the request is made.
std::string check_url(const uri::url_parts& url, const rule& r);

// One address the URL's host resolved to, just before connecting: "" when the request may go
// there, else the reason (for the log; the macro's outcome does not tell it apart from a port
// that is closed). `machine_addresses`: the addresses of this machine's interfaces.
std::string check_address(std::string_view address, const uri::url_parts& url, const rule& r,
                          const std::vector<std::string>& machine_addresses);

}  // namespace mixerd::http_targets
