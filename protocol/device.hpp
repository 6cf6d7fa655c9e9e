// The device capability: the serial link to the hardware. Its actor owns the link and the
// device status; every understood line goes to the hub as `device_input` (topic of the mixer and
// whoever reacts to input), the rest as `serial_raw`.
#pragma once

#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <string>

#include "protocol/atoms.hpp"
#include "protocol/device_codec.hpp"

namespace mixerd {

// What the device actor knows of the link. Published as a snapshot on every change.
struct device_status {
  bool connected = false;
  std::string port;
  std::string page;
  std::string firmware_version;
  std::string device_type;
};

// (get_atom, status_atom) -> the status; a host_command is sent to the device while connected
// and dropped otherwise (the mixer pushes the whole state on every connect).
using device_actor =
    caf::typed_actor<caf::replies_to<caf::get_atom, status_atom>::with<device_status>,
                     caf::reacts_to<protocol::host_command>>;

}  // namespace mixerd
