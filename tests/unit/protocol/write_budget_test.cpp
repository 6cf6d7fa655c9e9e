#include "protocol/write_budget.hpp"

#include <doctest/doctest.h>

using mixerd::write_budget;
using namespace std::chrono_literals;

namespace {
const write_budget::clock::time_point t0{};
constexpr std::size_t KiB = 1024;
}  // namespace

TEST_CASE("writes fit until the window holds max_bytes, then wait for the oldest to leave") {
  write_budget budget(1000 * KiB, 60s, 64 * KiB);
  CHECK(budget.cost_of(10) == 64 * KiB);  // a small write costs its fsync
  CHECK(budget.cost_of(300 * KiB) == 300 * KiB);
  CHECK(budget.wait_for(300 * KiB, 0, t0) == 0);
  budget.spend(300 * KiB, t0);
  CHECK(budget.wait_for(300 * KiB, 0, t0 + 10s) == 0);
  budget.spend(300 * KiB, t0 + 10s);
  CHECK(budget.wait_for(300 * KiB, 0, t0 + 20s) == 0);
  budget.spend(300 * KiB, t0 + 20s);
  CHECK(budget.spent(t0 + 20s) == 900 * KiB);
  // 900 + 300 > 1000: the first write leaves at t0 + 60 s.
  CHECK(budget.wait_for(300 * KiB, 0, t0 + 30s) == 30);
  CHECK(budget.wait_for(300 * KiB, 0, t0 + 59500ms) == 1);
  CHECK(budget.wait_for(300 * KiB, 0, t0 + 60s) == 0);
  CHECK(budget.spent(t0 + 60s) == 600 * KiB);
  // A small write fits where a large one does not.
  CHECK(budget.wait_for(budget.cost_of(1), 0, t0 + 60s) == 0);
}

TEST_CASE("writes promised but not done count, and a refused write counts nothing") {
  write_budget budget(1000 * KiB, 60s, 64 * KiB);
  budget.spend(500 * KiB, t0);
  CHECK(budget.wait_for(400 * KiB, 0, t0) == 0);
  CHECK(budget.wait_for(400 * KiB, 200 * KiB, t0 + 5s) == 55);
  for (int i = 0; i < 10; ++i)
    CHECK(budget.wait_for(600 * KiB, 0, t0 + 1s) > 0);
  CHECK(budget.spent(t0 + 1s) == 500 * KiB);
  // More than the budget can ever hold at once: the whole window.
  CHECK(budget.wait_for(900 * KiB, 200 * KiB, t0 + 1s) == 60);
  CHECK(budget.wait_for(2000 * KiB, 0, t0 + 90s) == 60);
}
