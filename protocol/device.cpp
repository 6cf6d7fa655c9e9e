#include "protocol/device.hpp"

#include <algorithm>

#include "protocol/json.hpp"
#include "protocol/settings_schema.hpp"

namespace mixerd {

// ---- Events ------------------------------------------------------------------------------

nlohmann::json device_status::to_json() const {
  return {{"connected", connected}, {"port", port}};
}

nlohmann::json serial_raw::to_json() const {
  return {{"data", line}};
}

nlohmann::json device_input::to_json() const {
  return {{"line", protocol::encode_device_event(input)}};
}

}  // namespace mixerd

namespace mixerd {

// ---- Settings: serial_port, device_brightness
// ------------------------------------------------------

namespace {

std::optional<settings_schema::problem> check_serial_port(const nlohmann::json& s) {
  auto it = s.find("serial_port");
  if (it == s.end() || it->is_string()) return std::nullopt;
  return settings_schema::problem{"serial_port", "must be a string: auto, none or a device path"};
}

}  // namespace

settings_schema::part device_settings() {
  return {"device",
          {{"serial_port",
            {{"type", "string"},
             {"default", "auto"},
             {"description",
              "The device's serial port: auto (found by USB id), none, or a path. --serial beats "
              "it"}},
            check_serial_port},
           {"device_brightness",
            settings_schema::integer_schema(
                0, 100, default_device_brightness,
                "The display's brightness, 0-100: once set, sent to the device when it connects "
                "and whenever this changes (absent: the device keeps its own)")}}};
}

std::optional<int> device_brightness_of(const nlohmann::json& settings) {
  auto it = settings.find("device_brightness");
  if (it == settings.end() || !it->is_number_integer()) return std::nullopt;
  return static_cast<int>(std::clamp<long long>(it->get<long long>(), 0, 100));
}

}  // namespace mixerd

namespace mixerd {

device_counters& device_counters_of_process() {
  static device_counters block;
  return block;
}

}  // namespace mixerd
