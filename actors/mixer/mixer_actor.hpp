// The mixer actor owns the sliders (value, assignment, label), the four mutes and the master
// mute, and the master volume. Device input and API requests change them; it hands the result
// to the audio actor (which applies it to the audio server), tells the device what it cannot
// know itself, publishes the change on the hub and persists what must survive a restart
// (labels, assignments, mutes, master volume) through the settings actor. Outside changes of
// the default sink come back from the audio actor as master_observed and become state too.
//
// Messages:
//   (get_atom)            -> mixer_snapshot
//   event                 from the hub: device_input, device_status_change; from the audio
//                         actor: audio_status_change
//   master_observed       from the audio actor: the default sink changed outside mixerd
//   settings_reloaded     from the settings actor after SIGHUP
//   set_slider_value      -> int         API: the device is told (VOL), unlike a device report
//   set_slider_assignment -> assignment  persisted; assignment_change published
//   toggle_mute           -> bool        the resulting mute
//   set_master_volume     -> int
#pragma once

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "protocol/types.hpp"

namespace mixerd {

struct mixer_state {
  mixer_snapshot mix;
  caf::actor device;
  caf::actor hub;
  caf::actor settings;
  caf::actor audio;
  std::uint64_t master_seq = 0;  // master changes sent to the audio actor
  static inline const char* name = "mixer";
};

struct mixer_wiring {
  caf::actor device;
  caf::actor hub;
  caf::actor settings;
  caf::actor audio;
};

// Reads the persisted part of the mixer (sliders, mutes, master_volume) from settings.
// Settings were validated on load, so absent or odd keys keep the defaults.
mixer_snapshot mixer_from_settings(const nlohmann::json& settings);

caf::behavior mixer_actor(caf::stateful_actor<mixer_state>* self, mixer_wiring wiring,
                          nlohmann::json settings);

}  // namespace mixerd
