// Facts a capability shows in the web page's Status section, next to the device, the firmware,
// the audio server and the version: short label and value pairs it renders itself ("Uptime",
// "3 h 12 min"). A capability sends its whole list again when one changes (the status_facts
// event) and adds the list to initial_state under status_facts.<source>.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace mixerd {

struct status_fact {
  std::string label;
  std::string value;
};
bool operator==(const status_fact& a, const status_fact& b);

// The event: `source` (the capability's name) replaces the facts it showed before.
struct status_facts {
  static constexpr std::string_view wire_name = "status_facts";
  static constexpr bool for_clients = true;
  std::string source;
  std::vector<status_fact> facts;
  nlohmann::json to_json() const;  // {"source": ..., "facts": [{"label", "value"}]}
};

// The list alone, as initial_state holds it under status_facts.<source>.
nlohmann::json to_json(const std::vector<status_fact>& facts);

}  // namespace mixerd
