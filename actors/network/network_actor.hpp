// The network actor knows how this machine can be reached: its interface addresses (read with
// getifaddrs on each request) and the overlay network's state. With the `tailscale` command on
// PATH it runs `tailscale status --json` (no shell, at most 2 s, on the io thread; one run at a
// time, its answer kept for 5 s); otherwise, or when the command gives no usable answer, an
// interface named tailscale* or an address in 100.64.0.0/10 stands for the overlay.
// It also owns the names this machine answers to (protocol/host_names.hpp): the host name read at
// start, the overlay's name as the last probe reported it and the setting `allowed_hosts`
// (re-read on SIGHUP); it publishes them as `machine_names` for the HTTP core's Host check.
// Interface: protocol/network.hpp.
#pragma once

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_response_promise.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "actors/support/capability.hpp"
#include "actors/support/interface_addresses.hpp"
#include "protocol/atoms.hpp"
#include "protocol/host_names.hpp"
#include "protocol/network.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"

namespace boost::asio {
class io_context;
}

namespace mixerd {

struct network_config {
  boost::asio::io_context* io = nullptr;
  std::string overlay_command = "tailscale";  // looked up on PATH at each probe
  std::chrono::milliseconds probe_timeout{2000};
  // The names this machine answers to. `names` null: nothing is published. `settings` invalid:
  // `allowed_hosts` stays as given.
  std::string host_name;
  std::vector<std::string> allowed_hosts;
  settings_actor settings;
  std::shared_ptr<published<machine_names>> names;
};

struct network_state {
  network_config config;
  bool probing = false;
  std::vector<caf::typed_response_promise<network_snapshot>> waiting;  // bounded
  // The last probe's result (nullopt: the command gave no usable answer) and when it came.
  std::optional<overlay_status> probed;
  std::optional<std::chrono::steady_clock::time_point> probed_at;
  // The overlay's name as the last probe that knew one reported it ("" until then).
  std::string overlay_name;
  static inline const char* name = "network";
};

// This machine's host name (gethostname); "" when it has none.
std::string read_host_name();

// The network actor's full interface: its public one plus the overlay command's answer, from
// the io thread, and the settings actor's reload notice.
using network_impl = network_actor::extend<caf::reacts_to<overlay_atom, std::string, bool>,
                                           caf::reacts_to<settings_reloaded>>;

network_impl::behavior_type network_behavior(network_impl::stateful_pointer<network_state> self,
                                             network_config config);

// Its row of the capability table (actors/network/network_capability.cpp).
const capability& network_capability();

}  // namespace mixerd
