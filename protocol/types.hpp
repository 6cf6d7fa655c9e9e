// Value types of the domain, as the controller interface shows them (interfaces.md section C).
// API indices are 1-based (sliders, mutes); the device link converts to 0-based at its edge.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/limits.hpp"

namespace mixerd {

enum class assignment_type { unassigned, system_default_output, system_default_input, app };

std::string_view to_string(assignment_type type);
// Accepts the wire names; `specific_app` is the request spelling of `app`.
std::optional<assignment_type> assignment_type_from_string(std::string_view name);

struct assignment {
  assignment_type type = assignment_type::unassigned;
  std::vector<std::string> names;  // application names, for type app only

  friend bool operator==(const assignment& a, const assignment& b) {
    return a.type == b.type && a.names == b.names;
  }
  friend bool operator!=(const assignment& a, const assignment& b) { return !(a == b); }
};

struct slider_state {
  int value = 50;  // 0-100, as last reported by the device or set through the API
  assignment assigned;
  std::string label;
  bool muted = false;
  // Set back an app stream that changes its own volume (settings and assignment requests).
  bool enforce_volume = true;
};

struct mute_states {
  std::array<bool, limits::mute_count> individual{};
  bool master = false;
};

// Everything the mixer actor owns, in one snapshot for readers.
struct mixer_snapshot {
  std::array<slider_state, limits::slider_count> sliders;
  mute_states mutes;
  int master_volume = 50;
  bool audio_connected = false;
};

// What the device actor knows of the link.
struct device_status {
  bool connected = false;
  std::string port;
  std::string page;
  std::string firmware_version;
  std::string device_type;
};

inline constexpr std::string_view app_version = "1.5";

// Default labels of the four sliders before the user names them.
std::string default_slider_label(int index);

}  // namespace mixerd
