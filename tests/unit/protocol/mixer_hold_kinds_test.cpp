// The mixer's hold kinds (protocol/mixer.cpp, mixer_macro_kinds): how hold_mute and hold_unmute
// are read, and the press and release commands each names (main.cpp installs the kinds).
#include <doctest/doctest.h>

#include "protocol/macro_kinds.hpp"
#include "protocol/macros.hpp"

using json = nlohmann::json;
namespace macros = mixerd::macros;

namespace {

std::string refusal(const json& j) {
  std::string error;
  return macros::parse_macro(j, macros::origin::api, error) ? "" : error;
}

}  // namespace

TEST_CASE("hold_mute and hold_unmute are read with their target, and are no sequence step") {
  std::string error;
  auto mute = macros::parse_macro({{"type", "hold_mute"}, {"target", "master"}, {"x", 1}},
                                  macros::origin::api, error);
  REQUIRE(mute);
  CHECK(mute->fields ==
        json{{"type", "hold_mute"}, {"name", ""}, {"icon", ""}, {"target", "master"}});
  auto talk = macros::parse_macro({{"type", "hold_unmute"}, {"name", "Talk"}, {"target", 4}},
                                  macros::origin::settings, error);
  REQUIRE(talk);
  CHECK(talk->fields ==
        json{{"type", "hold_unmute"}, {"name", "Talk"}, {"icon", ""}, {"target", 4}});

  CHECK(refusal({{"type", "hold_mute"}, {"target", 0}}) == "target must be 1-4 or \"master\"");
  CHECK(refusal({{"type", "hold_mute"}}) == "Missing field: target");
  // Push-to-talk holds a slider's mute, never the master.
  CHECK(refusal({{"type", "hold_unmute"}, {"target", "master"}}) ==
        "target must be an integer from 1 to 4");
  CHECK(refusal({{"type", "hold_unmute"}, {"target", 5}}) ==
        "target must be an integer from 1 to 4");
  CHECK(refusal({{"type", "hold_unmute"}}) == "Missing field: target");
  const auto in_sequence = refusal(
      {{"type", "sequence"}, {"steps", json::array({{{"type", "hold_mute"}, {"target", 1}}})}});
  CHECK(in_sequence.rfind("steps[0].type must be one of delay, ", 0) == 0);
  CHECK(in_sequence.find("hold") == std::string::npos);
}

TEST_CASE("a hold kind names a press command and a release command, other kinds only one") {
  const auto* mute = macros::find_kind("hold_mute");
  const auto* talk = macros::find_kind("hold_unmute");
  REQUIRE(mute);
  REQUIRE(talk);
  CHECK(mute->held());
  CHECK(talk->held());
  CHECK_FALSE(mute->step);
  CHECK_FALSE(macros::find_kind("mute")->held());
  CHECK_FALSE(macros::find_kind("volume")->held());

  const json slider = {{"type", "hold_mute"}, {"target", 2}};
  auto press = mute->command(slider);
  CHECK(press.name == "mute.hold");
  CHECK(press.args == json{{"index", 2}, {"muted", true}});
  auto release = mute->release(slider);
  CHECK(release.name == "mute.release");
  CHECK(release.args == json{{"index", 2}});

  const json master = {{"type", "hold_mute"}, {"target", "master"}};
  CHECK(mute->command(master).name == "master.mute_hold");
  CHECK(mute->command(master).args == json{{"muted", true}});
  CHECK(mute->release(master).name == "master.mute_release");
  CHECK(mute->release(master).args == json::object());

  const json mic = {{"type", "hold_unmute"}, {"target", 4}};
  CHECK(talk->command(mic).name == "mute.hold");
  CHECK(talk->command(mic).args == json{{"index", 4}, {"muted", false}});
  CHECK(talk->release(mic).name == "mute.release");
}
