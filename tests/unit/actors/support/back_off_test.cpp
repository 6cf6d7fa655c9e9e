#include "actors/support/back_off.hpp"

#include <doctest/doctest.h>

using namespace std::chrono_literals;
using mixerd::back_off;

TEST_CASE("a back-off doubles from the first delay up to the longest") {
  back_off retry{500ms, 5000ms};
  CHECK(retry.upcoming() == 500ms);
  CHECK(retry.next() == 500ms);
  CHECK(retry.next() == 1000ms);
  CHECK(retry.next() == 2000ms);
  CHECK(retry.next() == 4000ms);
  CHECK(retry.next() == 5000ms);
  CHECK(retry.next() == 5000ms);
  CHECK(retry.failures() == 6);
}

TEST_CASE("a success starts the back-off over") {
  back_off retry{1s, 30s};
  retry.next();
  retry.next();
  CHECK(retry.upcoming() == 4s);
  retry.reset();
  CHECK(retry.next() == 1s);
}

TEST_CASE("the wait after n failures in a row never overflows past the longest") {
  constexpr back_off restarts{1s, 60s};
  CHECK(restarts.delay_after(1) == 1s);
  CHECK(restarts.delay_after(4) == 8s);
  CHECK(restarts.delay_after(7) == 60s);
  CHECK(restarts.delay_after(1000) == 60s);
  CHECK(restarts.longest() == 60s);
}
