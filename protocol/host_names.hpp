// Which `Host` values name this machine (the DNS-rebinding defence of all three listeners,
// docs/api.md "Listeners and common rules"): IP literals, `localhost`, the host name and
// `<host>.local`, the overlay's name and the setting `allowed_hosts`. Pure: the network
// capability gathers the names and publishes them; the HTTP core asks `served` per request.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mixerd {

// The names this machine answers to besides IP literals: the network capability's view.
struct machine_names {
  std::vector<std::string> names;     // lower case, without a trailing dot
  std::vector<std::string> suffixes;  // from the "*.example.com" entries: ".example.com"
};

namespace host_names {

// At most this many entries in `allowed_hosts`.
inline constexpr std::size_t max_allowed_hosts = 64;

// A host name: dot-separated labels of letters, digits, '-' and '_' (1-63 bytes each, '-' not
// first or last), at most 253 bytes, one trailing dot allowed.
bool valid_name(std::string_view name);

// An entry of `allowed_hosts`: a host name, or "*." followed by one (every name below it).
bool valid_allowed_entry(std::string_view entry);

// The valid entries of the setting `allowed_hosts` (the schema refuses a file with others).
std::vector<std::string> allowed_from_settings(const nlohmann::json& settings);

// The host of a Host header value (`name`, `name:port`, `1.2.3.4:port`, `[v6]:port`): lower
// case, without the port, the brackets and one trailing dot; nullopt when the value is not such
// a `host[:port]` (a bare IPv6 address, a zone id, an empty name, a byte outside a host name).
std::optional<std::string> host_of(std::string_view header_value);

// `localhost`, the host name (and its first label when it is a dotted name), each of those with
// ".local", the overlay's name (empty: unknown) and the `allowed_hosts` entries.
machine_names make_machine_names(std::string_view host_name, std::string_view overlay_name,
                                 const std::vector<std::string>& allowed);

// True when the Host header value names this machine: an IP literal or one of `names`.
bool served(const machine_names& names, std::string_view header_value);

}  // namespace host_names

}  // namespace mixerd
