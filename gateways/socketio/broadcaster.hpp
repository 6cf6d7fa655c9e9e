// The actor side of Socket.IO: sio_broadcaster subscribes to the events clients see and
// encodes each event ONCE into its wire text, from the event's own name and JSON mapping, handing
// the shared bytes to `deliver`, which posts them to the io thread.
#pragma once

#include <caf/actor.hpp>
#include <caf/event_based_actor.hpp>
#include <functional>
#include <memory>
#include <string>

#include "protocol/events.hpp"
#include "protocol/hub.hpp"

namespace mixerd::socketio {

using deliver_fn = std::function<void(std::shared_ptr<const std::string>)>;

// The Socket.IO text of an event, e.g. `42["slider_change",{"index":1,"value":5}]`.
std::string encode_event(const event& e);

// `kinds`: the events clients see (client_kinds of what the capabilities declare).
caf::behavior sio_broadcaster(caf::event_based_actor* self, hub_actor hub, event_kind_set kinds,
                              deliver_fn deliver);

}  // namespace mixerd::socketio
