// Private to the engine: how many Engine.IO sessions are open, in all and per client address,
// whether one more may open, and when the memory of closed ones should go back to the system.
// Counts only; the sessions themselves are the engine's. io thread only, like the engine.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace mixerd::socketio::detail {

class session_caps {
 public:
  using clock = std::chrono::steady_clock;

  session_caps(std::size_t max_total, std::size_t max_per_address)
      : max_total_(max_total), max_per_address_(max_per_address) {}

  // Why a new session from `address` may not open now (the message of the 403), or empty when
  // it may. An address at its own cap hears about that one first.
  std::string_view refusal(const std::string& address) const;
  void opened(const std::string& address);
  // True when the open sessions have just fallen to a quarter of a peak of at least
  // trim_after_peak: the moment to hand freed memory back (once per such fall).
  bool closed(const std::string& address);

  // Counts a refusal; returns how many to report when a log line is due (the first one, then
  // at most one line per report_interval with the number refused since the last line).
  std::optional<std::size_t> refused(clock::time_point now);

  std::size_t open() const { return open_; }
  std::size_t addresses() const { return per_address_.size(); }  // with a session open
  std::size_t max_total() const { return max_total_; }
  std::size_t max_per_address() const { return max_per_address_; }

  // glibc keeps the pages of freed sessions in its heaps (a flood's 2000 sessions: ~5 MB that
  // later requests do not reuse); smaller peaks are not worth a walk of every heap.
  static constexpr std::size_t trim_after_peak = 256;
  // A flood meets the caps thousands of times a second; the log must not.
  static constexpr auto report_interval = std::chrono::seconds(10);

 private:
  std::size_t max_total_;
  std::size_t max_per_address_;
  std::size_t open_ = 0;
  std::unordered_map<std::string, std::size_t> per_address_;  // no zero counts
  std::size_t peak_ = 0;  // the most open at once since memory was last handed back
  std::size_t unreported_ = 0;
  clock::time_point next_report_{};
};

}  // namespace mixerd::socketio::detail
