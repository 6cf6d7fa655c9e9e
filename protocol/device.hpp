// The device capability: the serial link to the hardware. Its actor owns the link and the
// device status; every understood line goes to the hub as `device_input` (an event kind of the
// mixer and whoever reacts to input), the rest as `serial_raw`.
#pragma once

#include <atomic>
#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "protocol/atoms.hpp"
#include "protocol/device_codec.hpp"
#include "protocol/events.hpp"
#include "protocol/settings.hpp"

namespace mixerd {

// ---- Events (protocol/events.hpp) ---------------------------------------------------------

struct device_status {
  static constexpr std::string_view wire_name = "device_status";
  static constexpr bool for_clients = true;
  bool connected = false;
  std::string port;
  nlohmann::json to_json() const;
};
// A device line no codec rule understood (boot chatter, newer firmware); for plugins.
struct serial_raw {
  static constexpr std::string_view wire_name = "serial_raw";
  static constexpr bool for_clients = false;
  std::string line;
  nlohmann::json to_json() const;
};
// Every understood device line, for actors that react to input (mixer, macros, plugins).
struct device_input {
  static constexpr std::string_view wire_name = "device_input";
  static constexpr bool for_clients = false;
  protocol::device_event input;
  nlohmann::json to_json() const;
};

// What the device actor knows of the link. Published as a snapshot on every change.
struct device_view {
  bool connected = false;
  std::string port;
  std::string page;
  std::string firmware_version;
  std::string device_type;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, device_view& x) {
  return f(caf::meta::type_name("device_view"), x.connected, x.port, x.page, x.firmware_version,
           x.device_type);
}

// The device's counters for GET /metrics (written through its row).
struct device_counters {
  std::atomic<std::uint64_t> reconnects{0};  // links made again after one was lost
  std::atomic<std::uint64_t> lines_in{0};
  std::atomic<std::uint64_t> lines_out{0};
};
device_counters& device_counters_of_process();

// (get_atom, status_atom) -> the status; a host_command is sent to the device while connected
// and dropped otherwise (the mixer pushes the whole state on every connect).
using device_actor =
    caf::typed_actor<caf::replies_to<caf::get_atom, status_atom>::with<device_view>,
                     caf::reacts_to<protocol::host_command>>;

namespace settings_schema {
struct part;
}  // namespace settings_schema

// Its keys of settings.json: serial_port, device_brightness.
settings_schema::part device_settings();
inline constexpr int default_device_brightness = 100;
// The display brightness `settings` asks for (checked settings); none when the key is absent.
std::optional<int> device_brightness_of(const nlohmann::json& settings);

}  // namespace mixerd

// The device capability's CAF type-ID block, chained after the settings block
// (docs/architecture.md, "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::protocol::host_command)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_device, caf::id_block::mixerd_settings::end)
CAF_ADD_TYPE_ID(mixerd_device, (mixerd::device_view))
CAF_ADD_TYPE_ID(mixerd_device, (mixerd::protocol::host_command))
CAF_END_TYPE_ID_BLOCK(mixerd_device)
