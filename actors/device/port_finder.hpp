// Finds the device among the machine's serial ports with libserialport (USB VID:PID 1209:4D58
// first, then any Espressif 303A:* port), as `--serial auto` promises (docs/api.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mixerd {

struct serial_port_info {
  std::string path;         // e.g. /dev/ttyACM0
  std::string description;  // e.g. "Mixlar Mix"
  int vid = -1;
  int pid = -1;
};

inline constexpr int device_usb_vid = 0x1209;
inline constexpr int device_usb_pid = 0x4D58;
inline constexpr int espressif_usb_vid = 0x303A;

// USB serial ports present now.
std::vector<serial_port_info> list_usb_serial_ports();
// The port `--serial auto` picks from `ports`, if any.
std::optional<serial_port_info> pick_device_port(const std::vector<serial_port_info>& ports);

}  // namespace mixerd
