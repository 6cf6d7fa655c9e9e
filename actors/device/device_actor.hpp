// The device actor owns the serial link to the hardware and the device status (connected,
// port, display page, firmware version). It finds the port, runs the handshake and the
// keep-alive of contract.md, turns each device line into a typed event on the hub, sends host
// commands as lines, and reconnects with back-off after a hang-up, a vanished port or 6 s of
// silence.
//
// Messages:
//   (get_atom, status_atom)       -> device_status
//   protocol::host_command        sent to the device while connected, dropped otherwise (the
//                                 mixer pushes the whole state on every connect)
#pragma once

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "actors/device/serial_link.hpp"
#include "protocol/types.hpp"

namespace boost::asio {
class io_context;
}

namespace mixerd {

struct device_config {
  boost::asio::io_context* io = nullptr;
  std::string serial;  // "auto", "none" or a device path
  caf::actor hub;
};

struct device_state {
  device_config config;
  device_status status;
  std::string path;  // the port being opened or in use
  std::shared_ptr<serial_link> link;
  std::uint64_t generation = 0;  // of the current link; older links' messages are dropped
  bool opened = false;           // port open, handshake sent
  std::chrono::steady_clock::time_point last_line;
  std::chrono::milliseconds backoff{0};
  bool told_searching = false;
  // Unusable (unrecognised, over-long) lines logged in the current minute, and those left out of
  // the log: a device sending garbage must not fill the disk (each is still passed on as raw data).
  std::chrono::steady_clock::time_point unusable_since;
  int unusable_logged = 0;
  int unusable_unlogged = 0;
  static inline const char* name = "device";

  // The port must not stay open after the actor is gone (its I/O lives on the io thread).
  ~device_state() {
    if (link) link->close();
  }
};

caf::behavior device_actor(caf::stateful_actor<device_state>* self, device_config config);

}  // namespace mixerd
