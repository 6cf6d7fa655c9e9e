// The audio capability: what mixerd wants the audio server to play, applied through libpulse by
// the audio actor (actors/audio/). Here, independent of libpulse: which streams an app
// assignment covers, how a stream is named in the session list, volume units, the observations
// the libpulse client reports to the audio actor, and the actor's interface. Pure: no I/O.
#pragma once

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/atoms.hpp"
#include "protocol/device.hpp"
#include "protocol/events.hpp"
#include "protocol/types.hpp"

namespace mixerd {

// ---- Events (protocol/events.hpp) ---------------------------------------------------------

// An audio server was attached or lost (`server` names it).
struct audio_status {
  static constexpr std::string_view wire_name = "audio_status";
  static constexpr bool for_clients = true;
  bool connected = false;
  std::string server;
  nlohmann::json to_json() const;
};

namespace audio {

// The server's 100 % (PA_VOLUME_NORM; the pulse client checks that they agree).
inline constexpr std::uint32_t volume_norm = 0x10000U;

// 0-100 % of nominal -> server units, and back (rounded, clamped to 0-100).
std::uint32_t raw_volume(int percent);
int percent_volume(std::uint32_t raw);

// Application names compare case-insensitively (ASCII) and ignore a trailing ".exe" on either
// side, so that assignments made for the original Windows app ("Spotify.exe") still match.
bool same_app(std::string_view a, std::string_view b);
// Does an `app` assignment cover a stream with this application.name / process binary?
bool covers(const assignment& target, std::string_view app_name, std::string_view binary);
// The session-list name of a stream: its binary, else its application name.
std::string_view session_name(std::string_view app_name, std::string_view binary);

}  // namespace audio

// ---- Observations of the libpulse client, to the audio actor ---------------------------------

enum class audio_object_kind : std::uint8_t { sink, source, stream };

// One object on the server: a sink, a source or a playback stream (sink-input), by its index.
struct audio_object {
  audio_object_kind kind = audio_object_kind::stream;
  std::uint32_t index = 0;
  friend bool operator<(const audio_object& a, const audio_object& b) {
    return a.kind != b.kind ? a.kind < b.kind : a.index < b.index;
  }
  friend bool operator==(const audio_object& a, const audio_object& b) {
    return a.kind == b.kind && a.index == b.index;
  }
};

// The context became ready (connected) or failed/ended; `detail` is the server name or reason.
struct pulse_link {
  bool connected = false;
  std::string detail;
};
// Server info: the default sink and source names, and "<server name> <version>".
struct pulse_defaults {
  std::string sink;
  std::string source;
  std::string server;
};
// A sink or source (new or changed).
struct pulse_device {
  audio_object id;
  std::string name;
  std::uint8_t channels = 0;
  std::uint32_t volume_min = 0;
  std::uint32_t volume_max = 0;
  bool muted = false;
};
// A playback stream; `fresh` when it has just appeared (or was listed after connecting).
struct pulse_stream {
  std::uint32_t index = 0;
  std::string app_name;
  std::string binary;
  std::uint8_t channels = 0;
  std::uint32_t volume_min = 0;
  std::uint32_t volume_max = 0;
  bool muted = false;
  bool volume_writable = true;
  bool fresh = false;
};
struct pulse_stream_gone {
  std::uint32_t index = 0;
};
// The server acknowledged one volume or mute change on `target`.
struct pulse_op_done {
  audio_object target;
};

// ---- The audio actor's interface ----------------------------------------------------------------

// Mixer -> audio actor: the desired state, which the audio actor applies and keeps.
// What slider `index` (0-3) controls; `enforce` sets back a stream that changes its own volume.
struct audio_slider_target {
  int index = 0;
  assignment assigned;
  bool enforce = true;
};
// Where slider `index` is and whether its mute is on.
struct audio_slider_level {
  int index = 0;
  int volume = 0;
  bool muted = false;
};
// Master volume and master mute (the default sink). `seq` counts the mixer's master changes.
struct audio_master_level {
  int volume = 0;
  bool muted = false;
  std::uint64_t seq = 0;
};

// An application playing audio, as the audio server names it.
struct audio_session {
  std::string name;
  std::string display_name;
};
using audio_sessions = std::vector<audio_session>;

// What the audio actor publishes: the link to the server and the live streams (one entry per
// app).
struct audio_view {
  bool connected = false;
  std::string server;
  audio_sessions sessions;
};

// watch: the watcher (the mixer) receives master_observed when the default sink changes outside
// mixerd.
using audio_actor =
    caf::typed_actor<caf::reacts_to<audio_slider_target>, caf::reacts_to<audio_slider_level>,
                     caf::reacts_to<audio_master_level>, caf::reacts_to<watch_atom, caf::actor>,
                     caf::replies_to<caf::get_atom, sessions_atom>::with<audio_sessions>>;

}  // namespace mixerd

// The audio capability's CAF type-ID block, chained after the device block (docs/architecture.md,
// "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::audio_sessions)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::audio_slider_target)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::audio_slider_level)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::audio_master_level)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::pulse_link)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::pulse_defaults)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::pulse_device)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::pulse_stream)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::pulse_stream_gone)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::pulse_op_done)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_audio, caf::id_block::mixerd_device::end)
CAF_ADD_TYPE_ID(mixerd_audio, (mixerd::audio_sessions))
CAF_ADD_TYPE_ID(mixerd_audio, (mixerd::audio_slider_target))
CAF_ADD_TYPE_ID(mixerd_audio, (mixerd::audio_slider_level))
CAF_ADD_TYPE_ID(mixerd_audio, (mixerd::audio_master_level))
CAF_ADD_TYPE_ID(mixerd_audio, (mixerd::pulse_link))
CAF_ADD_TYPE_ID(mixerd_audio, (mixerd::pulse_defaults))
CAF_ADD_TYPE_ID(mixerd_audio, (mixerd::pulse_device))
CAF_ADD_TYPE_ID(mixerd_audio, (mixerd::pulse_stream))
CAF_ADD_TYPE_ID(mixerd_audio, (mixerd::pulse_stream_gone))
CAF_ADD_TYPE_ID(mixerd_audio, (mixerd::pulse_op_done))
CAF_END_TYPE_ID_BLOCK(mixerd_audio)
