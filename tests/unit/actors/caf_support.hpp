// Helpers for the actor tests: a real actor system configured as the daemon's, and bounded
// waits for messages so that a failing test never hangs.
#pragma once

#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "actors/system.hpp"
#include "protocol/messages.hpp"

namespace mixerd::test {

inline constexpr auto wait_limit = std::chrono::seconds(2);

inline caf::actor_system_config& configured(caf::actor_system_config& cfg) {
  configure_actor_system(cfg);
  return cfg;
}

// An actor system set up by configure_actor_system. Actors spawned through `spawn` are
// stopped when the fixture ends, so the system's destructor never waits for them forever.
struct actor_fixture {
  caf::actor_system_config cfg;
  caf::actor_system sys{configured(cfg)};
  std::vector<caf::actor> spawned;

  actor_fixture() = default;
  actor_fixture(const actor_fixture&) = delete;
  actor_fixture& operator=(const actor_fixture&) = delete;
  ~actor_fixture() {
    for (const auto& a : spawned)
      caf::anon_send_exit(a, caf::exit_reason::kill);
  }

  template <class... Ts>
  caf::actor spawn(Ts&&... xs) {
    caf::actor a = sys.spawn(std::forward<Ts>(xs)...);
    spawned.push_back(a);
    return a;
  }
};

// Receives one message matching `handlers`; false when none came within the limit.
template <class... Fs>
bool receive_within(caf::scoped_actor& self, Fs&&... handlers) {
  bool ok = true;
  self->receive(
      std::forward<Fs>(handlers)..., caf::after(wait_limit) >> [&] { ok = false; });
  return ok;
}

// The next (publish_atom, event) that `hub` receives.
inline event next_published(caf::scoped_actor& hub) {
  event out;
  REQUIRE_MESSAGE(receive_within(hub, [&](caf::publish_atom, const event& e) { out = e; }),
                  "no event was published within 2 s");
  return out;
}

// The next event that a subscriber receives.
inline event next_event(caf::scoped_actor& subscriber) {
  event out;
  REQUIRE_MESSAGE(receive_within(subscriber, [&](const event& e) { out = e; }),
                  "no event arrived within 2 s");
  return out;
}

// Returns the alternative T of `e`, failing the test when `e` holds another one.
template <class T>
T as(const event& e) {
  REQUIRE_MESSAGE(std::holds_alternative<T>(e), "unexpected event: ", event_name(e));
  return std::get<T>(e);
}

}  // namespace mixerd::test
