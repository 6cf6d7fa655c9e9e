#include "gateways/http/io_actor.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <caf/actor_system.hpp>
#include <caf/all.hpp>

namespace mixerd::http {

struct io_actor::shared {
  explicit shared(caf::actor_system& sys) : unit(&sys) {}
  caf::scoped_execution_unit unit;
  bool stopped = false;  // io thread only
};

io_actor::io_actor(caf::actor_system& sys, boost::asio::io_context& io)
    : shared_(std::make_shared<shared>(sys)),
      handle_(caf::actor_cast<caf::strong_actor_ptr>(sys.spawn<io_companion>())) {
  // Called on whichever thread delivers a message; the message is handled on the io thread.
  // The callback holds the companion weakly: once it is gone, late messages are dropped.
  std::weak_ptr<shared> weak = shared_;
  auto* companion = self();
  // An actor with neither a behavior nor a pending reply ends itself after each message; this
  // one lives until stop(). Messages other than replies (none are expected) are dropped.
  companion->become([](caf::tick_atom) {});
  companion->set_default_handler(caf::drop);
  companion->on_enqueue([&io, weak, companion](caf::mailbox_element_ptr ptr) {
    // Asio handlers must be copyable: the element travels in a shared_ptr with CAF's deleter.
    std::shared_ptr<caf::mailbox_element> element(ptr.release(), caf::detail::disposer{});
    boost::asio::post(io, [weak, companion, element] {
      auto state = weak.lock();
      if (!state || state->stopped) return;
      companion->activate(&state->unit, *element);
    });
  });
}

io_actor::~io_actor() {
  stop();
}

io_companion* io_actor::self() const {
  return static_cast<io_companion*>(caf::actor_cast<caf::abstract_actor*>(handle_));
}

caf::scheduled_actor* io_actor::scheduled() const {
  return self();
}

void io_actor::stop() {
  if (shared_->stopped) return;
  shared_->stopped = true;
  // Drops the pending response handlers and terminates the companion (it is never scheduled,
  // so this is its end).
  self()->cleanup(caf::exit_reason::user_shutdown, &shared_->unit);
}

}  // namespace mixerd::http
