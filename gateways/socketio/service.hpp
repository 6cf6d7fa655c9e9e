// The controller's Socket.IO endpoint, assembled: the Engine.IO sessions and the Socket.IO
// namespace on the io thread, the hub subscriber on the CAF side, which posts encoded events to
// the io thread. State answers (initial_state, get_state) and the login check at namespace
// connect are read on the io thread from the capabilities' published views.
// The daemon owns one, routes `/socket.io/` requests and upgrades to it, and stops it after the
// listeners and before the domain actors.
#pragma once

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "actors/support/directory.hpp"
#include "gateways/http/server.hpp"
#include "protocol/limits.hpp"

namespace boost::asio {
class io_context;
}

namespace mixerd::socketio {

class engine;
class namespace_server;

struct service_options {
  int ping_interval_ms = 25000;
  int ping_timeout_ms = 20000;
  int connect_timeout_ms = 45000;
  // Per session: packets waiting for a poll, or events held behind a state answer. Past it the
  // client is not keeping up and is dropped (every queue is bounded).
  std::size_t max_queued_packets = 1000;
  std::size_t max_sessions = limits::socketio_max_sessions;
  std::size_t max_sessions_per_address = limits::socketio_max_sessions_per_address;
  bool tls = false;
};

// socketio_ping_interval_ms / socketio_ping_timeout_ms / socketio_connect_timeout_ms /
// socketio_max_sessions / socketio_max_sessions_per_address (docs/api.md), read once at start.
service_options options_from_settings(const nlohmann::json& settings, bool tls);

class service {
 public:
  // Spawns the broadcaster and subscribes it to the hub; call before io.run(). `dir` must
  // outlive the service.
  service(caf::actor_system& sys, boost::asio::io_context& io, const directory& dir,
          service_options options);
  ~service();  // stop()
  service(const service&) = delete;
  service& operator=(const service&) = delete;

  // The listener's handler: requests under /socket.io/ go to the engine, the rest to `fallback`.
  http::handler route(http::handler fallback) const;
  // The listener's upgrade handler; upgrades to any other path are refused with errors(404).
  http::upgrade_handler upgrade(http::error_writer errors) const;
  // Static headers of the 101 answer (the core cannot vary them per request).
  static std::vector<std::pair<std::string, std::string>> upgrade_headers();

  // Ends every session, then stops this service's actors and waits for them. Call with the io
  // context stopped (or from its thread), before the actors it queries are shut down.
  void stop();

 private:
  caf::actor_system& sys_;
  boost::asio::io_context& io_;
  std::shared_ptr<namespace_server> namespace_;
  std::shared_ptr<engine> engine_;
  caf::actor broadcaster_;
  bool stopped_ = false;
};

}  // namespace mixerd::socketio
