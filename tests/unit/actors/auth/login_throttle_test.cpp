#include "actors/auth/login_throttle.hpp"

#include <doctest/doctest.h>

#include <string>

using mixerd::auth::login_throttle;
using namespace std::chrono_literals;

namespace {

const login_throttle::clock::time_point t0{};

std::string address(int n) {
  return "10.0." + std::to_string(n / 256) + "." + std::to_string(n % 256);
}

}  // namespace

TEST_CASE("five attempts in five minutes, then refused until the oldest leaves the window") {
  login_throttle throttle(5, 5min, 16);
  for (int i = 0; i < 5; ++i) {
    auto a = throttle.admit("192.0.2.1", t0 + i * 10s);
    REQUIRE(a.admitted);
    CHECK(a.earlier == static_cast<std::size_t>(i));
    CHECK_FALSE(a.ticket.shared);
  }
  auto refused = throttle.admit("192.0.2.1", t0 + 60s);
  CHECK_FALSE(refused.admitted);
  CHECK(refused.retry_after == 240);  // t0 leaves at t0 + 300 s
  // A refused attempt is not counted: it does not extend the window.
  CHECK(throttle.admit("192.0.2.1", t0 + 299500ms).retry_after == 1);
  auto after = throttle.admit("192.0.2.1", t0 + 300s);
  CHECK(after.admitted);
  CHECK(after.earlier == 4);
  CHECK(throttle.admit("192.0.2.2", t0 + 60s).admitted);  // another client has its own count
}

TEST_CASE("a success clears the client, an attempt taken back no longer counts") {
  login_throttle throttle(5, 5min, 16);
  login_throttle::counted last;
  for (int i = 0; i < 5; ++i)
    last = throttle.admit("192.0.2.1", t0 + i * 1s).ticket;
  CHECK_FALSE(throttle.admit("192.0.2.1", t0 + 10s).admitted);
  throttle.withdraw(last);
  auto again = throttle.admit("192.0.2.1", t0 + 11s);
  REQUIRE(again.admitted);
  CHECK(again.earlier == 4);
  throttle.clear(again.ticket);
  CHECK(throttle.tracked_clients() == 0);
  CHECK(throttle.admit("192.0.2.1", t0 + 12s).earlier == 0);
  // Taking back a client's only attempt forgets the client.
  auto only = throttle.admit("192.0.2.3", t0 + 12s);
  CHECK(throttle.tracked_clients() == 2);
  throttle.withdraw(only.ticket);
  CHECK(throttle.tracked_clients() == 1);
}

TEST_CASE("an IPv6 client counts as its /64 network") {
  login_throttle throttle(5, 5min, 16);
  for (int i = 0; i < 5; ++i)
    CHECK(throttle.admit("2001:db8:1:2::" + std::to_string(i + 1), t0).admitted);
  CHECK_FALSE(throttle.admit("2001:db8:1:2:ffff::9", t0).admitted);
  CHECK(throttle.admit("2001:db8:1:3::1", t0).admitted);
}

TEST_CASE("with the table full, further clients share one entry and are still counted") {
  login_throttle throttle(5, 5min, 100);
  for (int n = 0; n < 100; ++n)
    REQUIRE(throttle.admit(address(n), t0).admitted);
  CHECK(throttle.tracked_clients() == 100);

  // Clients beyond the table count together, with the limit of one client, and go last.
  for (int n = 100; n < 105; ++n) {
    auto a = throttle.admit(address(n), t0 + 1s);
    REQUIRE(a.admitted);
    CHECK(a.ticket.shared);
    CHECK(a.earlier == static_cast<std::size_t>(n - 100));
  }
  CHECK(throttle.shared_attempts() == 5);
  auto refused = throttle.admit(address(200), t0 + 2s);
  CHECK_FALSE(refused.admitted);
  CHECK(refused.retry_after == 299);
  // Tracked clients keep their own count.
  auto tracked = throttle.admit(address(7), t0 + 2s);
  CHECK(tracked.admitted);
  CHECK_FALSE(tracked.ticket.shared);

  // A success in the shared entry takes back only its own attempt.
  throttle.clear(throttle.admit(address(7), t0 + 2s).ticket);
  login_throttle::counted shared_ticket{std::string(), true, t0 + 1s};
  throttle.clear(shared_ticket);
  CHECK(throttle.shared_attempts() == 4);

  // Once the tracked clients' window has passed, new clients get entries of their own again.
  auto later = throttle.admit(address(300), t0 + 301s);
  CHECK(later.admitted);
  CHECK_FALSE(later.ticket.shared);
  CHECK(throttle.shared_attempts() == 0);
}
