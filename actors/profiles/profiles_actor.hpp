// The profile actor owns DATA_DIR/profiles/ (docs/api.md, "Audio profiles"; protocol/README.md,
// "Audio profiles"): the list of profiles and which one is current. Creating, saving, renaming
// and deleting write the folder before they answer, so a 200 means the file is on disk. A load
// reads the profile's file and hands its parts to their owners: the mixer (mixer_apply), then
// the macro actor (macro_replace); once both replied it publishes profile_change and keeps the
// name in settings.json (current_profile). It runs detached: every write fsyncs.
//
// A profile file that cannot be read or parsed is logged, listed with its error and never
// written; it may be deleted. The current profile is never empty: on a first start (no profile
// at all) "Default" is made from the initial state.
// Writes are bounded (protocol/profiles.hpp): at most max_profiles, each file at most
// max_profile_bytes, the write budget; saves of one profile close together are written once
// (profile_writes.hpp), and answered once on disk.
// Interface: protocol/profiles.hpp. After every change it publishes a profiles_view.
#pragma once

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_response_promise.hpp>
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "actors/support/capability.hpp"
#include "protocol/hub.hpp"
#include "protocol/macros.hpp"
#include "protocol/mixer.hpp"
#include "protocol/profiles.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"
#include "protocol/write_budget.hpp"

namespace mixerd {

struct profiles_wiring {
  std::string folder;  // DATA_DIR/profiles
  mixer_actor mixer;
  macros_actor macros;  // invalid only in tests without a macro actor: loads skip the macros
  hub_actor hub;
  settings_actor settings;  // may be invalid in tests
  // Where the current state is read from when a profile is saved.
  std::shared_ptr<const published<mixer_view>> mixer_state;
  std::shared_ptr<const published<macros_view>> macros_state;  // null: the default pages
};

// The folder as the start-up found it (and made it: the folder, Default on a first start).
struct profiles_opened {
  std::vector<profile_summary> profiles;  // sorted by name
  std::string current;
  bool current_changed = false;  // current is not what settings.json says: the actor saves it
};

// Lists the folder (removing temporaries of writes a kill cut short), makes Default from
// `initial` when there is no usable profile, and picks the current one: settings.json's
// current_profile when it names a profile, else Default, else the first usable one.
// Synchronous, at start-up: initial_state lists the profiles from the first connection on.
profiles_opened open_profiles(const std::string& folder, const nlohmann::json& settings,
                              const profile_content& initial);

// The state to save: the mixer's and the macro actor's latest views.
profile_content current_content(const profiles_wiring& wiring);

// Saves of one profile waiting to be written together (profile_writes.hpp).
struct pending_save {
  profiles::profile_file file;  // the latest
  std::size_t cost = 0;         // promised to the write budget
  std::vector<caf::typed_response_promise<profile_outcome>> waiting;
};

struct profiles_state {
  profiles_wiring wiring;
  std::vector<profile_summary> profiles;  // sorted by name
  std::string current;
  std::shared_ptr<published<profiles_view>> view;
  // The bounds of what it writes (protocol/profiles.hpp): the budget of the last minute's
  // writes, the saves held back to be written together, and when each profile was written last
  // (entries older than save_coalesce_delay are dropped).
  write_budget budget{profiles::write_budget_bytes, profiles::write_budget_window,
                      profiles::write_min_cost};
  std::map<std::string, pending_save> pending;
  std::size_t pending_cost = 0;  // the sum of their costs
  std::map<std::string, std::chrono::steady_clock::time_point> written_at;
  bool flush_scheduled = false;
  static inline const char* name = "profiles";
};

// The profile actor's full interface: its public one plus the timer of held-back saves.
using profiles_impl = profiles_actor::extend<caf::reacts_to<caf::tick_atom>>;

profiles_impl::behavior_type profiles_behavior(profiles_impl::stateful_pointer<profiles_state> self,
                                               profiles_wiring wiring, profiles_opened opened,
                                               std::shared_ptr<published<profiles_view>> view);

// Its row of the capability table (actors/profiles/profiles_capability.cpp).
const capability& profiles_capability();

}  // namespace mixerd
