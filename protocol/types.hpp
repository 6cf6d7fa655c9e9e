// Value types shared by several capabilities. Each capability's own types, messages and actor
// interface are in protocol/<capability>.hpp.
// API indices are 1-based (sliders, mutes); the device link converts to 0-based at its edge.
#pragma once

#include <cstdint>
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

inline constexpr std::string_view app_version = "1.5";

// Default labels of the four sliders before the user names them.
std::string default_slider_label(int index);

// A Smart-home device (Home Assistant entity) as the API shows it.
struct smarthome_device {
  std::string entity_id;          // "light.desk"
  std::string friendly_name;      // the attribute, else the entity id
  std::string state;              // as Home Assistant says it ("on", "off", "unavailable", ...)
  std::string domain;             // "light"
  std::optional<int> brightness;  // 0-100 (Home Assistant's 0-255 scaled); none: null
};

// The Music state of the active MPRIS player.
struct music_state {
  std::string player;  // its Identity
  std::string status;  // "Playing", "Paused" or "Stopped"
  std::string title;
  std::string artist;  // artists joined with ", "
  std::string album;
  std::string art_url;
  std::int64_t length_ms = 0;
};

}  // namespace mixerd
