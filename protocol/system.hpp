// The system capability: the machine mixerd runs on. Its uptime, its load and its temperature (a
// Raspberry Pi slows itself down when it runs hot, which a user hears as crackling audio), at
// GET /api/system, in the web page's Status section and as MQTT sensors. This file parses what
// /proc and /sys hold and words it; the actor (actors/system/) reads the files. Pure: no I/O.
#pragma once

#include <array>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/mdns.hpp"
#include "protocol/sensors.hpp"
#include "protocol/status_facts.hpp"

namespace mixerd {

// What GET /api/system answers, as last sampled.
struct system_view {
  bool sampled = false;                 // false until the first sample
  double uptime_s = 0;                  // since the machine booted (/proc/uptime)
  std::array<double, 3> load{};         // over 1, 5 and 15 minutes (/proc/loadavg)
  std::optional<double> temperature_c;  // the hottest thermal zone; none without one
  std::string thermal_zone;             // its type ("cpu-thermal" on a Pi); empty without one
};

// The actor's own timer.
struct system_sample_due {};

using system_actor = caf::typed_actor<caf::reacts_to<system_sample_due>>;

namespace system {

// How often the files are read: the facts and sensors change at most this often.
inline constexpr auto sample_interval = std::chrono::seconds(10);
// Where the actor reads; MIXERD_THERMAL_DIR names another thermal folder (the tests use one).
inline constexpr std::string_view proc_dir = "/proc";
inline constexpr std::string_view thermal_dir = "/sys/class/thermal";

// The first number of /proc/uptime ("12345.67 4567.89"); nullopt when it is not one.
std::optional<double> parse_uptime(std::string_view text);
// The three averages that begin /proc/loadavg ("0.42 0.35 0.30 1/123 4567").
std::optional<std::array<double, 3>> parse_loadavg(std::string_view text);
// A thermal zone's temp file: millidegrees Celsius ("48312\n" is 48.312 °C).
std::optional<double> parse_millidegrees(std::string_view text);

// "42 s", "12 min", "3 h 12 min", "2 d 3 h".
std::string uptime_text(double seconds);

// {"uptime_s": 12345, "load": [0.42, 0.35, 0.3], "temperature_c": 48.3 or null,
//  "thermal_zone": "cpu-thermal" or null}; uptime in whole seconds, temperature to 0.1 °C.
nlohmann::json to_json(const system_view& view);
// Uptime, Load and (with a thermal zone) Temperature, worded for the Status section.
std::vector<status_fact> facts_of(const system_view& view);
// uptime (s), load_1m, load_5m, load_15m and temperature (°C); none before the first sample.
sensor_readings sensors_of(const system_view& view);

}  // namespace system

}  // namespace mixerd

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::system_sample_due)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_system, caf::id_block::mixerd_mdns::end)
CAF_ADD_TYPE_ID(mixerd_system, (mixerd::system_sample_due))
CAF_END_TYPE_ID_BLOCK(mixerd_system)
