// A rolling-window rate limiter per client address (docs/api.md: 30 requests per 60 s, a
// refused request is not counted). Pure: the caller passes the time. Memory is bounded: at most
// `max_requests` time stamps for each of at most `max_addresses` addresses; when the table is
// full, addresses whose window has passed go first, then the one that was counted least
// recently.
#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

namespace mixerd {

class rate_limiter {
 public:
  using clock = std::chrono::steady_clock;

  rate_limiter(std::size_t max_requests, clock::duration window, std::size_t max_addresses);

  // Counts a request from `address` at `now` and returns 0 while the address has room;
  // otherwise returns the whole seconds (at least 1) until its oldest counted request leaves
  // the window, and counts nothing.
  int admit(const std::string& address, clock::time_point now);

  std::size_t tracked_addresses() const { return by_address_.size(); }
  std::size_t max_requests() const { return max_requests_; }
  clock::duration window() const { return window_; }

 private:
  struct entry {
    std::vector<clock::time_point> times;  // counted requests inside the window, oldest first
    std::list<std::string>::iterator recency;
  };
  void forget_expired(clock::time_point now);

  std::size_t max_requests_;
  clock::duration window_;
  std::size_t max_addresses_;
  std::unordered_map<std::string, entry> by_address_;
  std::list<std::string> recency_;  // least recently counted first
};

}  // namespace mixerd
