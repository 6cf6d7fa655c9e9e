#include "protocol/websocket_frame.hpp"

#include <doctest/doctest.h>

#include <string>

using mixerd::ws_frame::append_text_frame;

namespace {

std::string header_of(std::size_t payload_size) {
  std::string out;
  append_text_frame(out, std::string(payload_size, 'x'));
  REQUIRE(out.size() > payload_size);
  CHECK(out.substr(out.size() - payload_size) == std::string(payload_size, 'x'));
  return out.substr(0, out.size() - payload_size);
}

}  // namespace

TEST_CASE("text frame headers use the shortest length form RFC 6455 allows") {
  CHECK(header_of(0) == std::string("\x81\x00", 2));
  CHECK(header_of(125) == "\x81\x7d");
  CHECK(header_of(126) == std::string("\x81\x7e\x00\x7e", 4));
  CHECK(header_of(65535) == "\x81\x7e\xff\xff");
  CHECK(header_of(65536) == std::string("\x81\x7f\x00\x00\x00\x00\x00\x01\x00\x00", 10));
}

TEST_CASE("frames append after what the buffer holds") {
  std::string out = "before";
  append_text_frame(out, "42[\"x\"]");
  append_text_frame(out, "3");
  CHECK(out == std::string("before\x81\x07") + "42[\"x\"]" + "\x81\x01" + "3");
}
