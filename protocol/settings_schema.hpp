// What a valid settings.json looks like. Pure validation: the settings actor and the
// start-up path read the file, this says whether its content is usable and, if not, which key
// is wrong and why (a broken file stops start-up and names the key).
//
// The schema is assembled from parts: the daemon's own keys (listeners, Socket.IO, logging,
// metrics) and one part per capability, declared in the capability's protocol source
// (protocol/<cap>.cpp) and listed by its row. Each key has its JSON Schema (draft 2020-12:
// type, description, default, ranges, enums; writeOnly for secrets) and is checked from it, or
// by a check of its own where the wording of a problem or a rule across keys needs one.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mixerd::settings_schema {

struct problem {
  std::string key;      // path of the offending key, e.g. "sliders[2].assignment.type"
  std::string message;  // e.g. "must be an integer from 0 to 65535"
};

// One top-level key of settings.json.
struct key {
  std::string_view name;
  // Its JSON Schema. A boolean, an integer with minimum and maximum, a string (with enum or
  // minLength) is checked from it when `check` is null.
  nlohmann::json schema;
  // Checks the key in the whole settings object (present or not); the first problem.
  std::optional<problem> (*check)(const nlohmann::json& settings) = nullptr;
  // Holds a secret or an access rule: a reload never drops it unless the file says so (see
  // keep_guarded), and null in the file clears it (as if never set).
  bool guarded = false;
  // A rule checked only when a change through the settings API (a patch, a rollback, an import)
  // changes this key: one a file may break at start without harm, but a change must not make
  // (login on without any password would lock every browser out).
  std::optional<problem> (*change_check)(const nlohmann::json& settings) = nullptr;
};

// The keys one capability (or the daemon itself) owns, in the order they are checked.
struct part {
  std::string_view owner;
  std::vector<key> keys;
};

// The daemon's own keys: the listeners' ports and address, Socket.IO, the log level, the
// metrics token.
part daemon_part();

// Installs the parts of every capability (the daemon's first, whatever `parts` holds), for the
// whole process: call once at start-up, before any settings are read. Until then only the
// daemon's part is known.
void install_parts(const std::vector<part>& parts);

// Checks every installed key; unknown keys are allowed (newer versions and capabilities this
// build leaves out add keys) and kept. A guarded key may be null (cleared).
std::optional<problem> validate(const nlohmann::json& settings);

// The change_check of every installed key named in `changed`; the first problem.
std::optional<problem> validate_change(const nlohmann::json& settings,
                                       const std::vector<std::string>& changed);

// The JSON Schema (draft 2020-12) of settings.json: every installed key with its schema.
nlohmann::json document();

// ---- Guarded keys: secrets and access rules (protocol/README.md, "Settings file") --------------
//
// A file re-read on SIGHUP (or rewritten by mixerd) may leave a key out: a truncated edit, a
// file written from an old copy. For most keys the default then applies; a guarded key instead
// keeps its running value, because dropping it would turn a login off, forget a key or token,
// or loosen an access rule nobody asked to loosen. The file mentions a guarded key explicitly
// when it holds the key: a value sets it, null clears it (the default applies, and a generated
// secret is made anew).

// The installed guarded keys, in declaration order.
std::vector<std::string> guarded_keys();
// A key with `guarded` set (for the capabilities' parts).
key guarded(key k);
// Every guarded key that `fresh` leaves out and `running` holds is copied into `fresh`; returns
// their names. A key `fresh` holds, null included, is left alone.
std::vector<std::string> keep_guarded(const nlohmann::json& running, nlohmann::json& fresh);
// Removes every guarded key whose value is null (cleared) from `settings`; returns their names.
// Call it on the settings the actors are given: they never see a null guarded key.
std::vector<std::string> take_cleared(nlohmann::json& settings);

// ---- Helpers of the capabilities' parts ---------------------------------------------------------

// The annotation of a value that is live state the controls change all the time (the mutes, the
// master volume, the current page and profile) rather than configuration: the history keeps no
// version for a change of it alone (protocol/settings_api.hpp).
inline constexpr const char* live_state = "x-live";
// `schema` with the live_state annotation.
nlohmann::json live(nlohmann::json schema);

// {"type": "integer", "minimum", "maximum", "default", "description"}.
nlohmann::json integer_schema(long long lo, long long hi, long long fallback,
                              std::string_view description);
// {"type": "boolean", "default", "description"}.
nlohmann::json boolean_schema(bool fallback, std::string_view description);
// {"type": "string", "minLength": 16, "writeOnly": true, "description"}: a secret the daemon
// makes when absent (a key with this schema is to be declared guarded).
nlohmann::json secret_schema(std::string_view description);
// "must be an integer from lo to hi".
std::string range_text(long long lo, long long hi);

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
