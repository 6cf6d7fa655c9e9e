// Helpers for the actor tests: a real actor system configured as the daemon's, scoped actors
// standing in for an actor's peers (through the peers' typed interfaces), and bounded waits for
// messages so that a failing test never hangs.
#pragma once

#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "actors/support/scheduler.hpp"
#include "protocol/events.hpp"

namespace mixerd::test {

inline constexpr auto wait_limit = std::chrono::seconds(2);

// The daemon's scheduler. The capabilities' type-ID blocks are left out: the values never leave
// the process, and CAF passes them without them.
inline caf::actor_system_config& configured(caf::actor_system_config& cfg) {
  configure_scheduler(cfg);
  return cfg;
}

// An actor system set up as the daemon's. Actors spawned through `spawn` (or handed
// to `track`) are killed when the fixture ends, so the system's destructor never waits for them
// forever.
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

  // Spawns like sys.spawn and returns its handle, typed when the behaviour is.
  template <caf::spawn_options Os = caf::no_spawn_options, class... Ts>
  auto spawn(Ts&&... xs) {
    return track(sys.spawn<Os>(std::forward<Ts>(xs)...));
  }

  // Any actor handle, typed or not.
  template <class Handle>
  Handle track(Handle handle) {
    spawned.push_back(caf::actor_cast<caf::actor>(handle));
    return handle;
  }
};

// A scoped actor playing the peer of interface Handle (e.g. device_actor), to be handed to the
// actor under test. The scoped actor receives whatever the actor sends to that peer.
template <class Handle>
Handle playing(const caf::scoped_actor& self) {
  return caf::actor_cast<Handle>(caf::actor{self});
}

// Receives one message matching `handlers`; false when none came within the limit.
template <class... Fs>
bool receive_within(caf::scoped_actor& self, Fs&&... handlers) {
  bool ok = true;
  self->receive(
      std::forward<Fs>(handlers)..., caf::after(wait_limit) >> [&] { ok = false; });
  return ok;
}

// The answer of type T to a request from `self` to `dest`; fails the test when none came within
// the limit or the request failed.
template <class T, class Handle, class... Ts>
T ask(caf::scoped_actor& self, const Handle& dest, Ts&&... xs) {
  std::optional<T> out;
  std::string failure = "no answer within 2 s";
  self->request(dest, wait_limit, std::forward<Ts>(xs)...)
      .receive([&](const T& x) { out = x; },
               [&](const caf::error& e) { failure = self->system().render(e); });
  REQUIRE_MESSAGE(out.has_value(), "request failed: ", failure);
  return std::move(*out);
}

// The state of a stateful actor, for checks after a message round trip has ordered the reads
// after the actor's writes. `Impl` is the actor's (full) interface.
template <class State, class Impl>
State& state_of(const Impl& handle) {
  auto* self = dynamic_cast<typename Impl::template stateful_pointer<State>>(
      caf::actor_cast<caf::abstract_actor*>(handle));
  REQUIRE(self != nullptr);
  return self->state;
}

// The next (publish_atom, event) that `hub` receives.
inline event next_published(caf::scoped_actor& hub) {
  event out;
  REQUIRE_MESSAGE(receive_within(hub, [&](caf::publish_atom, const event& e) { out = e; }),
                  "no event was published within 2 s");
  return out;
}

// The next key and value put into the settings actor (played by `settings`).
inline std::pair<std::string, nlohmann::json> next_put(caf::scoped_actor& settings) {
  std::pair<std::string, nlohmann::json> out;
  REQUIRE_MESSAGE(
      receive_within(settings,
                     [&](caf::put_atom, const std::string& key, const nlohmann::json& value) {
                       out = {key, value};
                     }),
      "the settings actor got no put within 2 s");
  return out;
}

// The next event that a subscriber receives.
inline event next_event(caf::scoped_actor& subscriber) {
  event out;
  REQUIRE_MESSAGE(receive_within(subscriber, [&](const event& e) { out = e; }),
                  "no event arrived within 2 s");
  return out;
}

// Returns the T that `e` holds, failing the test when `e` is an event of another type.
template <class T>
T as(const event& e) {
  REQUIRE_MESSAGE(e.is<T>(), "unexpected event: ", e.empty() ? "none" : e.wire_name());
  return *e.get_if<T>();
}

}  // namespace mixerd::test
