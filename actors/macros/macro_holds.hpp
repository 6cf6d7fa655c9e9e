// The hold kinds' buttons (hold_mute, hold_unmute; protocol/README.md, "Macros"): a press runs
// the kind's command as a run like any other, and the slot is held until its release, which
// sends the kind's release command. A release never overtakes its press: one that comes while
// the press's run still goes on is sent when the run ends. A hold of a device button ends when
// the link is lost; any other (the API's) when no press renewed it for macros::api_hold_lease.
// The owner of what is held (the mixer) keeps the state to restore; this side only knows which
// slots are held.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "actors/macros/macros_actor.hpp"

namespace mixerd::macro_holds {

using self_ptr = macros_impl::stateful_pointer<macros_state>;

// The argument `holder` the kind's commands get: the slot, "page:index".
std::string holder_of(int page, int index);

// A press of a slot that is already held renews the hold and runs nothing: true then.
bool renew(self_ptr self, int page, int index, bool from_device);
// Run `run` started for a press of a hold kind: the slot is held from now on.
void begin(self_ptr self, int page, int index, std::uint64_t run, const nlohmann::json& fields,
           bool from_device);
// The button came up: false when the slot was not held.
bool release(self_ptr self, int page, int index);
// The device's button `index` came up: the hold it made, on whichever page it was made.
bool release_device_button(self_ptr self, int index);
// Run `run` ended: a release that came while it ran is sent now.
void run_ended(self_ptr self, std::uint64_t run);
// The device link was lost: no release can come, every hold of its buttons ends now.
void release_device(self_ptr self);
// A lease armed by an API press may have run out.
void on_lapsed(self_ptr self, const macro_hold_lapsed& lapsed);

}  // namespace mixerd::macro_holds
