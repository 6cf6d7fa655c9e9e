// The actor side of Socket.IO: sio_broadcaster subscribes to the events clients see and
// encodes each event ONCE into its wire text, from the event's own name and JSON mapping, handing
// the shared bytes to `deliver`, which posts them to the io thread.
#pragma once

#include <caf/actor.hpp>
#include <caf/event_based_actor.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "protocol/events.hpp"
#include "protocol/hub.hpp"

namespace mixerd::socketio {

// One encoded event for the clients. `replaced_by`: the wire name of a smaller event that
// carries the same change (a static string, protocol/events.hpp), or empty; clients that read
// that one are not sent this.
struct client_frame {
  std::shared_ptr<const std::string> text;
  std::string_view replaced_by;
};
using deliver_fn = std::function<void(client_frame)>;

// The Socket.IO text of an event, e.g. `42["slider_change",{"index":1,"value":5}]`.
std::string encode_event(const event& e);

// `kinds`: the events clients see (client_kinds of what the capabilities declare).
caf::behavior sio_broadcaster(caf::event_based_actor* self, hub_actor hub, event_kind_set kinds,
                              deliver_fn deliver);

}  // namespace mixerd::socketio
