// Socket.IO v5 on top of the engine: the default namespace "/" with its login gate (docs/api.md:
// a connection without a valid session is refused at namespace connect), get_state, and the
// fan-out of live events to every joined connection. Holds only transport-side bookkeeping;
// the state itself is always asked of the actors (through `backend`).
//
// Threading: io thread only, like the engine; backend answers must arrive there too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gateways/socketio/engine.hpp"
#include "protocol/limits.hpp"
#include "protocol/socketio_codec.hpp"

namespace mixerd::socketio {

using packet_ptr = std::shared_ptr<const std::string>;

// What the namespace asks of the domain. Each `done` is called exactly once, on the io thread.
struct namespace_backend {
  // The complete reply to get_state: `42["initial_state",{…}]` without an ack id, `43<id>[{…}]`
  // with one. Null when the actors could not answer (shutting down).
  std::function<void(std::optional<std::uint64_t> ack_id, std::function<void(packet_ptr)> done)>
      query_state;
  // True when login is off or one of the session ids is valid.
  std::function<void(std::vector<std::string> session_ids, std::function<void(bool)> done)>
      check_auth;
};

class namespace_server : public std::enable_shared_from_this<namespace_server> {
 public:
  // max_payload: the engine's maxPayload, which a binary packet's text and attachments share.
  // A socket with more than max_held_packets or max_held_bytes of live events held behind a
  // state answer is closed.
  namespace_server(namespace_backend backend, std::size_t max_held_packets, std::size_t max_payload,
                   std::size_t max_held_bytes = limits::client_queue_max_bytes);

  // Hooks for the engine; they hold this object weakly.
  engine_hooks hooks();
  // One live event, already encoded (`42["slider_change",{…}]`), to every joined connection.
  // `replaced_by`: a smaller event carrying the same change (client_frame, broadcaster.hpp);
  // connections that named it in their connect's `auth.events` skip this one.
  void broadcast(const packet_ptr& packet, std::string_view replaced_by = {});

  // What a client may name in `auth.events` at connect: at most this many names, each at most
  // max_event_name_bytes (more are ignored; names are not checked against the events there are).
  static constexpr std::size_t max_read_events = 16;
  static constexpr std::size_t max_event_name_bytes = 64;

 private:
  enum class phase { idle, authorising, joined };
  struct socket {
    std::shared_ptr<connection> conn;
    phase state = phase::idle;
    // Bumped on every connect and disconnect, so answers meant for an earlier join are dropped.
    std::uint64_t generation = 0;
    int pending_state = 0;         // get_state / initial_state answers not yet back
    std::vector<packet_ptr> held;  // live events that must follow the pending answer
    std::size_t held_bytes = 0;
    // The optional events the client reads (its connect's auth.events), e.g. macro_change.
    std::vector<std::string> reads;
    bool dead = false;            // closed during a fan-out; erased after it
    sio::packet_decoder decoder;  // holds a binary packet until its attachments are in
  };

  void on_open(const std::shared_ptr<connection>& conn);
  void on_message(const std::shared_ptr<connection>& conn, std::string_view data, bool binary);
  void on_close(const std::shared_ptr<connection>& conn);
  void on_connect(socket& s, const nlohmann::json& auth);
  void on_authorised(const std::weak_ptr<connection>& weak, std::uint64_t generation, bool ok);
  void request_state(socket& s, std::optional<std::uint64_t> ack_id);
  void on_state(const std::weak_ptr<connection>& weak, std::uint64_t generation,
                const packet_ptr& packet);
  socket* find(const std::weak_ptr<connection>& weak, std::uint64_t generation);
  void deliver(socket& s, const packet_ptr& packet, std::string_view replaced_by);
  void sweep();
  friend struct busy_guard;

  namespace_backend backend_;
  std::size_t max_held_;
  std::size_t max_payload_;
  std::size_t max_held_bytes_;
  std::unordered_map<const connection*, socket> sockets_;
  int busy_ = 0;  // >0 while iterating sockets_: closes only mark, sweep() erases
};

}  // namespace mixerd::socketio
