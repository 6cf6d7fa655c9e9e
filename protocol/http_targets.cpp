#include "protocol/http_targets.hpp"

#include <algorithm>
#include <cctype>

#include "protocol/network.hpp"
#include "protocol/validation.hpp"

namespace mixerd::http_targets {

namespace {

using bytes = std::array<unsigned char, 16>;

enum class place { elsewhere, this_machine, link_local, not_unicast };

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "localhost" and its subdomains always mean this machine (RFC 6761), whatever a resolver says.
bool names_localhost(std::string_view host) {
  auto h = lower(host);
  return h == "localhost" || (h.size() > 10 && h.compare(h.size() - 10, 10, ".localhost") == 0);
}

bool in_network(const bytes& a, const bytes& net, int prefix) {
  for (int bit = 0; bit < prefix; ++bit) {
    const int i = bit / 8;
    const unsigned char mask = static_cast<unsigned char>(0x80U >> (bit % 8));
    if ((a[i] & mask) != (net[i] & mask)) return false;
  }
  return true;
}

place place_of(const bytes& a, const std::vector<std::string>& machine_addresses) {
  const auto text = network::address_text(a);
  // 0.0.0.0/8 and :: reach this machine on Linux, like loopback.
  static const bytes unspecified{};
  static const bytes zero_net = *network::address_bytes("0.0.0.0");
  if (network::is_loopback(text) || a == unspecified || in_network(a, zero_net, 104))
    return place::this_machine;
  for (const auto& mine : machine_addresses)
    if (auto m = network::address_bytes(mine); m && *m == a) return place::this_machine;
  if (network::is_link_local(text)) return place::link_local;
  static const bytes v4_multicast = *network::address_bytes("224.0.0.0");
  static const bytes broadcast = *network::address_bytes("255.255.255.255");
  if (a[0] == 0xFF || in_network(a, v4_multicast, 100) || a == broadcast) return place::not_unicast;
  for (const auto& mine : machine_addresses)
    if (auto m = network::address_bytes(mine); m && *m == a) return place::this_machine;
  return place::elsewhere;
}

bool allowed(const std::vector<allow_entry>& allow, const bytes* address, std::string_view host,
             int port) {
  const auto name = lower(host);
  return std::any_of(allow.begin(), allow.end(), [&](const allow_entry& e) {
    if (e.port != 0 && e.port != port) return false;
    if (!e.name.empty()) return e.name == name;
    return address != nullptr && in_network(*address, e.address, e.prefix);
  });
}

bool own_port(const rule& r, int port) {
  return std::find(r.own_ports.begin(), r.own_ports.end(), port) != r.own_ports.end();
}

// A port written as decimal digits from 1 to 65535 (the path rule of validation.hpp).
std::optional<int> port_of(std::string_view text) {
  std::string ignored;
  return validation::index_segment(text, "port", 1, 65535, ignored);
}

// One entry's text; "" when it reads, else the problem.
std::string read_entry(std::string_view text, allow_entry& out) {
  if (text.empty() || text.size() > max_allow_entry_bytes)
    return "must be a host name, an address or a network of 1 to " +
           std::to_string(max_allow_entry_bytes) + " bytes";
  std::string_view host = text;
  std::string_view port;
  if (host.front() == '[') {
    auto close = host.find(']');
    if (close == std::string_view::npos) return "has a '[' without its ']'";
    port = host.substr(close + 1);
    host = host.substr(1, close - 1);
    if (!port.empty()) {
      if (port.front() != ':') return "must end after ']' or go on with ':port'";
      port.remove_prefix(1);
    }
  } else if (auto colon = host.rfind(':');
             colon != std::string_view::npos && host.find(':') == colon) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (!port.empty() || (text.back() == ':')) {
    auto p = port_of(port);
    if (!p) return "has a port that is not a number from 1 to 65535";
    out.port = *p;
  }
  if (auto slash = host.find('/'); slash != std::string_view::npos) {
    if (out.port != 0) return "names a network and a port: a network takes every port";
    auto a = network::address_bytes(host.substr(0, slash));
    auto bits = port_of(host.substr(slash + 1));  // 1-65535 first, then the family's range
    const bool v4 = network::is_ipv4(host.substr(0, slash));
    if (!a || !bits || *bits > (v4 ? 32 : 128))
      return "must be a network such as 127.0.0.0/8 or fe80::/10";
    out.address = *a;
    out.prefix = *bits + (v4 ? 96 : 0);
    return "";
  }
  if (auto a = network::address_bytes(host)) {
    out.address = *a;
    return "";
  }
  if (!network::is_host_name(host)) return "must be a host name, an address or a network";
  out.name = lower(host);
  return "";
}

}  // namespace

std::optional<std::vector<allow_entry>> parse_allow(const nlohmann::json& list, std::string& key,
                                                    std::string& error) {
  std::vector<allow_entry> out;
  if (list.is_null()) return out;
  key = std::string(allow_key);
  if (!list.is_array() || list.size() > max_allow_entries) {
    error = "must be a list of at most " + std::to_string(max_allow_entries) + " strings";
    return std::nullopt;
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    key = std::string(allow_key) + "[" + std::to_string(i) + "]";
    if (!list[i].is_string()) {
      error = "must be a string";
      return std::nullopt;
    }
    allow_entry entry;
    error = read_entry(list[i].get_ref<const std::string&>(), entry);
    if (!error.empty()) return std::nullopt;
    out.push_back(std::move(entry));
  }
  return out;
}

std::string check_url(const uri::url_parts& url, const rule& r) {
  auto address = network::address_bytes(url.host);
  if (!address && !names_localhost(url.host)) return "";  // checked once it is resolved
  const auto where =
      address ? place_of(*address, {}) : place::this_machine;  // localhost is this machine
  const std::string shown = url.host + ":" + std::to_string(url.port);
  if (where == place::not_unicast) return "url must name one host, not " + url.host;
  if (where == place::this_machine && own_port(r, url.port))
    return "url targets mixerd's own listener (" + shown + "), which a macro may not call";
  if (where == place::elsewhere) return "";
  if (allowed(r.allow, address ? &*address : nullptr, url.host, url.port)) return "";
  return "url targets " +
         std::string(where == place::link_local ? "a link-local" : "this machine's") +
         " address (" + shown + "); name it in " + std::string(allow_key) + " to allow it";
}

std::string check_address(std::string_view address, const uri::url_parts& url, const rule& r,
                          const std::vector<std::string>& machine_addresses) {
  auto a = network::address_bytes(address);
  if (!a) return "the lookup gave no address";
  const auto where =
      names_localhost(url.host) ? place::this_machine : place_of(*a, machine_addresses);
  const std::string shown = network::address_text(*a) + " port " + std::to_string(url.port);
  if (where == place::not_unicast) return url.host + " resolved to " + shown + ", not one host";
  if (where == place::this_machine && own_port(r, url.port))
    return url.host + " resolved to mixerd's own listener (" + shown + ")";
  if (where == place::elsewhere) return "";
  if (allowed(r.allow, &*a, url.host, url.port)) return "";
  return url.host + " resolved to " +
         (where == place::link_local ? "a link-local address" : "this machine") + " (" + shown +
         "), which " + std::string(allow_key) + " does not name";
}

}  // namespace mixerd::http_targets
