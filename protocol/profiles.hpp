// The audio profile capability (docs/api.md, "Audio profiles"): a named snapshot of the sliders,
// the mutes, the master volume and the macro pages, kept as one file per profile in
// DATA_DIR/profiles/; the messages of the profile actor. Pure: no I/O.
#pragma once

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "protocol/macros.hpp"
#include "protocol/mixer.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"

namespace mixerd {

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
// -> profile_outcome. Applies the profile (mixer, then macros), then publishes profile_change.
struct profile_load {
  std::string name;
};
struct profile_outcome {
  enum class result { ok, not_found, exists, is_current, invalid, failed };
  result what = result::ok;
  std::string error;    // a sentence for the client when not ok
  nlohmann::json body;  // ok: what the route answers with (its shape depends on the request)
};

// What the profile actor publishes after every change (GET /api/profiles, /api/profiles/current,
// initial_state.profiles).
struct profiles_view {
  std::vector<profile_summary> profiles;  // sorted by name
  std::string current;
};

using profiles_actor = caf::typed_actor<caf::replies_to<profile_load>::with<profile_outcome>,
                                        caf::reacts_to<settings_reloaded>>;

}  // namespace mixerd
