// Small text predicates shared by the unit tests.
#pragma once

#include <string_view>

namespace mixerd::test {

inline bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// Non-empty, and only the digits and lower-case letters of hexadecimal.
inline bool is_lower_hex(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace mixerd::test
