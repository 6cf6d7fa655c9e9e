// The mixer actor owns the sliders (value, assignment, label), the four mutes and the master
// mute, and the master volume. Device input and API requests change them; it hands the result
// to the audio actor (which applies it to the audio server), tells the device what it cannot
// know itself, publishes the change on the hub and persists what must survive a restart
// (labels, assignments, mutes, master volume) through the settings actor. Outside changes of
// the default sink come back from the audio actor as master_observed and become state too.
// Interface: protocol/mixer.hpp. After every change it publishes a mixer_view for readers.
#pragma once

#include <array>
#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "actors/mixer/mixer_holds.hpp"
#include "actors/support/capability.hpp"
#include "protocol/audio.hpp"
#include "protocol/device.hpp"
#include "protocol/hub.hpp"
#include "protocol/mixer.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"

namespace mixerd {

struct mixer_wiring {
  device_actor device;
  hub_actor hub;
  settings_actor settings;
  audio_actor audio;
};

struct mixer_state {
  mixer_snapshot mix;
  mixer_wiring wiring;
  std::shared_ptr<published<mixer_view>> view;
  bool changed = false;          // since the last published view
  std::uint64_t master_seq = 0;  // master changes sent to the audio actor
  slider_policy policy;
  // Per slider: the direction of the last accepted device move (-1, 0, 1; for the deadband) and
  // the level changes sent to the audio actor.
  std::array<int, limits::slider_count> last_move{};
  std::array<std::uint64_t, limits::slider_count> level_seq{};
  bool device_seen = false;  // the device has connected since start-up
  mute_holds holds;          // the mutes hold buttons hold (mixer_holds.hpp)
  static inline const char* name = "mixer";
};

// Reads the persisted part of the mixer (sliders, mutes, master_volume) from settings.
// Settings were validated on load, so absent or odd keys keep the defaults.
mixer_snapshot mixer_from_settings(const nlohmann::json& settings);
mixer_view mixer_view_of(const mixer_snapshot& mix);

mixer_actor::behavior_type mixer_behavior(mixer_actor::stateful_pointer<mixer_state> self,
                                          mixer_wiring wiring, nlohmann::json settings,
                                          std::shared_ptr<published<mixer_view>> view);

// Its row of the capability table (actors/mixer/mixer_capability.cpp).
const capability& mixer_capability();

}  // namespace mixerd
