#include "actors/auth/password_hash.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <stdexcept>
#include <vector>

#include "actors/support/secure_random.hpp"
#include "protocol/secret.hpp"

namespace mixerd::password_hash {

namespace {

constexpr std::string_view scheme = "pbkdf2_sha256";
constexpr std::size_t salt_bytes = 16;
constexpr std::size_t hash_bytes = 32;

bool from_hex(std::string_view hex, std::vector<unsigned char>& out) {
  if (hex.size() % 2 != 0) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  out.clear();
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int hi = nibble(hex[i]);
    int lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<unsigned char>(hi * 16 + lo));
  }
  return true;
}

bool derive(std::string_view password, const unsigned char* salt, std::size_t salt_len,
            int iterations, unsigned char* out, std::size_t out_len) {
  return PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()), salt,
                           static_cast<int>(salt_len), iterations, EVP_sha256(),
                           static_cast<int>(out_len), out) == 1;
}

}  // namespace

std::string make(std::string_view password, int iterations) {
  unsigned char salt[salt_bytes];
  unsigned char hash[hash_bytes];
  fill_random(salt, sizeof salt);
  if (!derive(password, salt, sizeof salt, iterations, hash, sizeof hash))
    throw std::runtime_error("OpenSSL could not hash the password");
  return std::string(scheme) + "$" + std::to_string(iterations) + "$" +
         secret::to_hex(salt, sizeof salt) + "$" + secret::to_hex(hash, sizeof hash);
}

bool verify(std::string_view password, std::string_view stored) {
  auto next = [&stored](std::string_view& field) {
    auto pos = stored.find('$');
    field = stored.substr(0, pos);
    stored = pos == std::string_view::npos ? std::string_view() : stored.substr(pos + 1);
  };
  std::string_view name, iter_text, salt_hex, hash_hex;
  next(name);
  next(iter_text);
  next(salt_hex);
  hash_hex = stored;
  if (name != scheme || iter_text.empty() || iter_text.size() > 9) return false;
  int iterations = 0;
  for (char c : iter_text) {
    if (c < '0' || c > '9') return false;
    iterations = iterations * 10 + (c - '0');
  }
  std::vector<unsigned char> salt, expected;
  if (iterations < 1 || !from_hex(salt_hex, salt) || !from_hex(hash_hex, expected) ||
      expected.size() != hash_bytes)
    return false;
  unsigned char actual[hash_bytes];
  if (!derive(password, salt.data(), salt.size(), iterations, actual, sizeof actual)) return false;
  return CRYPTO_memcmp(actual, expected.data(), hash_bytes) == 0;
}

}  // namespace mixerd::password_hash
