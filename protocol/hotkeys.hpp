// The key combinations of hotkey macros (docs/api.md, "Macros"): "ctrl+shift+m", "alt+f4",
// "media_play_pause". Names only; turning them into key codes is the keyboard output's work
// (actors/macros/keyboard_output.hpp). Pure: no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mixerd::hotkeys {

// A valid combination in canonical form: lower-case names, each modifier once, in the order
// ctrl shift alt super, whatever order the text named them in.
struct combo {
  std::vector<std::string> modifiers;  // of "ctrl", "shift", "alt", "super"
  std::string key;                     // one of key_names()
  bool operator==(const combo& other) const {
    return modifiers == other.modifiers && key == other.key;
  }
};

// Every key name a combination may end with: a-z, 0-9, f1-f24 and the named keys.
const std::vector<std::string>& key_names();

// Parses "mod+mod+key" (case-insensitive, no spaces). On error fills `error` with what is wrong,
// to follow the field name ("must name a key ...").
std::optional<combo> parse(std::string_view text, std::string& error);

// The canonical text of a combination, e.g. "ctrl+shift+m".
std::string to_string(const combo& c);

}  // namespace mixerd::hotkeys
