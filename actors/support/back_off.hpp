// The one reconnect back-off of the daemon: the first delay, doubled after each failure up to
// the longest, and the first again after a success. Every capability that retries an outside
// party (the device, an audio server, Home Assistant, OBS, the session bus, the MQTT broker, a
// plugin process) waits through one of these. No jitter: each retries one peer of its own.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>

namespace mixerd {

class back_off {
 public:
  constexpr back_off(std::chrono::milliseconds first, std::chrono::milliseconds longest)
      : first_(first), longest_(longest) {}

  // The wait before the next attempt, counting one more failure: first, 2 x first, ... longest.
  std::chrono::milliseconds next() { return delay_after(++failures_); }
  // What next() will return, without counting a failure (for a log line before it).
  std::chrono::milliseconds upcoming() const { return delay_after(failures_ + 1); }
  // A success: the next failure waits `first` again.
  void reset() { failures_ = 0; }

  // The wait after `failures` failures in a row (1: first).
  constexpr std::chrono::milliseconds delay_after(std::size_t failures) const {
    auto delay = first_;
    for (std::size_t i = 1; i < failures && delay < longest_; ++i)
      delay *= 2;
    return std::min(delay, longest_);
  }
  std::size_t failures() const { return failures_; }
  constexpr std::chrono::milliseconds longest() const { return longest_; }

 private:
  std::chrono::milliseconds first_;
  std::chrono::milliseconds longest_;
  std::size_t failures_ = 0;
};

}  // namespace mixerd
