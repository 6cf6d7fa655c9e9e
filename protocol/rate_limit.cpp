#include "protocol/rate_limit.hpp"

#include <algorithm>

namespace mixerd {

rate_limiter::rate_limiter(std::size_t max_requests, clock::duration window,
                           std::size_t max_addresses)
    : max_requests_(std::max<std::size_t>(max_requests, 1)),
      window_(window),
      max_addresses_(std::max<std::size_t>(max_addresses, 1)) {}

// Addresses are ordered by their newest counted request, so the expired ones are at the front.
void rate_limiter::forget_expired(clock::time_point now) {
  while (!recency_.empty()) {
    auto it = by_address_.find(recency_.front());
    if (now - it->second.times.back() < window_) break;
    by_address_.erase(it);
    recency_.pop_front();
  }
}

int rate_limiter::admit(const std::string& address, clock::time_point now) {
  forget_expired(now);
  auto found = by_address_.find(address);
  if (found == by_address_.end()) {
    if (by_address_.size() >= max_addresses_) {
      by_address_.erase(recency_.front());
      recency_.pop_front();
    }
    recency_.push_back(address);
    entry fresh;
    fresh.times.reserve(max_requests_);
    fresh.times.push_back(now);
    fresh.recency = std::prev(recency_.end());
    by_address_.emplace(address, std::move(fresh));
    return 0;
  }
  auto& e = found->second;
  auto& times = e.times;
  times.erase(times.begin(), std::find_if(times.begin(), times.end(),
                                          [&](clock::time_point t) { return now - t < window_; }));
  if (times.size() >= max_requests_) {
    auto wait = times.front() + window_ - now;
    auto seconds = std::chrono::ceil<std::chrono::seconds>(wait).count();
    return static_cast<int>(std::max<decltype(seconds)>(seconds, 1));
  }
  times.push_back(now);
  recency_.splice(recency_.end(), recency_, e.recency);
  return 0;
}

}  // namespace mixerd
