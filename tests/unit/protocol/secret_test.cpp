#include "protocol/secret.hpp"

#include <doctest/doctest.h>

using mixerd::secret::constant_time_equal;
using mixerd::secret::to_hex;

TEST_CASE("constant_time_equal accepts only the exact secret") {
  CHECK(constant_time_equal("s3cret-key", "s3cret-key"));
  CHECK_FALSE(constant_time_equal("s3cret-kez", "s3cret-key"));
  CHECK_FALSE(constant_time_equal("S3cret-key", "s3cret-key"));
  CHECK_FALSE(constant_time_equal("s3cret-ke", "s3cret-key"));             // a prefix
  CHECK_FALSE(constant_time_equal("s3cret-keys", "s3cret-key"));           // longer
  CHECK_FALSE(constant_time_equal("s3cret-keys3cret-key", "s3cret-key"));  // the key twice
  CHECK_FALSE(constant_time_equal("", "s3cret-key"));
}

TEST_CASE("constant_time_equal never accepts anything when no secret is set") {
  CHECK_FALSE(constant_time_equal("", ""));
  CHECK_FALSE(constant_time_equal("anything", ""));
}

TEST_CASE("constant_time_equal compares bytes, embedded NULs included") {
  using namespace std::string_literals;
  CHECK(constant_time_equal("a\0b"s, "a\0b"s));
  CHECK_FALSE(constant_time_equal("a\0c"s, "a\0b"s));
}

TEST_CASE("to_hex prints two lower-case digits per byte") {
  const unsigned char bytes[] = {0x00, 0x0f, 0xa0, 0xff};
  CHECK(to_hex(bytes, sizeof bytes) == "000fa0ff");
  CHECK(to_hex(bytes, 0).empty());
}
