#include "protocol/device.hpp"

#include "protocol/json.hpp"

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
