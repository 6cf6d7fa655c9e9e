// Secrets from the kernel's CSPRNG (getrandom(2)): session ids, API keys, salts. Used instead of
// OpenSSL's RAND_bytes, whose first call initialises the provider machinery and adds about
// 2.3 MB of resident pages to a daemon that otherwise never needs it (TLS off, no login).
#pragma once

#include <cstddef>
#include <string>

namespace mixerd {

// Fills `out` completely or throws std::system_error (getrandom never fails on Linux >= 3.17
// once the pool is initialised; it blocks only during early boot).
void fill_random(unsigned char* out, std::size_t size);

// `bytes` random bytes as lower-case hex (2 * bytes characters).
std::string random_hex(std::size_t bytes);

}  // namespace mixerd
