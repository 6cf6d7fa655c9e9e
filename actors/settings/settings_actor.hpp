// The settings actor: the only owner of settings.json inside the daemon. Other actors read
// their part once at start and change keys through it; it coalesces writes, does each write as
// a locked read-modify-write (so set-password/api-key changes made meanwhile are kept), and
// re-reads the file on SIGHUP, telling watchers.
//
// Messages:
//   (get_atom)                         -> nlohmann::json   whole settings
//   (put_atom, std::string key, json)  -> void             sets a top-level key, saved soon
//   (flush_atom)                       -> bool             saves pending changes now
//   (reload_atom)                      -> bool             re-reads the file (SIGHUP)
//   (watch_atom, caf::actor)           -> void             watcher gets settings_reloaded
#pragma once

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <nlohmann/json.hpp>
#include <vector>

#include "actors/settings/settings_file.hpp"

namespace mixerd {

struct settings_state {
  settings_file::paths paths;
  nlohmann::json current = nlohmann::json::object();
  nlohmann::json pending = nlohmann::json::object();  // keys changed since the last save
  bool flush_scheduled = false;
  std::vector<caf::actor> watchers;
  static inline const char* name = "settings";
};

caf::behavior settings_actor(caf::stateful_actor<settings_state>* self, settings_file::paths paths,
                             nlohmann::json initial);

}  // namespace mixerd
