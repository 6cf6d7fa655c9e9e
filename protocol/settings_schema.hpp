// What a valid settings.json looks like. Pure validation: the settings actor and the
// start-up path read the file, this says whether its content is usable and, if not, which key
// is wrong and why (a broken file stops start-up and names the key).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace mixerd::settings_schema {

struct problem {
  std::string key;      // path of the offending key, e.g. "sliders[2].assignment.type"
  std::string message;  // e.g. "must be an integer from 0 to 65535"
};

// Checks every known key; unknown keys are allowed (newer versions add keys) and kept.
std::optional<problem> validate(const nlohmann::json& settings);

// Defaults for keys that have one (docs/api.md), used when a key is absent.
inline constexpr int default_controller_port = 5000;
inline constexpr int default_toast_port = 8889;
inline constexpr int default_plants_port = 8080;
inline constexpr int default_session_timeout = 86400;
inline constexpr int default_session_max_lifetime = 2'592'000;  // 30 days
inline constexpr int default_ping_interval_ms = 25000;
inline constexpr int default_ping_timeout_ms = 20000;

// True for an IPv4 or IPv6 address literal ("0.0.0.0", "127.0.0.1", "::", "fe80::1").
bool is_ip_address(const std::string& text);

// 1-based line of `key_path` in the file text (best effort), 0 when not found.
int locate_key(std::string_view text, std::string_view key_path);

}  // namespace mixerd::settings_schema
