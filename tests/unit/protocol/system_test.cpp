#include "protocol/system.hpp"

#include <doctest/doctest.h>

namespace host = mixerd::system;
using nlohmann::json;

TEST_CASE("the kernel's files: uptime, load averages and millidegrees") {
  CHECK(host::parse_uptime("12345.67 4567.89\n") == doctest::Approx(12345.67));
  CHECK_FALSE(host::parse_uptime(""));
  CHECK_FALSE(host::parse_uptime("-1 2"));
  CHECK_FALSE(host::parse_uptime("up 3 days"));
  auto load = host::parse_loadavg("0.42 0.35 0.30 1/123 4567\n");
  REQUIRE(load);
  CHECK((*load)[0] == doctest::Approx(0.42));
  CHECK((*load)[2] == doctest::Approx(0.30));
  CHECK_FALSE(host::parse_loadavg("0.42 0.35"));
  CHECK(host::parse_millidegrees("48312\n") == doctest::Approx(48.312));
  CHECK(host::parse_millidegrees("-5000") == doctest::Approx(-5.0));
  CHECK_FALSE(host::parse_millidegrees("48312abc"));
  CHECK_FALSE(host::parse_millidegrees(""));
}

TEST_CASE("uptime in words: seconds, minutes, hours, days") {
  CHECK(host::uptime_text(42.9) == "42 s");
  CHECK(host::uptime_text(12 * 60 + 5) == "12 min");
  CHECK(host::uptime_text(3 * 3600 + 12 * 60) == "3 h 12 min");
  CHECK(host::uptime_text(2 * 86400 + 3 * 3600 + 59) == "2 d 3 h");
}

TEST_CASE("the view as the API, the Status section and MQTT show it") {
  mixerd::system_view view;
  CHECK(host::facts_of(view).empty());  // nothing before the first sample
  CHECK(host::sensors_of(view).empty());
  view.sampled = true;
  view.uptime_s = 3 * 3600 + 12 * 60 + 7.5;
  view.load = {0.42, 0.35, 0.3};
  CHECK(host::to_json(view) == json{{"uptime_s", 11527},
                                    {"load", {0.42, 0.35, 0.3}},
                                    {"temperature_c", nullptr},
                                    {"thermal_zone", nullptr}});
  auto facts = host::facts_of(view);
  REQUIRE(facts.size() == 2);
  CHECK(facts[0] == mixerd::status_fact{"Uptime", "3 h 12 min"});
  CHECK(facts[1] == mixerd::status_fact{"Load", "0.42, 0.35, 0.30"});
  CHECK(host::sensors_of(view).size() == 4);

  view.temperature_c = 48.312;
  view.thermal_zone = "cpu-thermal";
  CHECK(host::to_json(view)["temperature_c"] == 48.3);
  CHECK(host::to_json(view)["thermal_zone"] == "cpu-thermal");
  CHECK(host::facts_of(view).back() == mixerd::status_fact{"Temperature", "48.3 °C"});
  auto sensors = host::sensors_of(view);
  REQUIRE(sensors.size() == 5);
  CHECK(sensors[0].object_id == "uptime");
  CHECK(sensors[0].value == "11527");
  CHECK(sensors[0].unit == "s");
  CHECK(sensors[4].object_id == "temperature");
  CHECK(sensors[4].value == "48.3");
  CHECK(sensors[4].device_class == "temperature");
}
