// An actor whose messages are handled on the io thread (CAF's actor_companion): gateways ask
// the owning actors from where the request is, and the answer comes back there. A write is one
// message to its owner and one back, with no gateway actor in between. Every member function is
// called on the io thread only.
#pragma once

#include <caf/actor_companion.hpp>
#include <caf/mixin/requester.hpp>
#include <caf/scoped_execution_unit.hpp>
#include <chrono>
#include <memory>

namespace boost::asio {
class io_context;
}

namespace mixerd::http {

class io_companion
    : public caf::extend<caf::actor_companion, io_companion>::with<caf::mixin::requester> {
 public:
  using super = caf::extend<caf::actor_companion, io_companion>::with<caf::mixin::requester>;
  explicit io_companion(caf::actor_config& cfg) : super(cfg) {}
};

class io_actor {
 public:
  io_actor(caf::actor_system& sys, boost::asio::io_context& io);
  ~io_actor();  // stop()
  io_actor(const io_actor&) = delete;
  io_actor& operator=(const io_actor&) = delete;

  // Sends a request; `then(on_reply, on_error)` on the result registers the handlers, which
  // run on the io thread. A reply that never comes ends as sec::request_timeout after `timeout`.
  template <class Handle, class... Ts>
  auto request(const Handle& dest, std::chrono::milliseconds timeout, Ts&&... xs) {
    return self()->request(dest, timeout, std::forward<Ts>(xs)...);
  }
  template <class Handle, class... Ts>
  void send(const Handle& dest, Ts&&... xs) {
    self()->send(dest, std::forward<Ts>(xs)...);
  }

  // Answers still on their way are dropped; later requests fail at once.
  void stop();

  // The companion as a scheduled actor, for what asks from it without a typed request (the
  // command runner).
  caf::scheduled_actor* scheduled() const;

 private:
  io_companion* self() const;
  struct shared;  // what the enqueue callback (any thread) shares with the io thread
  std::shared_ptr<shared> shared_;
  caf::strong_actor_ptr handle_;
};

}  // namespace mixerd::http
