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
#include <utility>
#include <vector>

#include "protocol/atoms.hpp"
#include "protocol/device.hpp"
#include "protocol/events.hpp"
#include "protocol/settings.hpp"
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
// The same with fractions of a percent (a curve's low end needs them).
std::uint32_t raw_volume(double percent);
double exact_percent(std::uint32_t raw);

// Application names compare case-insensitively (ASCII) and ignore a trailing ".exe" on either
// side, so that assignments made for the original Windows app ("Spotify.exe") still match.
bool same_app(std::string_view a, std::string_view b);

// What a stream says about the application playing it (its properties).
struct app_identity {
  std::string binary;      // application.process.binary
  std::string name;        // application.name
  std::string id;          // application.id
  std::string flatpak_id;  // pipewire.access.portal.app_id (PipeWire sets it for Flatpak apps)
};

// The user's other names of applications (setting `app_aliases`): an assignment name equal to a
// key (as same_app compares) also matches every name listed under it.
using alias_list = std::vector<std::pair<std::string, std::vector<std::string>>>;

// The identity field through which `name` (or one of its aliases) names the app: "binary",
// "application_name", "application_id" or "flatpak_id"; empty when it does not. An
// application.name that every Chromium-based app gives itself ("Chromium", "Electron", ...)
// counts only when the stream names no binary: Electron apps are told apart by binary.
std::string_view matched_field(std::string_view name, const app_identity& who,
                               const alias_list& aliases);
// Does an `app` assignment cover the stream (one of its names matches)?
bool covers(const assignment& target, const app_identity& who, const alias_list& aliases);
// Does an `unmapped` assignment leave the stream alone (one of its exclude names matches)?
bool excludes(const assignment& target, const app_identity& who, const alias_list& aliases);
// The session-list name of an app: its Flatpak id (stable and unique, where the binary inside the
// sandbox may be a generic one), else its binary, application.id or name.
std::string_view session_name(const app_identity& who);

// How a slider's 0-100 value becomes the volume it applies (settings sliders[i].curve, points,
// min, max): linear (the value itself), fine (value squared / 100: finer steps at the low end)
// or points (linear between [slider, volume] points, flat beyond the first and last), then
// scaled into min..max.
enum class curve_kind : std::uint8_t { linear, fine, points };
struct volume_curve {
  curve_kind kind = curve_kind::linear;
  std::vector<std::pair<int, int>> points;  // slider strictly increasing, both 0-100
  int min = 0;
  int max = 100;
  friend bool operator==(const volume_curve& a, const volume_curve& b) {
    return a.kind == b.kind && a.points == b.points && a.min == b.min && a.max == b.max;
  }
  friend bool operator!=(const volume_curve& a, const volume_curve& b) { return !(a == b); }
};
// The volume (percent of nominal, fractional) that slider value 0-100 applies.
double applied_percent(const volume_curve& curve, int value);
// The slider value whose applied volume is nearest `percent` (the lowest on a tie).
int slider_value_for(const volume_curve& curve, double percent);

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
  audio::app_identity who;
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
// What slider `index` (0-3) controls and how its value becomes a volume; `enforce`: a stream
// that changes its own volume is set back (policy hold) or moves the slider (policy follow).
struct audio_slider_target {
  int index = 0;
  assignment assigned;
  bool enforce = true;
  audio::volume_curve curve = {};
};
// Where slider `index` is and whether its mute is on. `seq` counts the mixer's level changes of
// that slider (as audio_master_level's).
struct audio_slider_level {
  int index = 0;
  int volume = 0;
  bool muted = false;
  std::uint64_t seq = 0;
};
// Audio actor -> its watchers (the mixer), under app_volume_policy "follow": an app changed the
// volume of its own stream on slider `index`; `value` is the slider value that applies it.
// `seq` is that of the slider's latest audio_slider_level the audio actor had (an observation
// older than the mixer's latest change of the slider is dropped).
struct app_level_observed {
  int index = 0;
  int value = 0;
  std::uint64_t seq = 0;
};
// Master volume and master mute (the default sink). `seq` counts the mixer's master changes.
struct audio_master_level {
  int volume = 0;
  bool muted = false;
  std::uint64_t seq = 0;
};

// An application playing audio (all its streams), as the audio server names it.
struct audio_session {
  std::string name;          // what an assignment's names should hold (session_name)
  std::string display_name;  // its application.name, else `name`
  audio::app_identity who;   // of its first stream
  int streams = 0;
  int slider = -1;     // 0-3: the slider that controls it; -1: none
  double volume = -1;  // applied volume of its first stream, percent; -1: not known
  bool muted = false;
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
// mixerd, and app_level_observed (policy follow). settings_reloaded: its own settings
// (app_aliases, app_volume_policy) changed.
using audio_actor =
    caf::typed_actor<caf::reacts_to<audio_slider_target>, caf::reacts_to<audio_slider_level>,
                     caf::reacts_to<audio_master_level>, caf::reacts_to<watch_atom, caf::actor>,
                     caf::reacts_to<settings_reloaded>,
                     caf::replies_to<caf::get_atom, sessions_atom>::with<audio_sessions>>;

// What the audio actor reads from settings.json: app_aliases and app_volume_policy.
struct audio_policy {
  audio::alias_list aliases;
  bool follow = false;  // app_volume_policy "follow" (else "hold")
};
audio_policy audio_policy_from_settings(const nlohmann::json& settings);

namespace settings_schema {
struct part;
}  // namespace settings_schema

// Its keys of settings.json: app_aliases, app_volume_policy.
settings_schema::part audio_settings();

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
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::app_level_observed)

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
CAF_ADD_TYPE_ID(mixerd_audio, (mixerd::app_level_observed))
CAF_END_TYPE_ID_BLOCK(mixerd_audio)
