// The hub: domain actors publish events, subscribers receive the event kinds they named. The hub
// holds subscribers as dynamically typed handles: each subscriber's own interface lists
// `reacts_to<event>`.
#pragma once

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "protocol/events.hpp"

namespace mixerd {

using hub_actor = caf::typed_actor<caf::reacts_to<caf::subscribe_atom, caf::actor, event_kind_set>,
                                   caf::reacts_to<caf::unsubscribe_atom, caf::actor>,
                                   caf::reacts_to<caf::publish_atom, event>>;

}  // namespace mixerd
