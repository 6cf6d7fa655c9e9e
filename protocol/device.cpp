#include "protocol/device.hpp"

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

// ---- Settings: serial_port --------------------------------------------------------------------

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
            check_serial_port}}};
}

}  // namespace mixerd

namespace mixerd {

device_counters& device_counters_of_process() {
  static device_counters block;
  return block;
}

}  // namespace mixerd
