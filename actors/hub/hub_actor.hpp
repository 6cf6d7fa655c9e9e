// The hub: fans each published event out to the subscribers of its kind. It owns only the
// subscriber list; subscribers that terminate are dropped through monitoring. Interface:
// protocol/hub.hpp.
#pragma once

#include <caf/actor.hpp>
#include <cstddef>
#include <vector>

#include "actors/support/capability.hpp"
#include "protocol/hub.hpp"

namespace mixerd {

struct hub_state {
  struct subscriber {
    caf::actor who;
    event_kind_set kinds;
  };
  std::vector<subscriber> subscribers;
  std::size_t max_subscribers = 0;
  static inline const char* name = "hub";
};

// At most `max_subscribers` at once (each Socket.IO broadcaster or plugin bridge is one);
// further subscriptions are refused with a log line. Subscribing again replaces the kinds.
hub_actor::behavior_type hub_behavior(hub_actor::stateful_pointer<hub_state> self,
                                      std::size_t max_subscribers);

// Its row of the capability table (actors/hub/hub_capability.cpp).
const capability& hub_capability();

}  // namespace mixerd
