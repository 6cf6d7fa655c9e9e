// The password checks waiting for a free checker thread (docs/api.md, "Password checks"). At
// most `capacity` wait; the auth actor sizes it so that the last one would start within about
// two seconds. The next to run is the one whose client had the fewest attempts counted before
// it (a client that has not failed goes before those that have), and among those the newest:
// under a flood, a new arrival is answered quickly and the ones that waited longest are the ones
// refused (a queue served newest-first under overload answers most requests before their
// clients give up). When the queue is full, the entry that would run last is refused: the
// newcomer itself, unless it would run before a waiting one. Pure: the caller passes the time.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace mixerd::auth {

template <class Payload>
class check_queue {
 public:
  using clock = std::chrono::steady_clock;

  explicit check_queue(std::size_t capacity) : capacity_(std::max<std::size_t>(capacity, 1)) {}

  // Queues `payload`, whose client had `earlier` attempts counted before it. Returns the
  // payload refused to make room (the newcomer or a waiting one), or nothing.
  std::optional<Payload> push(std::size_t earlier, clock::time_point arrived, Payload payload) {
    waiting_.push_back({earlier, next_sequence_++, arrived, std::move(payload)});
    if (waiting_.size() <= capacity_) return std::nullopt;
    return take(last());
  }

  // The check to run next, or nothing when none waits.
  std::optional<Payload> pop() {
    if (waiting_.empty()) return std::nullopt;
    auto next = std::min_element(waiting_.begin(), waiting_.end(), runs_before);
    return take(next);
  }

  // Removes and returns the checks that arrived before `cutoff` (they waited too long).
  std::vector<Payload> take_older_than(clock::time_point cutoff) {
    std::vector<Payload> out;
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if (it->arrived < cutoff) {
        out.push_back(std::move(it->payload));
        it = waiting_.erase(it);
      } else {
        ++it;
      }
    }
    return out;
  }

  // A new capacity; returns the checks that no longer fit, those that would run last.
  std::vector<Payload> resize(std::size_t capacity) {
    capacity_ = std::max<std::size_t>(capacity, 1);
    std::vector<Payload> out;
    while (waiting_.size() > capacity_)
      out.push_back(*take(last()));
    return out;
  }

  std::size_t size() const { return waiting_.size(); }
  std::size_t capacity() const { return capacity_; }

 private:
  struct entry {
    std::size_t earlier;
    std::uint64_t sequence;  // arrival order
    clock::time_point arrived;
    Payload payload;
  };
  using iterator = typename std::vector<entry>::iterator;

  static bool runs_before(const entry& a, const entry& b) {
    if (a.earlier != b.earlier) return a.earlier < b.earlier;
    return a.sequence > b.sequence;
  }

  iterator last() { return std::max_element(waiting_.begin(), waiting_.end(), runs_before); }

  std::optional<Payload> take(iterator it) {
    std::optional<Payload> out(std::move(it->payload));
    waiting_.erase(it);
    return out;
  }

  std::size_t capacity_;
  std::uint64_t next_sequence_ = 0;
  std::vector<entry> waiting_;
};

}  // namespace mixerd::auth
