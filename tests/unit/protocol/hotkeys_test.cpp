#include "protocol/hotkeys.hpp"

#include <doctest/doctest.h>

using namespace mixerd;

TEST_CASE("a key combination is read in any case and order, and written canonically") {
  std::string error;
  auto c = hotkeys::parse("Shift+CTRL+m", error);
  REQUIRE(c);
  CHECK(c->modifiers == std::vector<std::string>{"ctrl", "shift"});
  CHECK(c->key == "m");
  CHECK(hotkeys::to_string(*c) == "ctrl+shift+m");
  CHECK(hotkeys::parse("alt+f4", error)->key == "f4");
  CHECK(hotkeys::parse("super+f24", error)->modifiers == std::vector<std::string>{"super"});
  CHECK(hotkeys::parse("media_play_pause", error)->modifiers.empty());
}

TEST_CASE("a key combination that names no key, an unknown key or a modifier twice is refused") {
  std::string error;
  CHECK_FALSE(hotkeys::parse("", error));
  CHECK_FALSE(hotkeys::parse("ctrl+", error));
  CHECK(error == "must end with a key after its modifiers");
  CHECK_FALSE(hotkeys::parse("ctrl+f25", error));
  CHECK(error.find("unknown key 'f25'") != std::string::npos);
  CHECK_FALSE(hotkeys::parse("ctrl+ctrl+a", error));
  CHECK(error == "names the modifier 'ctrl' twice");
  CHECK_FALSE(hotkeys::parse("m+a", error));
  CHECK(error.find("'m' where a modifier") != std::string::npos);
  CHECK_FALSE(hotkeys::parse("ctrl + a", error));
  CHECK_FALSE(hotkeys::parse(std::string(65, 'a'), error));
}
