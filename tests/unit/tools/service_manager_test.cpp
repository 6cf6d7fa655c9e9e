#include "tools/mixerd/service_manager.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <caf/all.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <thread>

#include "gateways/http/io_actor.hpp"
#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/io_thread.hpp"
#include "tests/unit/support/wait.hpp"

namespace m = mixerd;
using namespace std::chrono_literals;

namespace {

constexpr auto interval = 50ms;

// An actor that, on `ok`, blocks whatever thread runs it until the gate opens: the stuck actor.
struct stuck_gate {
  std::promise<void> open;
  std::shared_future<void> opened = open.get_future().share();
  std::atomic<bool> blocked{false};
};

caf::behavior blocker(caf::event_based_actor*, std::shared_ptr<stuck_gate> gate) {
  return {[gate](caf::ok_atom) {
    gate->blocked = true;
    gate->opened.wait();
  }};
}

// The unused argument: CAF 0.17's spawn of a function without arguments dereferences an empty
// argument tuple (UBSan reports it).
caf::behavior idle(caf::event_based_actor*, int) {
  return {[](int x) { return x; }};
}

// The daemon's wiring: one cooperative worker, the io actor on an io thread, the watchdog
// counting its pings.
struct watchdog_fixture {
  m::test::io_thread io;  // first: destroyed last
  m::test::actor_fixture actors;
  std::unique_ptr<m::http::io_actor> io_actor =
      std::make_unique<m::http::io_actor>(actors.sys, io.io);
  std::unique_ptr<m::liveness_watchdog> watchdog;
  std::atomic<int> pings{0};
  std::shared_ptr<stuck_gate> gate = std::make_shared<stuck_gate>();

  watchdog_fixture() = default;
  watchdog_fixture(const watchdog_fixture&) = delete;
  watchdog_fixture& operator=(const watchdog_fixture&) = delete;
  ~watchdog_fixture() {
    release();
    CHECK(io.run_here([this] {
      watchdog.reset();
      io_actor.reset();
    }));
  }

  void release() {
    if (!gate->opened.valid() || gate->opened.wait_for(0s) != std::future_status::ready)
      gate->open.set_value();
  }

  void start(std::vector<caf::actor> probed) {
    REQUIRE(io.run_here([this, probed] {
      watchdog = std::make_unique<m::liveness_watchdog>(io.io, *io_actor, probed, interval,
                                                        [this] { ++pings; });
      watchdog->start();
    }));
  }

  // The pings during `span` after `gate` is blocked: one round answered just before may land.
  int pings_while_stuck(std::chrono::milliseconds span) {
    REQUIRE(m::test::eventually([&] { return gate->blocked.load(); }));
    const int before = pings;
    std::this_thread::sleep_for(span);  // waiting for nothing to happen
    return pings - before;
  }
};

}  // namespace

TEST_CASE("liveness watchdog: pings every interval while every actor answers") {
  watchdog_fixture f;
  auto cooperative = f.actors.spawn(idle, 0);
  auto detached = f.actors.spawn<caf::detached>(idle, 0);
  f.start({cooperative, detached});
  const auto started = std::chrono::steady_clock::now();
  REQUIRE(m::test::eventually([&] { return f.pings >= 5; }));
  // The first at once, then one per interval.
  CHECK(std::chrono::steady_clock::now() - started >= 4 * interval - 10ms);
}

TEST_CASE("liveness watchdog: a stuck detached actor stops the pings until it goes on") {
  watchdog_fixture f;
  auto cooperative = f.actors.spawn(idle, 0);
  auto stuck = f.actors.spawn<caf::detached>(blocker, f.gate);
  f.start({cooperative, stuck});
  REQUIRE(m::test::eventually([&] { return f.pings >= 1; }));
  caf::anon_send(stuck, caf::ok_atom_v);
  CHECK(f.pings_while_stuck(6 * interval) <= 1);
  const int before = f.pings;
  f.release();
  CHECK(m::test::eventually([&] { return f.pings >= before + 2; }));
}

TEST_CASE("liveness watchdog: a stuck cooperative actor stops the pings of every cooperative one") {
  watchdog_fixture f;
  // Only idle actors are probed: the stuck one holds the one worker they all share.
  auto cooperative = f.actors.spawn(idle, 0);
  auto detached = f.actors.spawn<caf::detached>(idle, 0);
  auto stuck = f.actors.spawn(blocker, f.gate);
  f.start({cooperative, detached});
  REQUIRE(m::test::eventually([&] { return f.pings >= 1; }));
  caf::anon_send(stuck, caf::ok_atom_v);
  CHECK(f.pings_while_stuck(6 * interval) <= 1);
  const int before = f.pings;
  f.release();
  CHECK(m::test::eventually([&] { return f.pings >= before + 2; }));
}

TEST_CASE("liveness watchdog: an actor that is gone stops the pings") {
  watchdog_fixture f;
  auto gone = f.actors.spawn(idle, 0);
  f.start({gone});
  REQUIRE(m::test::eventually([&] { return f.pings >= 1; }));
  caf::anon_send_exit(gone, caf::exit_reason::kill);
  // Its answers fail from the next round on; one round may have been answered before.
  std::this_thread::sleep_for(2 * interval);
  const int before = f.pings;
  std::this_thread::sleep_for(4 * interval);  // waiting for nothing to happen
  CHECK(f.pings == before);
}
