// Talks to systemd when it started mixerd (a unit with Type=notify): READY=1 once every
// listener listens, STOPPING=1 when a stop begins, and WATCHDOG=1 at half the unit's
// WatchdogSec while the io thread and every actor answer. Without NOTIFY_SOCKET in the
// environment it does nothing at all: no timer, no probe, no message.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mixerd {

namespace http {
class io_actor;
}

// Every `interval`, asks each actor in `probed` for CAF's built-in "info" answer (sys, get,
// "info": every scheduled actor answers it from its own mailbox, whatever its behaviour) and
// calls `alive` on the io thread once all of them answered. The cooperative actors share one
// scheduler worker (configure_actor_system): one of them stuck holds up the answers of all of
// them; a detached actor stuck on its own thread holds up its own answer. Either way `alive`
// is not called until they answer again. The first probe goes out at start().
class liveness_watchdog {
 public:
  liveness_watchdog(boost::asio::io_context& io, http::io_actor& io_actor,
                    std::vector<caf::actor> probed, std::chrono::milliseconds interval,
                    std::function<void()> alive);
  ~liveness_watchdog();
  liveness_watchdog(const liveness_watchdog&) = delete;
  liveness_watchdog& operator=(const liveness_watchdog&) = delete;

  // Both on the io thread.
  void start();
  void stop();

 private:
  struct round;
  void probe();
  void tick();

  boost::asio::steady_timer timer_;
  http::io_actor& io_actor_;
  std::vector<caf::actor> probed_;
  std::chrono::milliseconds interval_;
  std::function<void()> alive_;
  // The probe in flight; answers to an older one find it replaced and are ignored.
  std::shared_ptr<round> current_;
  bool unanswered_logged_ = false;
};

class service_manager {
 public:
  // Reads NOTIFY_SOCKET and WATCHDOG_USEC (via sd_watchdog_enabled) once, here.
  service_manager(boost::asio::io_context& io, http::io_actor& io_actor,
                  std::vector<caf::actor> probed);
  ~service_manager();
  service_manager(const service_manager&) = delete;
  service_manager& operator=(const service_manager&) = delete;

  // On the io thread, after the "listening on" lines: READY=1 with STATUS=`status`; starts the
  // watchdog when the unit has one.
  void ready(const std::string& status);
  // STOPPING=1; the watchdog stops.
  void stopping();

 private:
  bool notify_ = false;
  std::optional<std::chrono::microseconds> watchdog_period_;
  std::unique_ptr<liveness_watchdog> watchdog_;
  boost::asio::io_context& io_;
  http::io_actor& io_actor_;
  std::vector<caf::actor> probed_;
};

// A test hook (protocol/README.md, "systemd"): with MIXERD_TEST_WEDGE_ON_SIGNAL=1 in the
// environment, SIGUSR2 makes a cooperative actor block the scheduler worker that runs every
// cooperative actor, as a stuck actor would; the next SIGUSR2 lets it go. Without the variable
// SIGUSR2 keeps its default action.
class test_wedge {
 public:
  test_wedge(boost::asio::io_context& io, caf::actor_system& sys);
  ~test_wedge();  // release()
  test_wedge(const test_wedge&) = delete;
  test_wedge& operator=(const test_wedge&) = delete;
  // Lets a blocked actor go and stops it; called before the actors are shut down.
  void release();

  struct gate;  // the blocked actor waits until it opens

 private:
  void wait_signal();
  std::shared_ptr<gate> gate_;
  std::optional<boost::asio::signal_set> signal_;
  caf::actor blocker_;
};

}  // namespace mixerd
