// Typed events fanned out by the hub (design.md: domain actor -> hub -> subscribers).
// Names and payloads of the controller's events are those of interfaces.md "Events".
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "protocol/device_codec.hpp"
#include "protocol/types.hpp"

namespace mixerd {

struct slider_change {
  int index = 1;  // 1-4
  int value = 0;
};
struct assignment_change {
  int index = 1;  // 1-4
  assignment assigned;
  std::string label;
};
struct mute_change {
  int index = 1;  // 1-4, or protocol::master_index for the master mute
  bool muted = false;
};
struct volume_change {
  int volume = 0;
};
struct profile_change {
  std::string profile;
};
// The `device_status` event.
struct device_status_change {
  bool connected = false;
  std::string port;
};
// The `audio_status` event: an audio server was attached or lost (`server` names it).
struct audio_status_change {
  bool connected = false;
  std::string server;
};
// A device line no codec rule understood (boot chatter, newer firmware); for plugins.
struct serial_raw {
  std::string line;
};
// Every understood device line, for actors that react to input (mixer, macros, plugins).
struct device_input {
  protocol::device_event input;
};

using event =
    std::variant<slider_change, assignment_change, mute_change, volume_change, profile_change,
                 device_status_change, audio_status_change, serial_raw, device_input>;

// The Socket.IO event name, e.g. "slider_change"; internal events have names too.
std::string_view event_name(const event& e);

}  // namespace mixerd
