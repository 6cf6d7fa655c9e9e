#include "protocol/write_budget.hpp"

namespace mixerd {

write_budget::write_budget(std::size_t max_bytes, clock::duration window, std::size_t min_cost)
    : max_bytes_(max_bytes), window_(window), min_cost_(min_cost) {}

void write_budget::forget_expired(clock::time_point now) {
  while (!writes_.empty() && writes_.front().first + window_ <= now) {
    spent_ -= writes_.front().second;
    writes_.pop_front();
  }
}

std::size_t write_budget::spent(clock::time_point now) {
  forget_expired(now);
  return spent_;
}

int write_budget::wait_for(std::size_t cost, std::size_t promised, clock::time_point now) {
  forget_expired(now);
  if (spent_ + promised + cost <= max_bytes_) return 0;
  auto wait = window_;
  if (promised + cost <= max_bytes_) {
    // The oldest writes leave first: wait until enough of them have.
    std::size_t left = spent_;
    for (const auto& [at, spent] : writes_) {
      left -= spent;
      if (left + promised + cost <= max_bytes_) {
        wait = at + window_ - now;
        break;
      }
    }
  }
  const auto seconds = std::chrono::ceil<std::chrono::seconds>(wait).count();
  return static_cast<int>(seconds < 1 ? 1 : seconds);
}

void write_budget::spend(std::size_t cost, clock::time_point now) {
  forget_expired(now);
  writes_.emplace_back(now, cost);
  spent_ += cost;
}

}  // namespace mixerd
