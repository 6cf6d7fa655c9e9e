// Typed requests to the mixer actor (what REST clients, and later macros and plugins, ask for).
// Indices are 0-based here; the gateway converts from the API's 1-4.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/types.hpp"

namespace mixerd {

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
// -> int (the volume now in effect)
struct set_master_volume {
  int volume = 0;
};

// ---- Mixer -> audio actor: the desired state (the audio actor applies it and keeps it) ---------
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
// Audio actor -> its watchers (the mixer): the default sink was changed outside mixerd. `seq`
// is that of the last audio_master_level the audio actor had when it saw the change: an
// observation older than the mixer's latest change crossed it and is dropped (that change is
// on its way to the server and wins).
struct master_observed {
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

// ---- Controller login (auth actor) ------------------------------------------------------------
// -> auth_state. An empty id asks only whether login is on.
struct auth_check {
  std::string session_id;
};
struct auth_state {
  bool enabled = false;
  bool authenticated = false;  // always true while login is off
  std::string username;        // of the session; empty when none
};
// -> login_outcome
struct login_attempt {
  std::string username;
  std::string password;
  bool remember = false;
  std::string address;  // client IP, for throttling
};
struct login_outcome {
  enum class result { ok, invalid, throttled, disabled };
  result what = result::invalid;
  std::string session_id;  // ok: the new session's id (the cookie value)
  int max_age = 0;         // ok: cookie lifetime in seconds; 0 = until the browser closes
  int retry_after = 0;     // throttled: seconds until the next attempt is allowed
};
// -> void
struct logout_request {
  std::string session_id;
};

}  // namespace mixerd
