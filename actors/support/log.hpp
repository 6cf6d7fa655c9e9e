// The daemon's log: one line per event on stderr, "<time> <level> <component>: <text>".
// Lines are assembled first and written with one call, so threads never interleave.
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace mixerd::log {

enum class level { trace, debug, info, warn, error };

std::optional<level> level_from_string(std::string_view name);
void set_level(level l);
bool enabled(level l);
void write(level l, std::string_view component, std::string_view text);

namespace detail {
template <class... Ts>
void emit(level l, std::string_view component, const Ts&... parts) {
  if (!enabled(l)) return;
  std::ostringstream out;
  (out << ... << parts);
  write(l, component, out.str());
}
}  // namespace detail

template <class... Ts>
void trace(std::string_view c, const Ts&... p) {
  detail::emit(level::trace, c, p...);
}
template <class... Ts>
void debug(std::string_view c, const Ts&... p) {
  detail::emit(level::debug, c, p...);
}
template <class... Ts>
void info(std::string_view c, const Ts&... p) {
  detail::emit(level::info, c, p...);
}
template <class... Ts>
void warn(std::string_view c, const Ts&... p) {
  detail::emit(level::warn, c, p...);
}
template <class... Ts>
void error(std::string_view c, const Ts&... p) {
  detail::emit(level::error, c, p...);
}

}  // namespace mixerd::log
