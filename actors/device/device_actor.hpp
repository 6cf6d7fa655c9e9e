// The device actor owns the serial link to the hardware and the device status (connected,
// port, display page, firmware version). It finds the port, runs the handshake and the
// keep-alive of protocol/README.md, turns each device line into a typed event on the hub, sends
// host commands as lines, and reconnects with back-off after a hang-up, a vanished port or 6 s of
// silence.
// Interface: protocol/device.hpp; the status is published as a snapshot on every change.
#pragma once

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "actors/device/serial_link.hpp"
#include "actors/support/back_off.hpp"
#include "actors/support/capability.hpp"
#include "protocol/device.hpp"
#include "protocol/hub.hpp"
#include "protocol/limits.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"

namespace boost::asio {
class io_context;
}

namespace mixerd {

struct device_config {
  boost::asio::io_context* io = nullptr;
  std::string serial;  // "auto", "none" or a device path
  hub_actor hub;
  settings_actor settings;        // watched for device_brightness (null in tests that need none)
  std::optional<int> brightness;  // none: never sent (the device keeps its own)
};

struct device_state {
  device_config config;
  device_view status;
  std::shared_ptr<published<device_view>> published_status;
  std::string path;  // the port being opened or in use
  std::shared_ptr<serial_link> link;
  std::uint64_t generation = 0;  // of the current link; older links' messages are dropped
  bool opened = false;           // port open, handshake sent
  std::chrono::steady_clock::time_point last_line;
  back_off retry{limits::reconnect_backoff_min, limits::reconnect_backoff_max};
  bool told_searching = false;
  bool was_connected = false;  // a link was up before: the next one is a reconnect (metrics)
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

// The device actor's full interface: its public one plus what its serial link and its timers
// send it (each tagged with the link's generation, so an old link's messages are dropped).
using device_impl = device_actor::extend<
    caf::reacts_to<retry_atom, std::uint64_t>, caf::reacts_to<opened_atom, std::uint64_t>,
    caf::reacts_to<line_atom, std::uint64_t, std::string, bool>,
    caf::reacts_to<closed_atom, std::uint64_t, std::string>,
    caf::reacts_to<keepalive_atom, std::uint64_t>, caf::reacts_to<settings_reloaded>>;

device_impl::behavior_type device_behavior(device_impl::stateful_pointer<device_state> self,
                                           device_config config,
                                           std::shared_ptr<published<device_view>> status);

// Its row of the capability table (actors/device/device_capability.cpp).
const capability& device_capability();

}  // namespace mixerd
