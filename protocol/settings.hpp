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

// get -> whole settings; put -> sets a top-level key, saved soon (coalesced); flush -> saves now
// (true on success); reload -> re-reads the file (SIGHUP); watch -> the watcher receives
// settings_reloaded after every reload.
using settings_actor = caf::typed_actor<caf::replies_to<caf::get_atom>::with<nlohmann::json>,
                                        caf::reacts_to<caf::put_atom, std::string, nlohmann::json>,
                                        caf::replies_to<caf::flush_atom>::with<bool>,
                                        caf::replies_to<reload_atom>::with<bool>,
                                        caf::reacts_to<watch_atom, caf::actor>>;

}  // namespace mixerd

// The settings capability's CAF type-ID block, chained after the core block (docs/architecture.md,
// "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::settings_reloaded)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_settings, caf::id_block::mixerd_core::end)
CAF_ADD_TYPE_ID(mixerd_settings, (mixerd::settings_reloaded))
CAF_END_TYPE_ID_BLOCK(mixerd_settings)
