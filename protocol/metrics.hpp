// The daemon's counters for GET /metrics (docs/api.md, "GET /metrics"; protocol/README.md,
// "Metrics") and the Prometheus text exposition format 0.0.4 they are written in. Each counter is
// bumped where the thing it counts already happens, with one relaxed atomic increment: no lock,
// no message. The route reads them when it is asked. Pure: atomics, no I/O.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mixerd::metrics {

// The Content-Type of the text format.
inline constexpr std::string_view content_type = "text/plain; version=0.0.4; charset=utf-8";

using counter = std::atomic<std::uint64_t>;

// The daemon's own counters (its listeners and Socket.IO). Each capability keeps its own next
// to its interface (protocol/<cap>.hpp) and writes them through its row.
struct counters {
  std::atomic<std::int64_t> socketio_clients{0};  // a gauge: open Socket.IO connections
  counter socketio_events_sent{0};
};

// The process's one block (like a Prometheus client library's default registry).
counters& process();

// Seconds since the Unix epoch when the process started.
double start_time_seconds();

inline void bump(counter& c) {
  c.fetch_add(1, std::memory_order_relaxed);
}

// The value of a counter now.
inline std::uint64_t read(const counter& c) {
  return c.load(std::memory_order_relaxed);
}

// Answered requests by listener, route and status. A route is its index in its listener's route
// list (gateways/http/router.hpp routes_of); `unmatched` counts the requests no route took (404,
// 405, preflights). Each route keeps up to `statuses_per_route` distinct statuses, claimed
// lock-free on first use; further ones are counted under status 0 ("other").
class request_counts {
 public:
  static constexpr std::size_t listeners = 3;
  static constexpr std::size_t max_routes = 255;
  static constexpr std::size_t unmatched = max_routes;
  static constexpr std::size_t statuses_per_route = 15;

  void count(std::size_t listener, std::size_t route, int status);

  struct row {
    std::size_t listener;
    std::size_t route;  // unmatched for no route
    int status;         // 0: a status past the route's slots
    std::uint64_t count;
  };
  // Every non-zero count, by listener, route, then slot order.
  std::vector<row> rows() const;

 private:
  struct slot {
    std::atomic<int> status{0};
    std::atomic<std::uint64_t> count{0};
  };
  struct per_route {
    std::array<slot, statuses_per_route> slots{};
    std::atomic<std::uint64_t> other{0};
  };
  std::array<std::array<per_route, max_routes + 1>, listeners> table_{};
};

// The process's request counts.
request_counts& requests();

// Builds an exposition text: each family's # HELP and # TYPE lines, then its samples.
class exposition {
 public:
  using labels = std::vector<std::pair<std::string_view, std::string>>;

  // type: "counter" or "gauge".
  void family(std::string_view name, std::string_view help, std::string_view type);
  void sample(std::string_view name, const labels& with, double value);
  void sample(std::string_view name, const labels& with, std::uint64_t value);
  void sample(std::string_view name, std::uint64_t value) { sample(name, {}, value); }

  const std::string& text() const { return text_; }

 private:
  void head(std::string_view name, const labels& with);
  std::string text_;
};

// A label value escaped for the text format (backslash, double quote, line feed).
std::string escape_label(std::string_view value);

}  // namespace mixerd::metrics
