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

// `unmapped`: every app stream that no `app` slider claims, except the `exclude` names.
enum class assignment_type {
  unassigned,
  system_default_output,
  system_default_input,
  app,
  unmapped
};

std::string_view to_string(assignment_type type);
// Accepts the wire names; `specific_app` is the request spelling of `app`.
std::optional<assignment_type> assignment_type_from_string(std::string_view name);

struct assignment {
  assignment_type type = assignment_type::unassigned;
  std::vector<std::string> names;         // application names, for type app only
  std::vector<std::string> exclude = {};  // applications left alone, for type unmapped only

  friend bool operator==(const assignment& a, const assignment& b) {
    return a.type == b.type && a.names == b.names && a.exclude == b.exclude;
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
struct now_playing {
  std::string player;  // its Identity
  std::string status;  // "Playing", "Paused" or "Stopped"
  std::string title;
  std::string artist;  // artists joined with ", "
  std::string album;
  std::string art_url;
  std::int64_t length_ms = 0;
};

// A plugin's lifecycle state (protocol/README.md, "Plugins"): starting (its process is being
// started, or waits out the back-off after a crash), running, stopped (disabled), failed (5 crashes
// in 10 minutes; until enabled again), invalid (manifest missing or broken), incompatible
// (api_version of another major).
enum class plugin_state { starting, running, stopped, failed, invalid, incompatible };

std::string_view to_string(plugin_state state);

// A plugin as GET /api/plugins lists it and the plugin_status event carries it.
struct plugin_info {
  std::string id;  // the manifest's id; the folder's name when the manifest gives none
  std::string name;
  std::string version;
  std::string api_version;
  bool enabled = true;
  plugin_state state = plugin_state::stopped;
  int restarts = 0;        // restarts after a crash or kill since the daemon (or it) started
  std::string last_error;  // why it last stopped, failed or is invalid; empty when none
};

}  // namespace mixerd
