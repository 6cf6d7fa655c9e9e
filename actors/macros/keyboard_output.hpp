// The virtual keyboard of hotkey macros: Linux uinput when /dev/uinput is writable, else the X
// server of $DISPLAY through XTest. Blocking (a uinput device is created, used and destroyed per
// press; an X connection is opened per press): call it off the actor threads.
#pragma once

#include <string>

#include "protocol/hotkeys.hpp"

namespace mixerd::keyboard {

// Presses the modifiers, then the key, and releases them in reverse order. Returns "" on
// success, else why not: "no keyboard output" when neither uinput nor an X server is usable.
std::string press(const hotkeys::combo& combo);

}  // namespace mixerd::keyboard
