// The virtual keyboard of hotkey macros: Linux uinput when /dev/uinput is writable, else the X
// server of $DISPLAY through XTest. Blocking: call it off the actor threads. The uinput keyboard
// is created on the first press and kept for the life of the process (a keyboard that appears
// needs a moment before the desktop listens to it, so one per press would lose keys); an X
// connection is opened per press and given at most x_answer_limit to answer.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/hotkeys.hpp"

namespace mixerd::keyboard {

// Presses the modifiers, then the key, and releases them in reverse order. Returns "" on
// success, else why not: "no keyboard output" when neither uinput nor an X server is usable.
std::string press(const hotkeys::combo& combo);

// How long one press waits for the X server before it reports that the server does not answer.
inline constexpr auto x_answer_limit = std::chrono::seconds(5);

// The codes of one key: its Linux input event code (linux/input-event-codes.h) and its X keysym.
struct key_codes {
  int evdev = 0;
  unsigned long keysym = 0;
};

// The codes of a key name of hotkeys::key_names() or a modifier ("ctrl", "shift", "alt",
// "super"); nullopt for any other name.
std::optional<key_codes> codes_of(std::string_view name);

// press() with its outputs named: the uinput device file and the X display (nullptr: none).
// press() is press_via(combo, "/dev/uinput", getenv("DISPLAY")); tests name other outputs.
std::string press_via(const hotkeys::combo& combo, const std::string& uinput_path,
                      const char* display);

}  // namespace mixerd::keyboard
