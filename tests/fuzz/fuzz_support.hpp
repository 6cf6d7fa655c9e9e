// Shared by the libFuzzer targets: invariant checks that abort (libFuzzer then saves the input as
// a crash), a UTF-8 validator, and a small deterministic byte source for choices a target makes
// that should not cost input bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "tests/unit/support/declarations.hpp"

namespace mixerd::fuzz {

// Every settings key and kind of macro, installed before the first input as the daemon installs
// its rows' declarations at start-up (a target that reads neither does not mind).
inline const bool declarations_installed = [] {
  test::install_every_declaration();
  return true;
}();

[[noreturn]] inline void fail(const char* file, int line, const char* what, std::string_view note,
                              const char* /*padding of FUZZ_CHECK*/ = "") {
  std::fprintf(stderr, "\n%s:%d: invariant failed: %s\n", file, line, what);
  if (!note.empty()) {
    std::fprintf(stderr, "  detail: ");
    for (const char c : note) {
      const auto u = static_cast<unsigned char>(c);
      if (u >= 0x20 && u < 0x7f) {
        std::fputc(c, stderr);
      } else {
        std::fprintf(stderr, "\\x%02x", u);
      }
    }
    std::fputc('\n', stderr);
  }
  std::abort();
}

// FUZZ_CHECK(condition) or FUZZ_CHECK(condition, text shown with the failure); the text is only
// built when the check fails.
#define FUZZ_CHECK(...) FUZZ_CHECK_IMPL(__VA_ARGS__, "")
#define FUZZ_CHECK_IMPL(cond, ...)                                             \
  do {                                                                         \
    if (!(cond)) ::mixerd::fuzz::fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
  } while (false)

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Strict UTF-8 (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF).
inline bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
      cp = c & 0x1FU;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      cp = c & 0x0FU;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      cp = c & 0x07U;
    } else {
      return false;
    }
    if (s.size() - i < n + 1) return false;
    for (std::size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0U) != 0x80U) return false;
      cp = (cp << 6) | (d & 0x3FU);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n + 1;
  }
  return true;
}

// Splits on one byte value; an empty input gives one empty part.
inline std::vector<std::string> split_on(std::string_view s, char separator) {
  std::vector<std::string> parts(1);
  for (const char c : s) {
    if (c == separator) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

// FNV-1a: a stable number from the input for choices (chunk sizes, stub answers) that should
// vary between inputs without consuming their bytes.
inline std::uint64_t input_hash(std::string_view s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

// xorshift64*: cheap deterministic numbers from a seed.
class numbers {
 public:
  explicit numbers(std::uint64_t seed) : state_(seed == 0 ? 0x9E3779B97F4A7C15ULL : seed) {}
  std::uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 2685821657736338717ULL;
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

}  // namespace mixerd::fuzz
