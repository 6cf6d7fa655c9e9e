// The simulator's input commands (`slider 2 57`, `mute master`, `unplug`, ...): text typed by a
// person or a test, turned into what the device should do. Pure parsing, no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "protocol/device_codec.hpp"

namespace mixerd::sim {

struct input_command {
  enum class kind {
    nothing,
    help,
    demo_on,
    demo_off,
    unplug,
    replug,
    device_line,
    raw_line,
    error
  };
  kind what = kind::nothing;
  protocol::device_event event;  // device_line: what the device sends
  std::string text;              // raw_line: the line; error: the message for the user
};

input_command parse_input_command(std::string_view line);

// Help text listing the commands.
std::string_view input_help();

// Integer in [min, max]; a leading '+' is accepted ("encoder +2").
std::optional<int> parse_bounded_int(std::string_view s, int min, int max);

}  // namespace mixerd::sim
