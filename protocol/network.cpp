#include "protocol/network.hpp"

#include "protocol/host_names.hpp"
#include "protocol/settings_schema.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace mixerd::network {

namespace {

// inet_pton reads a C string: text after a NUL would be ignored, so "100.64.0.1\0junk" (JSON
// may carry \u0000) would pass as an address. Such text is not one.
bool has_nul(std::string_view text) {
  return text.find('\0') != std::string_view::npos;
}

std::optional<std::uint32_t> ipv4(std::string_view address) {
  if (has_nul(address)) return std::nullopt;
  in_addr a{};
  if (inet_pton(AF_INET, std::string(address).c_str(), &a) != 1) return std::nullopt;
  return ntohl(a.s_addr);
}

std::optional<std::array<unsigned char, 16>> ipv6(std::string_view address) {
  if (has_nul(address)) return std::nullopt;
  std::array<unsigned char, 16> out{};
  if (inet_pton(AF_INET6, std::string(address).c_str(), out.data()) != 1) return std::nullopt;
  return out;
}

bool v4_in(std::string_view address, std::uint32_t net, int bits) {
  auto a = ipv4(address);
  const std::uint32_t mask = bits == 0 ? 0 : ~std::uint32_t{0} << (32 - bits);
  return a && (*a & mask) == net;
}

constexpr const char* this_computer = "This computer";
constexpr const char* local_network = "Local network";
constexpr const char* overlay_network = "Overlay network";

struct route {
  std::string ip;
  std::string host;  // for the url: an address in brackets for IPv6, or a name
  const char* type;
  bool overlay = false;
};

std::string url_host(const std::string& address) {
  return is_ipv6(address) ? "[" + address + "]" : address;
}

bool on_overlay(const interface_address& a, const overlay_status& overlay) {
  return a.interface.rfind("tailscale", 0) == 0 || in_overlay_range(a.address) ||
         (!overlay.ip.empty() && a.address == overlay.ip);
}

// Interface addresses a client can use with `bind`: IPv4 for 0.0.0.0, IPv4 and IPv6 for ::.
// Loopback is the "localhost" route; IPv6 link-local needs a zone and is left out.
bool listed(const interface_address& a, bool with_v6) {
  if (is_loopback(a.address)) return false;
  if (is_ipv6(a.address)) return with_v6 && !is_link_local(a.address);
  return ipv4(a.address).has_value();
}

}  // namespace

bool is_ipv4(std::string_view address) {
  return ipv4(address).has_value();
}

bool is_ipv6(std::string_view address) {
  return ipv6(address).has_value();
}

bool is_loopback(std::string_view address) {
  if (v4_in(address, 0x7F000000U, 8)) return true;
  auto a = ipv6(address);
  static constexpr std::array<unsigned char, 16> one{0, 0, 0, 0, 0, 0, 0, 0,
                                                     0, 0, 0, 0, 0, 0, 0, 1};
  return a && *a == one;
}

bool is_link_local(std::string_view address) {
  if (v4_in(address, 0xA9FE0000U, 16)) return true;
  auto a = ipv6(address);
  return a && (*a)[0] == 0xFE && ((*a)[1] & 0xC0) == 0x80;
}

bool in_overlay_range(std::string_view address) {
  if (v4_in(address, 0x64400000U, 10)) return true;  // 100.64.0.0/10
  auto a = ipv6(address);
  static constexpr std::array<unsigned char, 6> prefix{0xFD, 0x7A, 0x11, 0x5C, 0xA1, 0xE0};
  return a && std::equal(prefix.begin(), prefix.end(), a->begin());
}

std::optional<std::array<unsigned char, 16>> address_bytes(std::string_view address) {
  if (auto v6 = ipv6(address)) return v6;
  auto v4 = ipv4(address);
  if (!v4) return std::nullopt;
  std::array<unsigned char, 16> out{};
  out[10] = out[11] = 0xFF;
  for (int i = 0; i < 4; ++i)
    out[12 + i] = static_cast<unsigned char>(*v4 >> (24 - 8 * i));
  return out;
}

std::string address_text(const std::array<unsigned char, 16>& bytes) {
  static constexpr std::array<unsigned char, 12> mapped{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
  std::array<char, INET6_ADDRSTRLEN> text{};
  if (std::equal(mapped.begin(), mapped.end(), bytes.begin()))
    inet_ntop(AF_INET, bytes.data() + 12, text.data(), text.size());
  else
    inet_ntop(AF_INET6, bytes.data(), text.data(), text.size());
  return text.data();
}

std::string client_of(std::string_view address) {
  auto bytes = ipv6(address);
  if (!bytes) return std::string(address);
  std::fill(bytes->begin() + 8, bytes->end(), 0);
  std::array<char, INET6_ADDRSTRLEN> text{};
  inet_ntop(AF_INET6, bytes->data(), text.data(), text.size());
  return std::string(text.data()) + "/64";
}

bool is_host_name(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  std::size_t label = 0;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    const char c = i < name.size() ? name[i] : '.';
    if (c == '.') {
      if (label == 0 || label > 63 || name[i - 1] == '-') return false;
      label = 0;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || (c == '-' && label > 0)) {
      ++label;
    } else {
      return false;
    }
  }
  return true;
}

std::optional<overlay_status> parse_tailscale_status(std::string_view json_text) {
  auto doc = nlohmann::json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  auto state = doc.find("BackendState");
  if (state == doc.end() || !state->is_string()) return std::nullopt;
  overlay_status out;
  out.installed = true;
  out.running = state->get_ref<const std::string&>() == "Running";
  const nlohmann::json* self = nullptr;
  if (auto it = doc.find("Self"); it != doc.end() && it->is_object()) self = &*it;
  // Self.TailscaleIPs; older versions also list them at the top level.
  const nlohmann::json* ips = nullptr;
  if (self && self->contains("TailscaleIPs")) ips = &(*self)["TailscaleIPs"];
  if (!ips && doc.contains("TailscaleIPs")) ips = &doc["TailscaleIPs"];
  if (ips && ips->is_array()) {
    for (const auto& ip : *ips)
      if (ip.is_string() && ipv4(ip.get_ref<const std::string&>())) {
        out.ip = ip.get<std::string>();
        break;
      }
    if (out.ip.empty())
      for (const auto& ip : *ips)
        if (ip.is_string() && is_ipv6(ip.get_ref<const std::string&>())) {
          out.ip = ip.get<std::string>();
          break;
        }
  }
  if (self)
    if (auto dns = self->find("DNSName"); dns != self->end() && dns->is_string()) {
      out.hostname = dns->get<std::string>();
      if (!out.hostname.empty() && out.hostname.back() == '.') out.hostname.pop_back();
      // It goes into urls: anything but a host name ("a..", "x/y", "") counts as none.
      if (!is_host_name(out.hostname)) out.hostname.clear();
    }
  if (!out.running) out.ip.clear();  // no route while it is stopped or logged out
  return out;
}

overlay_status overlay_from_interfaces(const std::vector<interface_address>& interfaces) {
  overlay_status out;
  for (const auto& a : interfaces) {
    if (!(a.interface.rfind("tailscale", 0) == 0 || in_overlay_range(a.address))) continue;
    out.installed = out.running = true;
    if (out.ip.empty() || (is_ipv6(out.ip) && !is_ipv6(a.address))) out.ip = a.address;
  }
  return out;
}

nlohmann::json network_info_to_json(const network_snapshot& facts, const std::string& bind,
                                    std::uint16_t port, bool tls) {
  const auto& overlay = facts.overlay;
  std::vector<route> routes;
  auto add = [&](route r) {
    auto same = [&](const route& o) { return o.ip == r.ip; };
    if (std::none_of(routes.begin(), routes.end(), same)) routes.push_back(std::move(r));
  };
  const bool any_v4 = bind == "0.0.0.0";
  const bool any = any_v4 || bind == "::";
  if (any) {
    add({"localhost", "localhost", this_computer});
    for (const auto& a : facts.interfaces)
      if (listed(a, !any_v4) && !on_overlay(a, overlay))
        add({a.address, url_host(a.address), local_network});
    for (const auto& a : facts.interfaces)
      if (listed(a, !any_v4) && on_overlay(a, overlay))
        add({a.address, url_host(a.address), overlay_network, true});
    // The overlay may run in user space, without an interface of its own.
    if (overlay.running && !overlay.ip.empty() && (!any_v4 || !is_ipv6(overlay.ip)))
      add({overlay.ip, url_host(overlay.ip), overlay_network, true});
  } else if (is_loopback(bind)) {
    add({bind, url_host(bind), this_computer});
  } else {
    bool ovl = in_overlay_range(bind) || (!overlay.ip.empty() && bind == overlay.ip) ||
               std::any_of(facts.interfaces.begin(), facts.interfaces.end(),
                           [&](const interface_address& a) {
                             return a.address == bind && on_overlay(a, overlay);
                           });
    add({bind, url_host(bind), ovl ? overlay_network : local_network, ovl});
  }

  auto addresses = nlohmann::json::array();
  bool has_overlay = false;
  bool has_local = false;
  const std::string scheme = tls ? "https://" : "http://";
  for (const auto& r : routes) {
    // With a certificate, the overlay's name is what the certificate is for.
    std::string host = r.overlay && tls && !overlay.hostname.empty() ? overlay.hostname : r.host;
    nlohmann::json entry{
        {"ip", r.ip}, {"url", scheme + host + ":" + std::to_string(port)}, {"type", r.type}};
    if (r.overlay) entry["overlay"] = true;
    if (tls) entry["https"] = true;
    addresses.push_back(std::move(entry));
    has_overlay = has_overlay || r.overlay;
    has_local = has_local || std::strcmp(r.type, local_network) == 0;
  }
  const char* recommended = has_overlay && overlay.running ? "overlay"
                            : has_local                    ? "local"
                                                           : "localhost";
  return {{"status", "success"},
          {"addresses", std::move(addresses)},
          {"overlay",
           {{"installed", overlay.installed},
            {"running", overlay.running},
            {"ip", overlay.ip},
            {"hostname", overlay.hostname}}},
          {"recommended", recommended}};
}

}  // namespace mixerd::network

namespace mixerd {

// ---- Settings: the names served besides the machine's own -------------------------------------

namespace {

using json = nlohmann::json;

// A list of host names (or "*.name") served besides the machine's own (docs/api.md).
std::optional<settings_schema::problem> check_allowed_hosts(const json& s) {
  auto it = s.find("allowed_hosts");
  if (it == s.end()) return std::nullopt;
  if (!it->is_array() || it->size() > host_names::max_allowed_hosts)
    return settings_schema::problem{
        "allowed_hosts", "must be an array of at most " +
                             std::to_string(host_names::max_allowed_hosts) + " host names"};
  for (std::size_t i = 0; i < it->size(); ++i) {
    const auto& entry = (*it)[i];
    if (!entry.is_string() || !host_names::valid_allowed_entry(entry.get_ref<const std::string&>()))
      return settings_schema::problem{
          "allowed_hosts[" + std::to_string(i) + "]",
          "must be a host name such as \"mixer.example.com\" or \"*.example.com\""};
  }
  return std::nullopt;
}

}  // namespace

settings_schema::part network_settings() {
  return {"network",
          {settings_schema::guarded(
              {"allowed_hosts",
               {{"type", "array"},
                {"items", {{"type", "string"}}},
                {"maxItems", host_names::max_allowed_hosts},
                {"default", json::array()},
                {"description",
                 "Host names (or *.name) every listener serves besides the machine's own names, "
                 "e.g. mixer.example.com"}},
               check_allowed_hosts})}};
}

}  // namespace mixerd
