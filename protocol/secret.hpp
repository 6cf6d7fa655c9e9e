// Comparing and printing secrets (API keys, bearer tokens, user names) without OpenSSL, so that
// the hot paths never load libcrypto's providers (about 2.3 MB of resident pages).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mixerd::secret {

// True when both are equal and `expected` is not empty. The time taken depends only on the
// length of `given` (the caller's input), never on where a guess goes wrong nor on `expected`.
bool constant_time_equal(std::string_view given, std::string_view expected);

// Lower-case hexadecimal, two digits per byte.
std::string to_hex(const unsigned char* data, std::size_t size);

}  // namespace mixerd::secret
