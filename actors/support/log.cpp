#include "actors/support/log.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace mixerd::log {

namespace {
std::atomic<level> current_level{level::info};

constexpr std::string_view names[] = {"trace", "debug", "info", "warn", "error"};

// Text from outside (device lines, request paths) may hold control bytes: a newline would forge
// a log line and an escape sequence would drive the reader's terminal. They are written as \xNN.
void append_escaped(std::string& out, std::string_view text) {
  constexpr char hex[] = "0123456789abcdef";
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b == 0x7f) {
      out += "\\x";
      out += hex[b >> 4];
      out += hex[b & 0xf];
    } else {
      out += c;
    }
  }
}
}  // namespace

std::optional<level> level_from_string(std::string_view name) {
  for (int i = 0; i < 5; ++i)
    if (names[i] == name) return static_cast<level>(i);
  return std::nullopt;
}

void set_level(level l) {
  current_level.store(l, std::memory_order_relaxed);
}

bool enabled(level l) {
  return l >= current_level.load(std::memory_order_relaxed);
}

void write(level l, std::string_view component, std::string_view text) {
  using namespace std::chrono;
  auto now = system_clock::now();
  auto secs = system_clock::to_time_t(now);
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  localtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
  std::string line;
  line.reserve(48 + component.size() + text.size());
  line += stamp;
  char frac[8];
  std::snprintf(frac, sizeof frac, ".%03d ", static_cast<int>(ms));
  line += frac;
  line += names[static_cast<int>(l)];
  line.append(6 - names[static_cast<int>(l)].size(), ' ');
  line += component;
  line += ": ";
  append_escaped(line, text);
  line += '\n';
  // One write(2) per line keeps lines whole across threads.
  auto n = ::write(STDERR_FILENO, line.data(), line.size());
  (void)n;
}

}  // namespace mixerd::log
