#include "protocol/host_names.hpp"

#include <algorithm>

#include "protocol/network.hpp"

namespace mixerd::host_names {

namespace {

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string lowered(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), lower);
  return out;
}

std::string_view without_trailing_dot(std::string_view name) {
  if (!name.empty() && name.back() == '.') name.remove_suffix(1);
  return name;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

}  // namespace

bool valid_name(std::string_view name) {
  return network::is_host_name(without_trailing_dot(name));
}

bool valid_allowed_entry(std::string_view entry) {
  if (entry.substr(0, 2) == "*.") entry.remove_prefix(2);
  return valid_name(entry);
}

std::vector<std::string> allowed_from_settings(const nlohmann::json& settings) {
  std::vector<std::string> out;
  auto it = settings.find("allowed_hosts");
  if (it == settings.end() || !it->is_array()) return out;
  for (const auto& entry : *it) {
    if (out.size() == max_allowed_hosts) break;
    if (entry.is_string() && valid_allowed_entry(entry.get_ref<const std::string&>()))
      out.push_back(entry.get<std::string>());
  }
  return out;
}

std::optional<std::string> host_of(std::string_view value) {
  if (!value.empty() && value.front() == '[') {
    const auto close = value.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    auto literal = value.substr(1, close - 1);
    auto rest = value.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return std::nullopt;
    if (!rest.empty()) rest.remove_prefix(1);
    if (!std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    // Zone ids ("fe80::1%25eth0") are refused: inet_pton does not read them.
    if (!network::is_ipv6(literal)) return std::nullopt;
    return lowered(literal);
  }
  const auto colon = value.find(':');
  auto host = value.substr(0, colon);
  if (colon != std::string_view::npos) {
    auto port = value.substr(colon + 1);
    if (!std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
  }
  if (!valid_name(host)) return std::nullopt;
  return lowered(without_trailing_dot(host));
}

machine_names make_machine_names(std::string_view host_name, std::string_view overlay_name,
                                 const std::vector<std::string>& allowed) {
  machine_names out;
  const auto add = [&out](std::string_view name) {
    if (!valid_name(name)) return;
    auto text = lowered(without_trailing_dot(name));
    if (std::find(out.names.begin(), out.names.end(), text) == out.names.end())
      out.names.push_back(std::move(text));
  };
  add("localhost");
  host_name = without_trailing_dot(host_name);
  if (valid_name(host_name)) {
    // A host name set as "pi.example.lan": mDNS announces its first label, "pi.local".
    const auto first_label = host_name.substr(0, host_name.find('.'));
    for (auto name : {host_name, first_label}) {
      add(name);
      add(std::string(name) + ".local");
    }
  }
  add(overlay_name);
  for (const auto& entry : allowed) {
    if (!valid_allowed_entry(entry)) continue;
    if (entry.substr(0, 2) == "*.") {
      out.suffixes.push_back(lowered(without_trailing_dot(std::string_view(entry).substr(1))));
    } else {
      add(entry);
    }
  }
  return out;
}

bool served(const machine_names& names, std::string_view header_value) {
  const auto host = host_of(header_value);
  if (!host) return false;
  // host_of keeps a ':' only inside an IPv6 literal it has checked.
  if (host->find(':') != std::string::npos || network::is_ipv4(*host)) return true;
  if (std::find(names.names.begin(), names.names.end(), *host) != names.names.end()) return true;
  return std::any_of(names.suffixes.begin(), names.suffixes.end(),
                     [&](const std::string& suffix) { return ends_with(*host, suffix); });
}

}  // namespace mixerd::host_names
