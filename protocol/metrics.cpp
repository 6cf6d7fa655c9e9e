#include "protocol/metrics.hpp"

#include <chrono>
#include <cstdio>

namespace mixerd::metrics {

namespace {

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

// Taken while the program's statics are initialised, before main().
const double process_start = now_seconds();

}  // namespace

counters& process() {
  static counters block;
  return block;
}

double start_time_seconds() {
  return process_start;
}

void request_counts::count(std::size_t listener, std::size_t route, int status) {
  if (listener >= listeners) return;
  if (route > max_routes) route = unmatched;
  auto& r = table_[listener][route];
  for (auto& s : r.slots) {
    int seen = s.status.load(std::memory_order_relaxed);
    if (seen == 0 && s.status.compare_exchange_strong(seen, status, std::memory_order_relaxed))
      seen = status;
    if (seen == status) {
      s.count.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  r.other.fetch_add(1, std::memory_order_relaxed);
}

std::vector<request_counts::row> request_counts::rows() const {
  std::vector<row> out;
  for (std::size_t l = 0; l < listeners; ++l) {
    for (std::size_t i = 0; i <= max_routes; ++i) {
      const auto& r = table_[l][i];
      for (const auto& s : r.slots) {
        const int status = s.status.load(std::memory_order_relaxed);
        if (status == 0) break;
        // A slot is claimed just before its first count: it may read 0 for an instant.
        if (auto n = s.count.load(std::memory_order_relaxed); n > 0)
          out.push_back({l, i, status, n});
      }
      if (auto n = r.other.load(std::memory_order_relaxed); n > 0) out.push_back({l, i, 0, n});
    }
  }
  return out;
}

request_counts& requests() {
  static request_counts table;
  return table;
}

std::string escape_label(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void exposition::family(std::string_view name, std::string_view help, std::string_view type) {
  text_.append("# HELP ").append(name).append(" ").append(help).append("\n");
  text_.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void exposition::head(std::string_view name, const labels& with) {
  text_.append(name);
  if (with.empty()) return;
  text_ += '{';
  bool first = true;
  for (const auto& [key, value] : with) {
    if (!first) text_ += ',';
    first = false;
    text_.append(key).append("=\"").append(escape_label(value)).append("\"");
  }
  text_ += '}';
}

void exposition::sample(std::string_view name, const labels& with, double value) {
  head(name, with);
  char number[64];
  const int n = std::snprintf(number, sizeof number, " %.17g\n", value);
  text_.append(number, static_cast<std::size_t>(n));
}

void exposition::sample(std::string_view name, const labels& with, std::uint64_t value) {
  head(name, with);
  text_.append(" ").append(std::to_string(value)).append("\n");
}

}  // namespace mixerd::metrics
