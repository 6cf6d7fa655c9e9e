#include "protocol/rate_limit.hpp"

#include <doctest/doctest.h>

#include <string>

using mixerd::rate_limiter;
using namespace std::chrono_literals;

namespace {
const rate_limiter::clock::time_point t0{};
}

TEST_CASE("30 requests in a rolling minute pass, the 31st waits for the oldest to leave") {
  rate_limiter limiter(30, 60s, 16);
  for (int i = 0; i < 30; ++i)
    CHECK(limiter.admit("10.0.0.1", t0 + i * 1s) == 0);
  // The oldest (t0) leaves at t0 + 60 s.
  CHECK(limiter.admit("10.0.0.1", t0 + 30s) == 30);
  CHECK(limiter.admit("10.0.0.1", t0 + 59500ms) == 1);
  CHECK(limiter.admit("10.0.0.1", t0 + 60s) == 0);  // t0 left; this one takes its place
  CHECK(limiter.admit("10.0.0.1", t0 + 60s) == 1);  // the next oldest is t0 + 1 s
  CHECK(limiter.admit("10.0.0.1", t0 + 61s) == 0);
}

TEST_CASE("a refused request does not extend the window") {
  rate_limiter limiter(2, 60s, 16);
  CHECK(limiter.admit("a", t0) == 0);
  CHECK(limiter.admit("a", t0 + 10s) == 0);
  for (int i = 0; i < 100; ++i)
    CHECK(limiter.admit("a", t0 + 20s + i * 100ms) > 0);
  CHECK(limiter.admit("a", t0 + 60s) == 0);
}

TEST_CASE("addresses are counted separately") {
  rate_limiter limiter(3, 60s, 16);
  for (int i = 0; i < 3; ++i)
    CHECK(limiter.admit("127.0.0.1", t0) == 0);
  CHECK(limiter.admit("127.0.0.1", t0) == 60);
  CHECK(limiter.admit("127.0.0.2", t0) == 0);
  CHECK(limiter.admit("::1", t0) == 0);
}

TEST_CASE("memory stays bounded however many addresses call") {
  rate_limiter limiter(30, 60s, 100);
  for (int i = 0; i < 10000; ++i) {
    CHECK(limiter.admit("10." + std::to_string(i / 256) + ".0." + std::to_string(i % 256),
                        t0 + i * 1ms) == 0);
    CHECK(limiter.tracked_addresses() <= 100);
  }
  // Expired addresses are dropped as time passes.
  limiter.admit("late", t0 + 1h);
  CHECK(limiter.tracked_addresses() == 1);
}

TEST_CASE("a full table evicts the address counted least recently") {
  rate_limiter limiter(1, 60s, 2);
  CHECK(limiter.admit("a", t0) == 0);
  CHECK(limiter.admit("b", t0 + 1s) == 0);
  CHECK(limiter.admit("a", t0 + 2s) > 0);   // refused: not counted, "a" stays least recent
  CHECK(limiter.admit("c", t0 + 3s) == 0);  // evicts "a"
  CHECK(limiter.tracked_addresses() == 2);
  CHECK(limiter.admit("b", t0 + 4s) > 0);   // "b" is still tracked
  CHECK(limiter.admit("a", t0 + 5s) == 0);  // "a" starts over (evicts "b")
}
