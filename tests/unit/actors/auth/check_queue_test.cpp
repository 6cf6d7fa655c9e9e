#include "actors/auth/check_queue.hpp"

#include <doctest/doctest.h>

#include <vector>

using mixerd::auth::check_queue;
using namespace std::chrono_literals;

namespace {

using queue = check_queue<int>;
const queue::clock::time_point t0{};

std::vector<int> drain(queue& q) {
  std::vector<int> out;
  while (auto next = q.pop())
    out.push_back(*next);
  return out;
}

}  // namespace

TEST_CASE("checks of clients with fewer earlier attempts run first, the newest of them first") {
  queue q(10);
  CHECK_FALSE(q.pop());
  CHECK_FALSE(q.push(2, t0, 1));
  CHECK_FALSE(q.push(0, t0, 2));
  CHECK_FALSE(q.push(1, t0, 3));
  CHECK_FALSE(q.push(0, t0, 4));
  CHECK_FALSE(q.push(5, t0, 5));
  CHECK(q.size() == 5);
  CHECK(drain(q) == std::vector<int>{4, 2, 3, 1, 5});
  CHECK(q.size() == 0);
}

TEST_CASE("a full queue refuses the check that would run last") {
  queue q(3);
  CHECK_FALSE(q.push(1, t0, 1));
  CHECK_FALSE(q.push(1, t0, 2));
  CHECK_FALSE(q.push(4, t0, 3));
  // A newcomer that runs before the worst waiting one takes its place.
  CHECK(q.push(0, t0, 4) == 3);
  // Among equals the oldest goes (the newest runs first).
  CHECK(q.push(0, t0, 5) == 1);
  // A newcomer that would run last is refused itself.
  CHECK(q.push(3, t0, 6) == 6);
  CHECK(drain(q) == std::vector<int>{5, 4, 2});
}

TEST_CASE("checks that waited too long are taken out, a smaller capacity refuses the last") {
  queue q(10);
  for (int i = 0; i < 6; ++i)
    q.push(static_cast<std::size_t>(i % 2), t0 + i * 1s, i);
  CHECK(q.take_older_than(t0 + 2s) == std::vector<int>{0, 1});
  CHECK(q.size() == 4);
  // Left: 2 (0 earlier), 3 (1), 4 (0), 5 (1); the last to run are 3, then 5.
  CHECK(q.resize(2) == std::vector<int>{3, 5});
  CHECK(q.capacity() == 2);
  CHECK(drain(q) == std::vector<int>{4, 2});
}
