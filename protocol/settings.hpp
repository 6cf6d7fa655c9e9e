// The settings capability: the only owner of settings.json inside the daemon. Other actors read
// their part once at start, change keys through it, and watch it for reloads (SIGHUP).
#pragma once

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "protocol/atoms.hpp"
#include "protocol/events.hpp"

namespace mixerd {

// The whole re-read settings, sent to watchers after SIGHUP.
struct settings_reloaded {
  nlohmann::json settings;
};

// A change through the settings API (PATCH /api/settings): a JSON merge patch (RFC 7396; the
// secret mask leaves a secret as it is), checked whole before anything changes, then saved and
// applied as a reload applies it. `trusted`: the caller may change keys holding secrets or access
// rules (protocol/README.md, "Who may change what").
struct settings_change {
  nlohmann::json patch;
  std::string source;  // who changed it, for the history: "api" or "web"
  bool trusted = false;
};

// 200 with the settings as they are now (unredacted: the gateway masks the secrets), or the
// status and the sentence naming the key: 400 a bad value, 403 a key that needs a trusted
// caller, 409 settings.json cannot be written now (broken on disk, or locked).
struct settings_change_result {
  int status = 200;
  std::string error;
  nlohmann::json settings;
};

// An import (POST /api/config/import): `settings` replaces the whole file, checked and applied as
// a change; secrets it leaves out are carried over (settings_api::carry_secrets).
struct settings_replace {
  nlohmann::json settings;
  std::string source;
  bool trusted = false;
};

// The configuration's history, newest first: {"history": [{"id", "time", "source", "summary"}]}.
struct settings_history_request {};

// Back to the version before history entry `id` (POST /api/config/rollback): checked and applied
// as a change (source "rollback", itself a new entry); 404 when there is no such entry.
struct settings_rollback {
  std::string id;
  bool trusted = false;
};

// get -> whole settings; put -> sets a top-level key, saved soon (coalesced); flush -> saves now
// (true on success); reload -> re-reads the file (SIGHUP); watch -> the watcher receives
// settings_reloaded after every reload and every change through the API.
using settings_actor =
    caf::typed_actor<caf::replies_to<caf::get_atom>::with<nlohmann::json>,
                     caf::reacts_to<caf::put_atom, std::string, nlohmann::json>,
                     caf::replies_to<caf::flush_atom>::with<bool>,
                     caf::replies_to<reload_atom>::with<bool>,
                     caf::replies_to<settings_change>::with<settings_change_result>,
                     caf::replies_to<settings_history_request>::with<nlohmann::json>,
                     caf::replies_to<settings_rollback>::with<settings_change_result>,
                     caf::replies_to<settings_replace>::with<settings_change_result>,
                     caf::reacts_to<watch_atom, caf::actor>>;

}  // namespace mixerd

// The settings capability's CAF type-ID block, chained after the core block (docs/architecture.md,
// "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::settings_reloaded)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::settings_change)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::settings_change_result)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::settings_history_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::settings_rollback)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::settings_replace)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_settings, caf::id_block::mixerd_core::end)
CAF_ADD_TYPE_ID(mixerd_settings, (mixerd::settings_reloaded))
CAF_ADD_TYPE_ID(mixerd_settings, (mixerd::settings_change))
CAF_ADD_TYPE_ID(mixerd_settings, (mixerd::settings_change_result))
CAF_ADD_TYPE_ID(mixerd_settings, (mixerd::settings_history_request))
CAF_ADD_TYPE_ID(mixerd_settings, (mixerd::settings_rollback))
CAF_ADD_TYPE_ID(mixerd_settings, (mixerd::settings_replace))
CAF_END_TYPE_ID_BLOCK(mixerd_settings)
