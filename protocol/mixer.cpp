#include "protocol/mixer.hpp"

#include "protocol/json.hpp"

namespace mixerd {

// ---- Events ------------------------------------------------------------------------------

nlohmann::json slider_change::to_json() const {
  return {{"index", index}, {"value", value}};
}

nlohmann::json assignment_change::to_json() const {
  return {{"index", index}, {"assignment", json::to_json(assigned)}, {"label", label}};
}

nlohmann::json mute_change::to_json() const {
  nlohmann::json wire_index =
      index == protocol::master_index ? nlohmann::json("master") : nlohmann::json(index);
  return {{"index", std::move(wire_index)}, {"muted", muted}};
}

nlohmann::json volume_change::to_json() const {
  return json::volume_to_json(volume);
}

}  // namespace mixerd
