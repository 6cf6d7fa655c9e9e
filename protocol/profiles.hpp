// The audio profile capability (docs/api.md, "Audio profiles"): a named snapshot of the sliders,
// the mutes, the master volume and the macro pages, kept as one file per profile in
// DATA_DIR/profiles/; the messages of the profile actor. Pure: no I/O.
#pragma once

#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>
#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/events.hpp"
#include "protocol/macros.hpp"
#include "protocol/mixer.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"

namespace mixerd {

// ---- Events (protocol/events.hpp) ---------------------------------------------------------

struct profile_change {
  static constexpr std::string_view wire_name = "profile_change";
  static constexpr bool for_clients = true;
  std::string profile;
  nlohmann::json to_json() const;
};

// What a profile holds besides its name: the mixer's part and the macro pages.
struct profile_content {
  mixer_snapshot mix;    // sliders (label, assignment, value, enforce_volume), mutes, volume
  macro_replace macros;  // page names and pages
};

// A profile as GET /api/profiles lists it (without its content).
struct profile_summary {
  std::string name;
  std::string icon;
  std::string created;  // local time, ISO 8601 without zone, to the second
  std::string updated;
  std::string error;  // the file is broken on disk: what is wrong (listed, never overwritten)
};

// ---- Requests to the profile actor -----------------------------------------------------------
// Each answers a profile_outcome; `body` is what the route answers with on success.

// Applies the profile (mixer, then macros), then publishes profile_change and makes it current.
struct profile_load {
  std::string name;
};
// Saves the current state as a new profile (exists: 409).
struct profile_create {
  std::string name;
  std::string icon;
};
// Saves the current state into an existing profile; optionally a new icon and a new name. With
// `keep_content` only the name and icon change (an edit: what the profile holds stays).
struct profile_save {
  std::string name;
  std::optional<std::string> icon;
  std::optional<std::string> new_name;
  bool keep_content = false;
};
// Deletes a profile (the current one: 409).
struct profile_delete {
  std::string name;
};
// Every profile with its content, for the configuration's export: the body is a JSON array of
// what profile_get answers, by name; a broken profile file is left out (and logged).
struct profiles_export {};
// An import: profiles that replace the folder's (defined below, after profile_file).
struct profiles_replace;
// One profile with its content.
struct profile_get {
  std::string name;
};
struct profile_outcome {
  // broken: the profile's file cannot be read or parsed (it is left untouched). too_many: a
  // create past max_profiles; too_large: a profile past max_profile_bytes; too_fast: the write
  // budget is spent (retry_after).
  enum class result {
    ok,
    not_found,
    exists,
    is_current,
    invalid,
    failed,
    broken,
    too_many,
    too_large,
    too_fast
  };
  result what = result::ok;
  std::string error;    // a sentence for the client when not ok
  nlohmann::json body;  // ok: what the route answers with (its shape depends on the request)
  int retry_after = 0;  // too_fast: whole seconds until the write would fit
};

// What the profile actor publishes after every change (GET /api/profiles, /api/profiles/current,
// initial_state.profiles).
struct profiles_view {
  std::vector<profile_summary> profiles;  // sorted by name
  std::string current;
};

using profiles_actor = caf::typed_actor<caf::replies_to<profile_load>::with<profile_outcome>,
                                        caf::replies_to<profile_create>::with<profile_outcome>,
                                        caf::replies_to<profile_save>::with<profile_outcome>,
                                        caf::replies_to<profile_delete>::with<profile_outcome>,
                                        caf::replies_to<profile_get>::with<profile_outcome>,
                                        caf::replies_to<profiles_export>::with<profile_outcome>,
                                        caf::replies_to<profiles_replace>::with<profile_outcome>,
                                        caf::reacts_to<settings_reloaded>>;

namespace profiles {

// Bounds (protocol/README.md, "Audio profiles").
inline constexpr std::size_t max_name_bytes = 64;
inline constexpr std::size_t max_icon_bytes = 64;
inline constexpr std::size_t max_label_bytes = 64;  // as a slider label set through the API
inline constexpr std::size_t max_file_bytes = 4 * 1024 * 1024;
inline constexpr int max_json_depth = 16;  // nlohmann's dump recurses: bounded before parsing
inline constexpr std::size_t max_timestamp_bytes = 32;
// What the daemon writes (docs/api.md, "Audio profiles"). Each profile copies the macro set (up
// to macros::max_set_bytes), so without bounds 30 creates wrote 66 MB in a second. A create past
// max_profiles, or a profile whose file would pass max_profile_bytes, is refused (507); so is a
// write that would pass the write budget (429): write_budget_bytes a write_budget_window, each
// write counted as its file's size, at least write_min_cost (so at most 256 small writes a
// minute). Saves of one profile that come within save_coalesce_delay of its last write are
// written once, together, that long after it.
inline constexpr std::size_t max_profiles = 100;
inline constexpr std::size_t max_profile_bytes = 2 * 1024 * 1024;
inline constexpr std::size_t write_budget_bytes = 16 * 1024 * 1024;
inline constexpr auto write_budget_window = std::chrono::seconds(60);
inline constexpr std::size_t write_min_cost = 64 * 1024;
inline constexpr auto save_coalesce_delay = std::chrono::milliseconds(250);
// "Default": made from the initial state on first start.
inline constexpr std::string_view default_name = "Default";
// The settings key of the current profile's name.
inline constexpr std::string_view current_key = "current_profile";

// ---- Names and file names ---------------------------------------------------------------------
// A name is 1 to 64 bytes of valid UTF-8 without control characters (C0, DEL, C1). Empty when it
// is one; else a sentence naming `field`, e.g. "name must be 1 to 64 bytes".
std::string name_problem(std::string_view name, std::string_view field = "name");

// The HTTP status of an outcome (docs/api.md, "Audio profiles"): 404 not found, 409 exists, is
// the current one or is broken on disk, 400 invalid, 500 failed, 507 too many or too large, 429
// too fast.
int status_of(profile_outcome::result what);

// The file name of a profile: every byte outside A-Z a-z 0-9 - _ written %XX (upper-case hex),
// then ".json". Only for valid names: the result has no '/', no '.' before ".json" and no NUL,
// so it always names a file inside the profiles folder.
std::string file_name_of(std::string_view name);
// The profile name a file name stands for: nullopt unless it is exactly what file_name_of gives
// for a valid name (so each profile has one file, and a hand-made "a b.json" is not one).
std::optional<std::string> name_of_file(std::string_view file_name);

// ---- The profile file ---------------------------------------------------------------------------
// {"name", "icon", "created", "updated", "sliders": [4 x {"label", "assignment", "value",
// "enforce_volume"}], "mutes": {"individual": [4 bools], "master"}, "volume": 0-100,
// "macros": {"page_names", "pages"}}.
struct profile_file {
  std::string name;
  std::string icon;
  std::string created;  // local time, ISO 8601 without zone, to the second
  std::string updated;
  profile_content content;
};

struct parsed_profile {
  std::optional<profile_file> file;
  std::string error;  // when no file: the problem, naming the key (and line/column for bad JSON)
};
// Parses and validates the text of a profile file (at most max_file_bytes, nested at most
// max_json_depth deep). Keys beyond the documented ones are ignored.
parsed_profile parse_profile(std::string_view text);
// Pretty JSON (2 spaces) with a trailing newline, the way the file is written.
std::string serialize(const profile_file& file);

// The content as the file and GET /api/profiles/{name} show it: sliders, mutes, volume, macros.
nlohmann::json content_to_json(const profile_content& content);
// Profile objects: {"name", "icon", "created", "updated", "is_current"} (+ "error" for a broken
// file), and with its content for GET /api/profiles/{name}.
nlohmann::json summary_to_json(const profile_summary& summary, bool is_current);
nlohmann::json profile_to_json(const profile_file& file, bool is_current);
// GET /api/profiles and initial_state.profiles: {"profiles": [...], "current": name}.
nlohmann::json to_json(const profiles_view& view);
profile_summary summary_of(const profile_file& file);

// The profile content of a state: the mixer's part and the macro pages (not the current page).
profile_content content_of(const mixer_snapshot& mix, const macro_pages& macros);

}  // namespace profiles

// An import: these profiles replace the folder's (every other profile file is removed); the
// current profile is then the one the imported settings name. Answered with the new list.
struct profiles_replace {
  std::vector<profiles::profile_file> files;
};

namespace macros {
struct kind;
}  // namespace macros

// The profiles' macro kind: profile.
std::vector<macros::kind> profiles_macro_kinds();

namespace settings_schema {
struct part;
}  // namespace settings_schema

// Its key of settings.json: current_profile.
settings_schema::part profiles_settings();

}  // namespace mixerd

// The profiles capability's CAF type-ID block, chained after the macros block
// (docs/architecture.md, "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::profile_load)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::profile_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::profile_create)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::profile_save)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::profile_delete)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::profile_get)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::profiles_export)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::profiles_replace)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_profiles, caf::id_block::mixerd_macros::end)
CAF_ADD_TYPE_ID(mixerd_profiles, (mixerd::profile_load))
CAF_ADD_TYPE_ID(mixerd_profiles, (mixerd::profile_outcome))
CAF_ADD_TYPE_ID(mixerd_profiles, (mixerd::profile_create))
CAF_ADD_TYPE_ID(mixerd_profiles, (mixerd::profile_save))
CAF_ADD_TYPE_ID(mixerd_profiles, (mixerd::profile_delete))
CAF_ADD_TYPE_ID(mixerd_profiles, (mixerd::profile_get))
CAF_ADD_TYPE_ID(mixerd_profiles, (mixerd::profiles_export))
CAF_ADD_TYPE_ID(mixerd_profiles, (mixerd::profiles_replace))
CAF_END_TYPE_ID_BLOCK(mixerd_profiles)
