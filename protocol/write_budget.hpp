// Bytes written to storage in a rolling window, for a writer that must not wear out an SD card
// however fast it is asked (the profile folder: protocol/README.md, "Audio profiles"). Each write
// costs its bytes, at least `min_cost` (an fsync costs about the same whatever it writes), and
// a write is refused while the window's costs, those promised to writes not done yet, and its
// own would pass `max_bytes`. Pure: the caller passes the time. Memory: one entry per write in
// the window, at most max_bytes / min_cost.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <utility>

namespace mixerd {

class write_budget {
 public:
  using clock = std::chrono::steady_clock;

  write_budget(std::size_t max_bytes, clock::duration window, std::size_t min_cost);

  // What writing `bytes` costs.
  std::size_t cost_of(std::size_t bytes) const { return bytes < min_cost_ ? min_cost_ : bytes; }
  // 0 when a write costing `cost` fits at `now` beside `promised` (the costs of writes accepted
  // but not yet done); else the whole seconds (at least 1) until it would, as far as the
  // window alone decides (promised writes are done well within that).
  int wait_for(std::size_t cost, std::size_t promised, clock::time_point now);
  // Counts a write done at `now`.
  void spend(std::size_t cost, clock::time_point now);

  // The costs inside the window at `now`.
  std::size_t spent(clock::time_point now);
  std::size_t max_bytes() const { return max_bytes_; }
  clock::duration window() const { return window_; }

 private:
  void forget_expired(clock::time_point now);

  std::size_t max_bytes_;
  clock::duration window_;
  std::size_t min_cost_;
  std::deque<std::pair<clock::time_point, std::size_t>> writes_;  // oldest first
  std::size_t spent_ = 0;                                         // their costs
};

}  // namespace mixerd
