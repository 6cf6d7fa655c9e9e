// The network actor knows how this machine can be reached: its interface addresses (read with
// getifaddrs on each request) and the overlay network's state. With the `tailscale` command on
// PATH it runs `tailscale status --json` (no shell, at most 2 s, on the io thread; one run at a
// time, its answer kept for 5 s); otherwise, or when the command gives no usable answer, an
// interface named tailscale* or an address in 100.64.0.0/10 stands for the overlay.
// Interface: protocol/network.hpp.
#pragma once

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_response_promise.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "protocol/atoms.hpp"
#include "protocol/network.hpp"

namespace boost::asio {
class io_context;
}

namespace mixerd {

struct network_config {
  boost::asio::io_context* io = nullptr;
  std::string overlay_command = "tailscale";  // looked up on PATH at each probe
  std::chrono::milliseconds probe_timeout{2000};
};

struct network_state {
  network_config config;
  bool probing = false;
  std::vector<caf::typed_response_promise<network_snapshot>> waiting;  // bounded
  // The last probe's result (nullopt: the command gave no usable answer) and when it came.
  std::optional<overlay_status> probed;
  std::optional<std::chrono::steady_clock::time_point> probed_at;
  static inline const char* name = "network";
};

// The addresses of the interfaces that are up.
std::vector<interface_address> read_interface_addresses();

// The network actor's full interface: its public one plus the overlay command's answer, from
// the io thread.
using network_impl = network_actor::extend<caf::reacts_to<overlay_atom, std::string, bool>>;

network_impl::behavior_type network_behavior(network_impl::stateful_pointer<network_state> self,
                                             network_config config);

}  // namespace mixerd
