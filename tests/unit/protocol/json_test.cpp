#include "protocol/json.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "protocol/device.hpp"
#include "protocol/mixer.hpp"
#include "protocol/profiles.hpp"
#include "protocol/types.hpp"

using json = nlohmann::json;
namespace mj = mixerd::json;
using mixerd::app_version;
using mixerd::assignment;
using mixerd::assignment_change;
using mixerd::assignment_type;
using mixerd::default_slider_label;
using mixerd::device_input;
using mixerd::device_status;
using mixerd::device_view;
using mixerd::event;
using mixerd::mixer_snapshot;
using mixerd::mute_change;
using mixerd::mute_states;
using mixerd::profile_change;
using mixerd::serial_raw;
using mixerd::slider_change;
using mixerd::slider_state;
using mixerd::volume_change;
namespace protocol = mixerd::protocol;

namespace {

// An event's payload, as the encoders take it.
json event_payload(const mixerd::event& e) {
  return e.payload();
}

assignment app_of(std::vector<std::string> names) {
  assignment a;
  a.type = assignment_type::app;
  a.names = std::move(names);
  return a;
}

assignment system_of(assignment_type type) {
  assignment a;
  a.type = type;
  return a;
}

// Parses an assignment that must be accepted.
assignment accepted(const json& j) {
  std::string problem;
  auto a = mj::assignment_from_json(j, problem);
  CAPTURE(j.dump());
  CAPTURE(problem);
  REQUIRE(a);
  CHECK(problem.empty());
  return *a;
}

// Parses an assignment that must be refused; returns the problem sentence.
std::string refused(const json& j) {
  std::string problem;
  auto a = mj::assignment_from_json(j, problem);
  CAPTURE(j.dump());
  CHECK_FALSE(a);
  CHECK_FALSE(problem.empty());
  return problem;
}

}  // namespace

TEST_CASE("assignment types have their wire names") {
  CHECK(mixerd::to_string(assignment_type::unassigned) == "unassigned");
  CHECK(mixerd::to_string(assignment_type::system_default_output) == "system_default_output");
  CHECK(mixerd::to_string(assignment_type::system_default_input) == "system_default_input");
  CHECK(mixerd::to_string(assignment_type::app) == "app");
  CHECK(mixerd::assignment_type_from_string("specific_app") == assignment_type::app);
  CHECK(mixerd::assignment_type_from_string("app") == assignment_type::app);
  CHECK(mixerd::assignment_type_from_string("system_default_input") ==
        assignment_type::system_default_input);
  CHECK_FALSE(mixerd::assignment_type_from_string("App"));
  CHECK_FALSE(mixerd::assignment_type_from_string(""));
  CHECK(default_slider_label(1) == "Slider 1");
  CHECK(default_slider_label(4) == "Slider 4");
  CHECK(app_version == "1.5");
}

TEST_CASE("an assignment maps to JSON with names only for apps") {
  CHECK(mj::to_json(assignment{}) == json{{"type", "unassigned"}});
  CHECK(mj::to_json(system_of(assignment_type::system_default_output)) ==
        json{{"type", "system_default_output"}});
  CHECK(mj::to_json(app_of({"firefox", "mpv"})) ==
        json{{"type", "app"}, {"names", {"firefox", "mpv"}}});
  CHECK(mj::to_json(app_of({})) == json{{"type", "app"}, {"names", json::array()}});
}

TEST_CASE("slider_to_json has the Slider fields and enforce_volume") {
  slider_state s;
  s.value = 57;
  s.assigned = app_of({"spotify"});
  s.label = "Music";
  s.muted = true;
  s.enforce_volume = false;
  s.pickup = true;
  json expected = {{"index", 2},
                   {"value", 57},
                   {"assignment", {{"type", "app"}, {"names", {"spotify"}}}},
                   {"label", "Music"},
                   {"muted", true},
                   {"enforce_volume", false},
                   {"position", nullptr},
                   {"pickup", true}};
  CHECK(mj::slider_to_json(2, s) == expected);
  s.position = 12;
  expected["position"] = 12;
  CHECK(mj::slider_to_json(2, s) == expected);
}

TEST_CASE("sliders_to_json lists four sliders with 1-based indices") {
  mixer_snapshot m;
  for (int i = 0; i < 4; ++i) {
    m.sliders[i].label = default_slider_label(i + 1);
    m.sliders[i].value = 10 * i;
  }
  m.sliders[2].muted = true;
  const json j = mj::sliders_to_json(m);
  REQUIRE(j.contains("sliders"));
  REQUIRE(j["sliders"].size() == 4);
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(j["sliders"][i] == mj::slider_to_json(i + 1, m.sliders[i]));
    CHECK(j["sliders"][i]["index"] == i + 1);
  }
  CHECK(j["sliders"][2]["muted"] == true);
  CHECK(j["sliders"][0]["assignment"] == json{{"type", "unassigned"}});
}

TEST_CASE("mutes_to_json has individual and master") {
  mute_states m;
  m.individual = {true, false, false, true};
  m.master = true;
  CHECK(mj::mutes_to_json(m) == json{{"individual", {true, false, false, true}}, {"master", true}});
  CHECK(mj::mutes_to_json(mute_states{}) ==
        json{{"individual", {false, false, false, false}}, {"master", false}});
}

TEST_CASE("status_to_json has the Status fields with app_version and audio_connected") {
  device_view d;
  d.connected = true;
  d.port = "/dev/ttyACM0";
  d.page = "Mixer";
  d.firmware_version = "2.0.0";
  d.device_type = "Mixlar Mix";
  const json expected = {{"connected", true},    {"port", "/dev/ttyACM0"},
                         {"page", "Mixer"},      {"firmware_version", "2.0.0"},
                         {"app_version", "1.5"}, {"audio_connected", false}};
  CHECK(mj::status_to_json(d, false) == expected);
  CHECK(mj::status_to_json(device_view{}, true)["audio_connected"] == true);
  CHECK(mj::status_to_json(device_view{}, true)["connected"] == false);
}

TEST_CASE("volume_to_json") {
  CHECK(mj::volume_to_json(42) == json{{"volume", 42}});
}

TEST_CASE("event_name names every event") {
  CHECK(event{slider_change{}}.wire_name() == "slider_change");
  CHECK(event{assignment_change{}}.wire_name() == "assignment_change");
  CHECK(event{mute_change{}}.wire_name() == "mute_change");
  CHECK(event{volume_change{}}.wire_name() == "volume_change");
  CHECK(event{profile_change{}}.wire_name() == "profile_change");
  CHECK(event{device_status{}}.wire_name() == "device_status");
  CHECK(event{serial_raw{}}.wire_name() == "serial_raw");
  CHECK(event{device_input{}}.wire_name() == "device_input");
}

TEST_CASE("event_payload gives the payload of every event") {
  CHECK(event_payload(slider_change{3, 57, 55, true}) ==
        json{{"index", 3}, {"value", 57}, {"position", 55}, {"pickup", true}});
  CHECK(event_payload(assignment_change{1, app_of({"mpv"}), "Video"}) ==
        json{{"index", 1},
             {"assignment", {{"type", "app"}, {"names", {"mpv"}}}},
             {"label", "Video"}});
  CHECK(event_payload(
            assignment_change{4, system_of(assignment_type::system_default_input), "Mic"}) ==
        json{{"index", 4}, {"assignment", {{"type", "system_default_input"}}}, {"label", "Mic"}});
  CHECK(event_payload(mute_change{2, true}) == json{{"index", 2}, {"muted", true}});
  CHECK(event_payload(volume_change{80}) == json{{"volume", 80}});
  CHECK(event_payload(profile_change{"Gaming"}) == json{{"profile", "Gaming"}});
  CHECK(event_payload(device_status{true, "/dev/ttyACM0"}) ==
        json{{"connected", true}, {"port", "/dev/ttyACM0"}});
  CHECK(event_payload(device_status{false, ""}) == json{{"connected", false}, {"port", ""}});
  CHECK(event_payload(serial_raw{"ADC: OK"}) == json{{"data", "ADC: OK"}});
  CHECK(event_payload(device_input{protocol::dev_slider{0, 57}}) == json{{"line", "SLIDER,0,57"}});
  CHECK(event_payload(device_input{protocol::dev_mute_press{protocol::master_index}}) ==
        json{{"line", "MUTE,MASTER,PRESS"}});
}

TEST_CASE("mute_change of the master mute has index master") {
  const json j = event{mute_change{protocol::master_index, true}}.payload();
  CHECK(j == json{{"index", "master"}, {"muted", true}});
  CHECK(event{mute_change{4, false}}.payload()["index"] == 4);
}

TEST_CASE("assignment_from_json accepts app and specific_app with names as app") {
  CHECK(accepted({{"type", "app"}, {"names", {"firefox"}}}) == app_of({"firefox"}));
  CHECK(accepted({{"type", "specific_app"}, {"names", {"firefox", "mpv"}}}) ==
        app_of({"firefox", "mpv"}));
  CHECK(accepted({{"type", "app"}, {"names", json::array()}}) == app_of({}));
  // The stored form of an accepted request reports `app`.
  CHECK(mj::to_json(accepted({{"type", "specific_app"}, {"names", {"x"}}})) ==
        json{{"type", "app"}, {"names", {"x"}}});
}

TEST_CASE("assignment_from_json accepts the system types without names") {
  CHECK(accepted({{"type", "unassigned"}}) == assignment{});
  CHECK(accepted({{"type", "system_default_output"}}) ==
        system_of(assignment_type::system_default_output));
  CHECK(accepted({{"type", "system_default_input"}}) ==
        system_of(assignment_type::system_default_input));
  // Names given with a system type are ignored, not kept.
  CHECK(accepted({{"type", "system_default_output"}, {"names", {"x"}}}).names.empty());
}

TEST_CASE("assignment_from_json requires names for app") {
  CHECK(refused({{"type", "app"}}).rfind("names ", 0) == 0);
  CHECK(refused({{"type", "specific_app"}}).rfind("names ", 0) == 0);
  CHECK(refused({{"type", "app"}, {"names", "firefox"}}).rfind("names ", 0) == 0);
  CHECK(refused({{"type", "app"}, {"names", {"ok", ""}}}).rfind("names ", 0) == 0);
  CHECK(refused({{"type", "app"}, {"names", {"ok", 3}}}).rfind("names ", 0) == 0);
}

TEST_CASE("assignment_from_json refuses bad shapes and types naming the field") {
  CHECK(refused(json::array()).rfind("must ", 0) == 0);
  CHECK(refused("app").rfind("must ", 0) == 0);
  CHECK(refused(json::object()) == "type is missing");
  CHECK(refused({{"type", 1}}) == "type must be a string");
  CHECK(refused({{"type", "bogus"}}).rfind("type must be one of", 0) == 0);
  CHECK(refused({{"type", "App"}}).rfind("type ", 0) == 0);
}
