// The audio actor owns what mixerd wants the audio server to play (each slider's target, volume
// and mute; master volume and mute) and a mirror of the server's relevant state (default sink and
// source, playback streams), and keeps the two in line through libpulse (pulse_client). It
// connects with back-off, re-applies the desired state after every (re)connect, gives streams
// that appear for an assigned app the slider's level, sets back streams that change their own
// volume (per slider, `enforce`), and reports outside changes of the default sink to its watchers
// as master_observed. Connection changes go to the hub as audio_status; the link and the
// live streams are published as an audio_view. Interface: protocol/audio.hpp.
#pragma once

#include <array>
#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/audio/pulse_client.hpp"
#include "actors/support/back_off.hpp"
#include "actors/support/capability.hpp"
#include "protocol/audio.hpp"
#include "protocol/hub.hpp"
#include "protocol/limits.hpp"
#include "protocol/mixer.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"
#include "protocol/types.hpp"

namespace mixerd {

// What one slider asks of the server.
struct audio_target {
  assignment assigned;
  bool enforce = true;
  audio::volume_curve curve;
  int volume = 50;  // the slider's value, 0-100 (the curve makes it a volume)
  bool muted = false;
  std::uint64_t seq = 0;  // of the mixer's latest audio_slider_level
};

// The server's view of a sink, source or stream, as last reported or as last set by us.
struct audio_mirror {
  std::uint8_t channels = 0;
  std::uint32_t volume_min = 0;
  std::uint32_t volume_max = 0;
  bool muted = false;
  bool writable = true;
};

struct audio_device_mirror : audio_mirror {
  bool known = false;
  std::uint32_t index = 0;
};

struct audio_stream_mirror : audio_mirror {
  audio::app_identity who;
  int slider = -1;  // the slider that controls it (slider_of, as of its last report or change)
  // When it appeared (see settle_time in audio_actor.cpp).
  std::chrono::steady_clock::time_point appeared;
  // Set-backs of a stream that keeps changing its own volume are limited per second.
  std::chrono::steady_clock::time_point window_start;
  int corrections = 0;
  bool recheck_scheduled = false;
};

struct audio_state {
  hub_actor hub;
  std::shared_ptr<published<audio_view>> view;
  audio_policy policy;
  std::array<audio_target, limits::slider_count> sliders;
  int master_volume = 50;
  bool master_muted = false;
  std::uint64_t master_seq = 0;  // of the mixer's latest audio_master_level

  // The server, while connected.
  bool connected = false;  // announced: server info received
  std::string server;
  std::string default_sink;
  std::string default_source;
  audio_device_mirror sink;    // the default sink
  audio_device_mirror source;  // the default source
  bool push_sink = false;      // on its next report, give the default sink the desired state
  bool push_source = false;
  std::map<std::uint32_t, audio_stream_mirror> streams;
  std::map<audio_object, int> pending;  // our changes not yet acknowledged, per object

  std::unique_ptr<pulse_client> client;
  // Reconnects: 0.5 s doubling to 5 s, as the device link.
  back_off retry{std::chrono::milliseconds(500), std::chrono::milliseconds(5000)};
  bool retry_pending = false;
  bool told_unreachable = false;
  std::vector<caf::actor> watchers;
  static inline const char* name = "audio";
};

// The audio actor's full interface: its public one plus the libpulse client's reports and its
// timers.
using audio_impl =
    audio_actor::extend<caf::reacts_to<pulse_link>, caf::reacts_to<retry_atom>,
                        caf::reacts_to<pulse_defaults>, caf::reacts_to<pulse_device>,
                        caf::reacts_to<pulse_stream>, caf::reacts_to<pulse_stream_gone>,
                        caf::reacts_to<pulse_op_done>, caf::reacts_to<recheck_atom, std::uint32_t>>;

// `initial`: the mixer's state at start (targets, levels, mutes, master volume) and `policy` the
// audio settings; later changes come from the mixer and from `settings`.
audio_impl::behavior_type audio_behavior(audio_impl::stateful_pointer<audio_state> self,
                                         hub_actor hub, settings_actor settings,
                                         const mixer_snapshot& initial, audio_policy policy,
                                         std::shared_ptr<published<audio_view>> view);

// Its row of the capability table (actors/audio/audio_capability.cpp).
const capability& audio_capability();

}  // namespace mixerd
