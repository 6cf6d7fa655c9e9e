// Engine.IO v4 server sessions for the controller listener (transport state lives
// here, on the io thread; domain state stays in actors). Speaks polling (long-poll GET, POST
// payloads), websocket, the polling -> websocket upgrade and the server-driven ping, as the
// reference server sends them (tests/integration/test_socketio_wire.py). What travels inside
// message packets is the Socket.IO layer's business (namespace.hpp), reached through engine_hooks.
//
// Threading: every member function, hook and timer runs on the io thread. Nothing here blocks.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "gateways/http/server.hpp"
#include "protocol/limits.hpp"

namespace boost::asio {
class io_context;
}

namespace mixerd::socketio {

// The path clients use by default (`/socket.io/`); every request under it belongs to the engine.
bool is_engine_path(std::string_view path);

// 20 characters of base64url from 15 CSPRNG bytes, the shape of the reference server's ids.
std::string random_sid();

// One Engine.IO connection as the Socket.IO layer sees it. io thread only.
class connection {
 public:
  virtual ~connection() = default;
  virtual const std::string& id() const = 0;
  // The controller_session cookie of the handshake request when it came from the page's own
  // origin (a cookie sent cross-origin counts for nothing); empty otherwise.
  virtual const std::string& handshake_session() const = 0;
  // Queues one complete Engine.IO packet text (e.g. `42["x",1]`). A session whose queue is full
  // is closed instead; returns false when the packet was not queued.
  virtual bool send(std::shared_ptr<const std::string> packet) = 0;
  virtual void close() = 0;
  // The client joined a namespace: engine_options::connect_timeout_ms no longer applies.
  virtual void joined() = 0;
};

struct engine_hooks {
  std::function<void(const std::shared_ptr<connection>&)> on_open;
  // The data of one Engine.IO message packet (type 4), in arrival order.
  std::function<void(const std::shared_ptr<connection>&, std::string_view data)> on_message;
  // A binary message (raw bytes: a `b<base64>` packet or a websocket binary frame), in order
  // with the text ones. Unset: binary messages are dropped.
  std::function<void(const std::shared_ptr<connection>&, std::string_view bytes)> on_binary{};
  // Exactly once per opened connection, whoever closed it.
  std::function<void(const std::shared_ptr<connection>&)> on_close;
};

struct engine_options {
  int ping_interval_ms = 25000;
  int ping_timeout_ms = 20000;
  // A session whose connection has not joined() by then is closed (socket.io's connectTimeout:
  // a client that never connects to a namespace must not hold a session forever).
  int connect_timeout_ms = 45000;
  std::size_t max_payload = 64 * 1024;    // announced in the open packet
  std::size_t max_queued_packets = 1000;  // per polling session; over it the session closes
  // Bytes of those packets (limits.hpp says why); over it the session closes too.
  std::size_t max_queued_bytes = limits::client_queue_max_bytes;
  bool tls = false;  // the listener serves HTTPS (for same-origin checks)
  // Sessions open at once, in all and per client address (limits.hpp says why these). A new
  // session beyond either is refused as the reference server refuses what its allowRequest
  // denies (403, code 4); sessions already open, joined or not, are never closed to make room.
  std::size_t max_sessions = limits::socketio_max_sessions;
  std::size_t max_sessions_per_address = limits::socketio_max_sessions_per_address;
};

class engine {
 public:
  engine(boost::asio::io_context& io, engine_options options, engine_hooks hooks);
  ~engine();  // stops first
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  // A request whose path is_engine_path(): polling handshake, poll, POST, CORS preflight.
  void handle_request(http::request&& req, http::responder respond);
  // The listener's upgrade_handler for the same paths: websocket handshake or upgrade probe.
  std::optional<http::websocket_events> upgrade(const http::request& req,
                                                std::shared_ptr<http::websocket> socket,
                                                http::response& refusal);
  // Closes every session and refuses new ones (at daemon shutdown).
  void stop();

 private:
  class core;  // owned here; timers and sockets hold it weakly
  std::shared_ptr<core> core_;
};

}  // namespace mixerd::socketio
