// The plant store actor owns DATA_DIR/plants.json (docs/api.md, "Plant store"):
// the plant list, read at start (the sample plants are written when the file does not exist)
// and again after every settings reload (SIGHUP), and the bearer token (`plant_store_token`
// from settings). Each delete writes the whole list atomically before it answers, so a 204
// means the plant is gone on disk. The daemon is the only writer of the file while it runs
// (the pid file keeps a second daemon off the data folder), so no lock is taken.
//
// A plants.json that cannot be read or is not a valid list is reported (logged, naming the
// file and the problem) and never written: deletes answer `unavailable` until a SIGHUP or a
// restart finds the file fixed (or removed: then the samples are written again).
// Interface: protocol/plants.hpp.
#pragma once

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "actors/support/capability.hpp"
#include "protocol/plants.hpp"
#include "protocol/settings.hpp"

namespace mixerd {

struct plants_state {
  std::string path;   // DATA_DIR/plants.json
  std::string token;  // plant_store_token; empty refuses every request
  nlohmann::json plants = nlohmann::json::array();  // valid per plants::validate_plants
  std::string broken;  // why plants.json is unusable; empty while the list is loaded
  static inline const char* name = "plant_store";
};

// `settings` (may be invalid, e.g. in tests) is asked for reload notifications.
plants_actor::behavior_type plants_behavior(plants_actor::stateful_pointer<plants_state> self,
                                            std::string path, settings_actor settings,
                                            nlohmann::json initial_settings);

// Its row of the capability table (actors/plants/plants_capability.cpp).
const capability& plants_capability();

}  // namespace mixerd
