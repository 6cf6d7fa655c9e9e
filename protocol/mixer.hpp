// The mixer capability: the four sliders (value, assignment, label), the four mutes and the
// master mute, and the master volume. Device input and API requests change them; the audio
// capability applies them to the audio server. Indices are 0-based in requests; the routes
// convert from the API's 1-4.
#pragma once

#include <array>
#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/audio.hpp"
#include "protocol/device.hpp"
#include "protocol/events.hpp"
#include "protocol/limits.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"
#include "protocol/types.hpp"

namespace mixerd {

// ---- Events (protocol/events.hpp) ---------------------------------------------------------

// Also published when only `position` or `pickup` changed (the physical slider moved while
// waiting to be picked up, or was picked up).
struct slider_change {
  static constexpr std::string_view wire_name = "slider_change";
  static constexpr bool for_clients = true;
  int index = 1;  // 1-4
  int value = 0;
  std::optional<int> position = std::nullopt;
  bool pickup = false;
  nlohmann::json to_json() const;
};
struct assignment_change {
  static constexpr std::string_view wire_name = "assignment_change";
  static constexpr bool for_clients = true;
  int index = 1;  // 1-4
  assignment assigned;
  std::string label;
  nlohmann::json to_json() const;
};
struct mute_change {
  static constexpr std::string_view wire_name = "mute_change";
  static constexpr bool for_clients = true;
  int index = 1;  // 1-4, or protocol::master_index for the master mute ("master" on the wire)
  bool muted = false;
  nlohmann::json to_json() const;
};
struct volume_change {
  static constexpr std::string_view wire_name = "volume_change";
  static constexpr bool for_clients = true;
  int volume = 0;
  nlohmann::json to_json() const;
};

struct slider_state {
  int value = 50;  // 0-100, as last reported by the device or set through the API
  assignment assigned;
  std::string label;
  bool muted = false;
  // Set back an app stream that changes its own volume (settings and assignment requests).
  bool enforce_volume = true;
  // How the value becomes a volume (settings sliders[i].curve, points, min, max).
  audio::volume_curve curve;
  // The device's last reading of the physical slider (none since the link came up), and whether
  // its readings wait to pick the value up (protocol/README.md, "Sliders").
  std::optional<int> position;
  bool pickup = false;
};

struct mute_states {
  std::array<bool, limits::mute_count> individual{};
  bool master = false;
};

// Everything the mixer actor owns.
struct mixer_snapshot {
  std::array<slider_state, limits::slider_count> sliders;
  mute_states mutes;
  int master_volume = 50;
};

// What the mixer publishes for readers after every change; the body of GET /api/sliders is
// encoded on its first read.
struct mixer_view {
  mixer_snapshot mix;
  encoded_once sliders_body;
};

// ---- Requests --------------------------------------------------------------------------------

// -> int (the value now in effect)
struct set_slider_value {
  int index = 0;
  int value = 0;
};
// -> assignment (as stored)
struct set_slider_assignment {
  int index = 0;
  assignment assigned;
  std::optional<std::string> label;
  std::optional<bool> enforce_volume;
};
// -> bool (muted after the toggle); index 0-3 or protocol::master_index
struct toggle_mute {
  int index = 0;
};
// -> bool (it changed); index 0-3 or protocol::master_index. Nothing happens when it already is.
struct set_mute {
  int index = 0;
  bool muted = false;
};
// -> int (the volume now in effect)
struct set_master_volume {
  int volume = 0;
};

// -> bool. A profile's mixer part at once: every slider's label, assignment, value and
// enforce_volume, the mutes and the master volume. Each change emits its usual event, reaches
// the device and the audio server and is persisted; the reply comes after all of them were sent.
struct mixer_apply {
  mixer_snapshot mix;
};

// Audio actor -> mixer: the default sink was changed outside mixerd. `seq` is that of the last
// audio_master_level the audio actor had when it saw the change: an observation older than the
// mixer's latest change crossed it and is dropped (that change is on its way and wins).
struct master_observed {
  int volume = 0;
  bool muted = false;
  std::uint64_t seq = 0;
};

// ---- Hold buttons (macro kinds hold_mute and hold_unmute; protocol/README.md, "Macros") ------
// -> bool (muted now). `holder` (a macro slot, "page:index") holds mute `index` (0-3 or
// protocol::master_index) at `muted` until it lets go. The first hold of a mute keeps the state
// it had before; the last holder's release restores it.
struct mute_hold {
  int index = 0;
  bool muted = true;
  std::string holder;
};
// -> bool (muted now). `holder` lets go of mute `index`; one that holds nothing changes nothing.
struct mute_release {
  int index = 0;
  std::string holder;
};

// The events (hub subscriptions) of the mixer: device input, and device connects (it pushes the
// whole state).
inline event_kind_set mixer_subscriptions() {
  return kinds_of<device_input, device_status>();
}

using mixer_actor = caf::typed_actor<
    caf::replies_to<caf::get_atom>::with<mixer_snapshot>,
    caf::replies_to<set_slider_value>::with<int>,
    caf::replies_to<set_slider_assignment>::with<assignment>,
    caf::replies_to<toggle_mute>::with<bool>, caf::replies_to<set_mute>::with<bool>,
    caf::replies_to<set_master_volume>::with<int>, caf::replies_to<mixer_apply>::with<bool>,
    caf::replies_to<mute_hold>::with<bool>, caf::replies_to<mute_release>::with<bool>,
    caf::reacts_to<event>, caf::reacts_to<master_observed>, caf::reacts_to<app_level_observed>,
    caf::reacts_to<settings_reloaded>>;

// How device readings drive the sliders (settings slider_deadband, slider_takeover).
struct slider_policy {
  int deadband = 1;
  bool pickup = true;  // slider_takeover "pickup" (else "jump")
};
slider_policy slider_policy_from_settings(const nlohmann::json& settings);

// A slider's curve from its settings object (validated before; odd fields keep the defaults).
audio::volume_curve volume_curve_from_json(const nlohmann::json& slider);
// Its fields in a settings slider object (only those that differ from the defaults).
void volume_curve_to_json(const audio::volume_curve& curve, nlohmann::json& slider);

namespace macros {
struct kind;
}  // namespace macros

// The mixer's macro kinds (protocol/README.md, "Macros"): mute, volume, hold_mute, hold_unmute.
std::vector<macros::kind> mixer_macro_kinds();

namespace settings_schema {
struct part;
}  // namespace settings_schema

// Its keys of settings.json: sliders, mutes, master_volume.
settings_schema::part mixer_settings();

// The limits of an assignment's names: at most 32 names of at most 256 bytes. A new assignment
// (a command, a change through the settings API) must also name at least one application if it
// is an app assignment; settings.json and a profile may hold one without (it matches nothing).
// "" or the problem, worded after the list's field ("must hold at most 32 names").
std::string assignment_names_problem(const assignment& a, bool is_new);
// That list's field: "exclude" for an unmapped assignment, else "names".
std::string assignment_names_field(const assignment& a);

}  // namespace mixerd

// The mixer capability's CAF type-ID block, chained after the audio block (docs/architecture.md,
// "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mute_hold)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mute_release)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::assignment)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mixer_snapshot)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::set_slider_value)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::set_slider_assignment)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toggle_mute)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::set_mute)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::set_master_volume)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::master_observed)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mixer_apply)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_mixer, caf::id_block::mixerd_audio::end)
CAF_ADD_TYPE_ID(mixerd_mixer, (mixerd::mute_hold))
CAF_ADD_TYPE_ID(mixerd_mixer, (mixerd::mute_release))
CAF_ADD_TYPE_ID(mixerd_mixer, (mixerd::assignment))
CAF_ADD_TYPE_ID(mixerd_mixer, (mixerd::mixer_snapshot))
CAF_ADD_TYPE_ID(mixerd_mixer, (mixerd::set_slider_value))
CAF_ADD_TYPE_ID(mixerd_mixer, (mixerd::set_slider_assignment))
CAF_ADD_TYPE_ID(mixerd_mixer, (mixerd::toggle_mute))
CAF_ADD_TYPE_ID(mixerd_mixer, (mixerd::set_mute))
CAF_ADD_TYPE_ID(mixerd_mixer, (mixerd::set_master_volume))
CAF_ADD_TYPE_ID(mixerd_mixer, (mixerd::master_observed))
CAF_ADD_TYPE_ID(mixerd_mixer, (mixerd::mixer_apply))
CAF_END_TYPE_ID_BLOCK(mixerd_mixer)
