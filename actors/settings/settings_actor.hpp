// The settings actor: the only owner of settings.json inside the daemon. Other actors read
// their part once at start and change keys through it; it coalesces writes, does each write as
// a locked read-modify-write (so set-password/api-key changes made meanwhile are kept), and
// re-reads the file on SIGHUP, telling watchers.
// Interface: protocol/settings.hpp.
#pragma once

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "actors/settings/config_history.hpp"
#include "actors/support/capability.hpp"
#include "actors/support/settings_file.hpp"
#include "protocol/settings.hpp"

namespace mixerd {

struct settings_state {
  settings_file::paths paths;
  nlohmann::json current = nlohmann::json::object();
  nlohmann::json pending = nlohmann::json::object();  // keys changed since the last save
  std::vector<std::string> removed;  // keys to leave out of the file at the next save
  nlohmann::json schema;             // settings_schema::document(), made once
  std::optional<config_history> history;
  bool flush_scheduled = false;
  std::vector<caf::actor> watchers;
  static inline const char* name = "settings";
};

// The settings actor's full interface: its public one plus its coalescing timer.
using settings_impl = settings_actor::extend<caf::reacts_to<caf::tick_atom>>;

settings_impl::behavior_type settings_behavior(settings_impl::stateful_pointer<settings_state> self,
                                               settings_file::paths paths, nlohmann::json initial);

// Its row of the capability table (actors/settings/settings_capability.cpp).
const capability& settings_capability();

}  // namespace mixerd
