#include "protocol/secret.hpp"

namespace mixerd::secret {

bool constant_time_equal(std::string_view given, std::string_view expected) {
  if (expected.empty()) return false;
  // Every byte of `given` is compared (against `expected` repeated), with no early exit; the
  // volatile accumulator keeps the compiler from turning the loop into a short-circuit.
  volatile unsigned char diff = given.size() != expected.size() ? 1 : 0;
  for (std::size_t i = 0; i < given.size(); ++i)
    diff = diff | static_cast<unsigned char>(given[i] ^ expected[i % expected.size()]);
  return diff == 0;
}

std::string to_hex(const unsigned char* data, std::size_t size) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (std::size_t i = 0; i < size; ++i) {
    out.push_back(digits[data[i] >> 4]);
    out.push_back(digits[data[i] & 0xF]);
  }
  return out;
}

}  // namespace mixerd::secret
