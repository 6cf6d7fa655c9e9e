#include "gateways/socketio/broadcaster.hpp"

#include <caf/all.hpp>
#include <utility>

#include "protocol/messages.hpp"
#include "protocol/socketio_codec.hpp"

namespace mixerd::socketio {

std::string encode_event(const event& e) {
  return sio::event_message(event_name(e), json::event_payload(e));
}

caf::behavior sio_broadcaster(caf::event_based_actor* self, hub_actor hub, deliver_fn deliver) {
  self->send(hub, caf::subscribe_atom_v, caf::actor_cast<caf::actor>(self), client_topics());
  return {
      [deliver = std::move(deliver)](const event& e) {
        deliver(std::make_shared<const std::string>(encode_event(e)));
      },
  };
}

}  // namespace mixerd::socketio
