// Salted, slow password hashes (PBKDF2-HMAC-SHA256) stored with their parameters as
// "pbkdf2_sha256$<iterations>$<salt hex>$<hash hex>", and their constant-time check.
#pragma once

#include <string>
#include <string_view>

namespace mixerd::password_hash {

inline constexpr int default_iterations = 300'000;  // at least 200,000 (docs/api.md)

std::string make(std::string_view password, int iterations = default_iterations);
// False for a wrong password and for a stored value that is not in the format above.
bool verify(std::string_view password, std::string_view stored);

}  // namespace mixerd::password_hash
