#include "gateways/socketio/broadcaster.hpp"

#include <caf/all.hpp>
#include <utility>

#include "protocol/socketio_codec.hpp"

namespace mixerd::socketio {

std::string encode_event(const event& e) {
  return sio::event_message(e.wire_name(), e.payload());
}

caf::behavior sio_broadcaster(caf::event_based_actor* self, hub_actor hub, event_kind_set kinds,
                              deliver_fn deliver) {
  self->send(hub, caf::subscribe_atom_v, caf::actor_cast<caf::actor>(self), kinds);
  return {
      [deliver = std::move(deliver)](const event& e) {
        deliver({std::make_shared<const std::string>(encode_event(e)), e.replaced_by()});
      },
  };
}

}  // namespace mixerd::socketio
