#include "actors/auth/password_hash.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/unit/support/text.hpp"

using namespace mixerd;
using mixerd::test::is_lower_hex;

namespace {

constexpr int fast = 1000;  // iterations for speed; the format does not depend on it

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  for (;;) {
    auto pos = text.find(sep, start);
    parts.push_back(text.substr(start, pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return parts;
}

}  // namespace

TEST_CASE("make stores scheme iterations salt and hash") {
  const std::string stored = password_hash::make("secret", fast);
  const auto parts = split(stored, '$');
  REQUIRE(parts.size() == 4);
  CHECK(parts[0] == "pbkdf2_sha256");
  CHECK(parts[1] == "1000");
  CHECK(parts[2].size() == 32);  // 16 bytes of salt
  CHECK(is_lower_hex(parts[2]));
  CHECK(parts[3].size() == 64);  // SHA-256
  CHECK(is_lower_hex(parts[3]));
}

TEST_CASE("make and verify round trip") {
  for (const std::string& password :
       std::vector<std::string>{"secret", "", "pässwörd with spaces", std::string(200, 'x')}) {
    CAPTURE(password);
    const std::string stored = password_hash::make(password, fast);
    CHECK(password_hash::verify(password, stored));
  }
}

TEST_CASE("verify refuses a wrong password") {
  const std::string stored = password_hash::make("secret", fast);
  CHECK_FALSE(password_hash::verify("Secret", stored));
  CHECK_FALSE(password_hash::verify("secret ", stored));
  CHECK_FALSE(password_hash::verify("", stored));
}

TEST_CASE("the same password gets different salts") {
  const std::string a = password_hash::make("secret", fast);
  const std::string b = password_hash::make("secret", fast);
  CHECK(a != b);
  CHECK(split(a, '$')[2] != split(b, '$')[2]);
  CHECK(password_hash::verify("secret", a));
  CHECK(password_hash::verify("secret", b));
}

TEST_CASE("the default iteration count is at least 200000") {
  CHECK(password_hash::default_iterations >= 200'000);
  const std::string stored = password_hash::make("secret");
  const auto parts = split(stored, '$');
  REQUIRE(parts.size() == 4);
  CHECK(std::stol(parts[1]) >= 200'000);
  CHECK(password_hash::verify("secret", stored));
}

TEST_CASE("verify refuses malformed stored strings") {
  const std::string good = password_hash::make("secret", fast);
  const auto parts = split(good, '$');
  REQUIRE(parts.size() == 4);
  const std::string& iter = parts[1];
  const std::string& salt = parts[2];
  const std::string& hash = parts[3];
  std::string upper_hash = hash;
  for (char& c : upper_hash)
    if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 'a' + 'A');
  const std::vector<std::string> bad = {
      "",
      "$$$",
      "secret",
      "pbkdf2_sha256",
      "pbkdf2_sha256$" + iter,
      "pbkdf2_sha256$" + iter + "$" + salt,
      "pbkdf2_sha256$" + iter + "$" + salt + "$",
      "pbkdf2_sha1$" + iter + "$" + salt + "$" + hash,
      "scrypt$" + iter + "$" + salt + "$" + hash,
      "PBKDF2_SHA256$" + iter + "$" + salt + "$" + hash,
      "pbkdf2_sha256$$" + salt + "$" + hash,
      "pbkdf2_sha256$0$" + salt + "$" + hash,
      "pbkdf2_sha256$-1000$" + salt + "$" + hash,
      "pbkdf2_sha256$1e3$" + salt + "$" + hash,
      "pbkdf2_sha256$9999999999$" + salt + "$" + hash,
      "pbkdf2_sha256$" + iter + "$zz" + salt.substr(2) + "$" + hash,
      "pbkdf2_sha256$" + iter + "$" + salt.substr(1) + "$" + hash,
      "pbkdf2_sha256$" + iter + "$" + salt + "$" + hash.substr(2),
      "pbkdf2_sha256$" + iter + "$" + salt + "$" + hash + "00",
      "pbkdf2_sha256$" + iter + "$" + salt + "$" + upper_hash,
      "pbkdf2_sha256$" + iter + "$" + salt + "$" + hash.substr(0, 62) + "g0",
      "pbkdf2_sha256$" + iter + "$" + salt + "$" + hash + "$extra",
  };
  for (const std::string& stored : bad) {
    CAPTURE(stored);
    CHECK_FALSE(password_hash::verify("secret", stored));
  }
  CHECK(password_hash::verify("secret", good));
}
