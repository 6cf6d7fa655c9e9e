// The hub: fans every published event out to the subscribers of the moment. It owns only the
// subscriber list; subscribers that terminate are dropped through monitoring.
//
// Messages:
//   (subscribe_atom, caf::actor)    subscriber receives every later `event`
//   (unsubscribe_atom, caf::actor)
//   (publish_atom, event)           delivered to each subscriber as `event`
#pragma once

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <cstddef>
#include <vector>

namespace mixerd {

struct hub_state {
  std::vector<caf::actor> subscribers;
  std::size_t max_subscribers = 0;
  static inline const char* name = "hub";
};

// At most `max_subscribers` at once (each Socket.IO session will be one); further subscriptions
// are refused with a log line, so a flood of clients cannot grow the fan-out without bound.
caf::behavior hub_actor(caf::stateful_actor<hub_state>* self, std::size_t max_subscribers);

}  // namespace mixerd
