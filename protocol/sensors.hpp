// Readings a capability offers as sensors: MQTT publishes each as a Home Assistant sensor
// (protocol/README.md, "MQTT"). A capability declares a function that reads them from its view;
// the front ends that show sensors ask the directory for every row's readings when they publish.
#pragma once

#include <string>
#include <vector>

namespace mixerd {

struct sensor_reading {
  std::string object_id;     // [a-z0-9_], unique among every row's sensors: "uptime", "load_1m"
  std::string name;          // shown to the user: "Uptime"
  std::string unit;          // "s", "°C"; empty: none
  std::string device_class;  // Home Assistant's ("duration", "temperature"); empty: none
  std::string state_class;   // "measurement", "total_increasing"; empty: none
  std::string value;         // the state as text; empty: unknown now (no state is sent)
};
using sensor_readings = std::vector<sensor_reading>;

}  // namespace mixerd
