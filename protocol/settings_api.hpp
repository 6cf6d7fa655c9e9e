// The settings API's rules (docs/api.md, "Settings"): how the settings are shown (secrets
// masked), how a JSON merge patch (RFC 7396) changes them, which changes need a trusted caller,
// and how a change is summed up for the history. Pure: the settings actor applies them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace mixerd::settings_api {

// What a set secret reads as; written back, it leaves the secret as it is.
inline constexpr std::string_view secret_mask = "********";

// The settings as GET /api/settings shows them: every value the schema marks writeOnly is
// secret_mask when set and "" when not (a secret key the settings leave out, at the top or
// inside an object they hold, reads as "").
nlohmann::json redact(const nlohmann::json& settings, const nlohmann::json& schema);

// The settings without their secrets: every value the schema marks writeOnly is left out (for an
// export that must not carry them).
nlohmann::json without_secrets(const nlohmann::json& settings, const nlohmann::json& schema);

// For an import without secrets: a top-level secret `imported` leaves out keeps its `running`
// value; a secret inside an object (an integration's token) is kept only when the object's other
// members are the running ones, so that a token never follows a changed URL to another host.
void carry_secrets(nlohmann::json& imported, const nlohmann::json& running,
                   const nlohmann::json& schema);

// For a rollback or an import, which restore configuration: every value the schema marks live
// state (x-live: the mutes, the master volume, the current page and profile) takes its `running`
// value (or is left out when `running` has none), so that going back does not move a fader.
void keep_live(nlohmann::json& restored, const nlohmann::json& running,
               const nlohmann::json& schema);

// Applies `patch` to `target` as RFC 7396 says (null removes a member, an object merges, any
// other value replaces), except that secret_mask written where the schema marks a value
// writeOnly leaves that value as it is. A patch that is not an object replaces `target` whole.
void merge_patch(nlohmann::json& target, const nlohmann::json& patch, const nlohmann::json& schema);

// The top-level keys whose values differ between `before` and `after` (added, removed or
// changed), in sorted order.
std::vector<std::string> changed_keys(const nlohmann::json& before, const nlohmann::json& after);

// The changed values as key paths ("smarthome.url", "sliders[2].label"), sorted: an object's
// members and an equally long array's elements are followed down, anything else is named where
// it differs.
std::vector<std::string> changed_paths(const nlohmann::json& before, const nlohmann::json& after);

// The same, without what the schema marks live state ("x-live": the mutes, the master volume,
// the current macro page and profile): the paths a history entry is kept for. Empty when only
// live state changed.
std::vector<std::string> configuration_paths(const nlohmann::json& before,
                                             const nlohmann::json& after,
                                             const nlohmann::json& schema);

// "smarthome.url, sliders[2].label": at most `shown` paths, then "and N more". Consecutive paths
// of one object's members read as one: "macros.pages.0[1] (name, type)".
std::string summary(const std::vector<std::string>& paths, std::size_t shown = 6);

// The first of `keys` that only a trusted caller may change (login, or a local client: a key
// holding a secret or an access rule, protocol/README.md "Who may change what"); empty when
// none.
std::string first_guarded(const std::vector<std::string>& keys);

// The 403 sentence for changing `key` without a trusted caller.
std::string needs_trust_text(std::string_view key);

}  // namespace mixerd::settings_api
