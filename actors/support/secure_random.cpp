#include "actors/support/secure_random.hpp"

#include <sys/random.h>

#include <cerrno>
#include <system_error>
#include <vector>

#include "protocol/secret.hpp"

namespace mixerd {

void fill_random(unsigned char* out, std::size_t size) {
  while (size > 0) {
    auto got = ::getrandom(out, size, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "getrandom");
    }
    out += got;
    size -= static_cast<std::size_t>(got);
  }
}

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> buffer(bytes);
  fill_random(buffer.data(), buffer.size());
  return secret::to_hex(buffer.data(), buffer.size());
}

}  // namespace mixerd
