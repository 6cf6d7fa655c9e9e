// The actor side of Socket.IO: what the io thread may not do itself (wait for actors).
//
// - sio_broadcaster subscribes to the hub and encodes each browser-facing event ONCE into its
//   wire text (design.md "Events flow one way"), handing the shared bytes to `deliver`, which
//   posts them to the io thread.
// - sio_queries is stateless: it asks the auth, device and mixer actors on behalf of a session
//   and hands the answer to the callback carried in the message (which posts to the io thread).
#pragma once

#include <caf/actor.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/event_based_actor.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "protocol/events.hpp"
#include "protocol/types.hpp"

namespace mixerd::socketio {

// Events that reach browsers; serial_raw and device_input stay inside the daemon.
bool is_browser_event(const event& e);

// The initial_state object of contract.md. Macros and profiles have no owning actor yet: their
// empty shapes keep clients that read them working.
nlohmann::json initial_state(const device_status& device, const mixer_snapshot& mix);

using deliver_fn = std::function<void(std::shared_ptr<const std::string>)>;

caf::behavior sio_broadcaster(caf::event_based_actor* self, caf::actor hub, deliver_fn deliver);

// -> nothing; `done` gets the wire text, or null when an actor could not answer.
struct state_query {
  std::optional<std::uint64_t> ack_id;
  deliver_fn done;
};
// -> nothing; `done` gets true when login is off or one of the ids is a live session.
struct auth_query {
  std::vector<std::string> session_ids;
  std::function<void(bool)> done;
};

struct query_targets {
  caf::actor device;
  caf::actor mixer;
  caf::actor auth;
};

caf::behavior sio_queries(caf::event_based_actor* self, query_targets targets);

}  // namespace mixerd::socketio

// Never leave the process.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::socketio::state_query)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::socketio::auth_query)
