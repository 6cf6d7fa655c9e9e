// The mixer actor owns the sliders (value, assignment, label), the four mutes and the master
// mute, and the master volume. Device input and (later) API requests change them; it applies
// the result through the audio backend, tells the device what it cannot know itself, publishes
// the change on the hub and persists what must survive a restart (labels, assignments, mutes,
// master volume) through the settings actor.
//
// Messages:
//   (get_atom)            -> mixer_snapshot
//   event                 from the hub: device_input, device_status_change
//   settings_reloaded     from the settings actor after SIGHUP
//   set_slider_value      -> int         API: the device is told (VOL), unlike a device report
//   set_slider_assignment -> assignment  persisted; assignment_change published
//   toggle_mute           -> bool        the resulting mute
//   set_master_volume     -> int
//   (get_atom, sessions_atom) -> audio_sessions
#pragma once

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "actors/audio/audio_backend.hpp"
#include "protocol/types.hpp"

namespace mixerd {

struct mixer_state {
  mixer_snapshot mix;
  caf::actor device;
  caf::actor hub;
  caf::actor settings;
  std::shared_ptr<audio_backend> audio;
  static inline const char* name = "mixer";
};

struct mixer_wiring {
  caf::actor device;
  caf::actor hub;
  caf::actor settings;
  std::shared_ptr<audio_backend> audio;
};

// Reads the persisted part of the mixer (sliders, mutes, master_volume) from settings.
// Settings were validated on load, so absent or odd keys keep the defaults.
mixer_snapshot mixer_from_settings(const nlohmann::json& settings);

caf::behavior mixer_actor(caf::stateful_actor<mixer_state>* self, mixer_wiring wiring,
                          nlohmann::json settings);

}  // namespace mixerd
