#include "actors/network/network_actor.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <caf/all.hpp>
#include <climits>
#include <cstdlib>

#include "actors/support/log.hpp"
#include "actors/support/program_runner.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "network";
using self_ptr = network_impl::stateful_pointer<network_state>;
using clock = std::chrono::steady_clock;

constexpr auto probe_cache = std::chrono::seconds(5);
constexpr std::size_t max_waiting = 64;
constexpr std::size_t max_status_bytes = 4 * 1024 * 1024;  // a tailnet with thousands of peers

// The command exists but said nothing usable: it is installed; the interfaces tell the rest.
overlay_status overlay_without_answer(const std::vector<interface_address>& interfaces) {
  auto overlay = network::overlay_from_interfaces(interfaces);
  overlay.installed = true;
  return overlay;
}

network_snapshot snapshot(self_ptr self, bool command_found) {
  network_snapshot s;
  s.interfaces = read_interface_addresses();
  if (!command_found)
    s.overlay = network::overlay_from_interfaces(s.interfaces);
  else if (self->state.probed)
    s.overlay = *self->state.probed;
  else
    s.overlay = overlay_without_answer(s.interfaces);
  return s;
}

void publish_names(self_ptr self) {
  const auto& st = self->state;
  if (!st.config.names) return;
  st.config.names->store(host_names::make_machine_names(st.config.host_name, st.overlay_name,
                                                        st.config.allowed_hosts));
}

void start_probe(self_ptr self, const std::string& program) {
  auto& st = self->state;
  st.probing = true;
  run_program(*st.config.io, program, st.config.overlay_command, {"status", "--json"},
              st.config.probe_timeout, max_status_bytes,
              [me = caf::actor_cast<caf::actor>(self)](program_output out) {
                caf::anon_send(me, overlay_atom_v, std::move(out.text), out.complete);
              });
}

}  // namespace

std::string read_host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

network_impl::behavior_type network_behavior(network_impl::stateful_pointer<network_state> self,
                                             network_config config) {
  self->state.config = std::move(config);
  publish_names(self);
  if (self->state.config.settings)
    self->send(self->state.config.settings, watch_atom_v, caf::actor_cast<caf::actor>(self));
  return {
      [self](caf::get_atom) -> caf::result<network_snapshot> {
        auto& st = self->state;
        auto program = find_in_path(st.config.overlay_command, std::getenv("PATH"));
        bool fresh = st.probed_at && clock::now() - *st.probed_at < probe_cache;
        if (program.empty() || fresh || st.config.io == nullptr)
          return snapshot(self, !program.empty());
        if (st.waiting.size() >= max_waiting) return snapshot(self, true);
        st.waiting.push_back(self->make_response_promise<network_snapshot>());
        if (!st.probing) start_probe(self, program);
        return st.waiting.back();
      },
      [self](overlay_atom, const std::string& output, bool complete) {
        auto& st = self->state;
        st.probing = false;
        st.probed = complete ? network::parse_tailscale_status(output) : std::nullopt;
        st.probed_at = clock::now();
        // A probe that knows no name keeps the last one: the machine is still called that.
        if (st.probed && !st.probed->hostname.empty() && st.probed->hostname != st.overlay_name) {
          st.overlay_name = st.probed->hostname;
          log::info(component, "the overlay names this machine ", st.overlay_name);
          publish_names(self);
        }
        if (!st.probed)
          log::warn(component, st.config.overlay_command, " status --json gave no usable answer",
                    complete ? "" : " (timed out or too long)");
        auto answer = snapshot(self, true);
        for (auto& rp : st.waiting)
          rp.deliver(answer);
        st.waiting.clear();
      },
      [self](const settings_reloaded& reloaded) {
        auto allowed = host_names::allowed_from_settings(reloaded.settings);
        auto& current = self->state.config.allowed_hosts;
        if (allowed == current) return;
        current = std::move(allowed);
        publish_names(self);
        std::string list;
        for (const auto& name : current)
          list += (list.empty() ? "" : ", ") + name;
        log::info(component, "allowed_hosts now ", list.empty() ? "empty" : list);
      },
  };
}

}  // namespace mixerd
