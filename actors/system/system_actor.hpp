// The system actor: samples the machine's uptime, load and temperature every
// system::sample_interval, publishes them as its view (GET /api/system, the MQTT sensors) and
// sends the Status section's facts (status_facts) when their wording changes. Its view holds a
// sample from the moment it is spawned.
#pragma once

#include <caf/stateful_actor.hpp>
#include <memory>
#include <string>
#include <vector>

#include "actors/support/capability.hpp"
#include "protocol/hub.hpp"
#include "protocol/snapshot.hpp"
#include "protocol/status_facts.hpp"
#include "protocol/system.hpp"

namespace mixerd {

struct system_wiring {
  hub_actor hub;
  std::shared_ptr<published<system_view>> view;
  std::string proc_dir{system::proc_dir};
  std::string thermal_dir{system::thermal_dir};
};

struct system_state {
  system_wiring wiring;
  std::vector<status_fact> facts;  // as last sent
  static inline const char* name = "system";
};

// One sample now: the files of `proc_dir` (uptime, loadavg) and the thermal zones of
// `thermal_dir` (thermal_zone*/temp and type; the hottest). What cannot be read stays unknown.
system_view read_system(const std::string& proc_dir, const std::string& thermal_dir);

system_actor::behavior_type system_behavior(system_actor::stateful_pointer<system_state> self,
                                            system_wiring wiring);

// Its row of the capability table (actors/system/system_capability.cpp).
const capability& system_capability();

}  // namespace mixerd
