// What a capability declares about itself, in its own files (actors/<cap>/<cap>_capability.cpp):
// how its actor is spawned and stopped, its CAF type-ID block, the events it publishes and
// receives, and what it adds to Socket.IO's initial_state. The daemon's capability table
// (tools/mixerd/capability_table.cpp) lists one descriptor per row, in spawn order; the daemon
// assembles everything else (the event set, the type IDs, the subscriptions) from the rows.
#pragma once

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <caf/send.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "actors/support/command_runner.hpp"
#include "actors/support/directory.hpp"
#include "actors/support/settings_file.hpp"
#include "protocol/atoms.hpp"
#include "protocol/events.hpp"
#include "protocol/macro_kinds.hpp"
#include "protocol/metrics.hpp"
#include "protocol/settings_schema.hpp"
#include "protocol/toast.hpp"

namespace boost::asio {
class io_context;
}

namespace mixerd {

class http_client;

// When a capability's actor stops: producers of changes first (every change they made is then
// queued at the settings actor ahead of its final flush), then the actors that only consume
// their output, the infrastructure (settings, hub) last.
enum class stop_phase { producers = 0, consumers = 1, infrastructure = 2 };
inline constexpr int stop_phase_count = 3;

// What a capability is spawned with.
struct spawn_context {
  caf::actor_system& sys;
  boost::asio::io_context* io = nullptr;  // the io thread's (listeners, serial port, websockets)
  const std::string& serial;              // --serial: "auto", "none" or a path
  const settings_file::paths& paths;
  const nlohmann::json& settings;  // as loaded and validated at start-up
  // The rows above have registered their handles and views; this row adds its own.
  directory& dir;
  // Every command of every row, for the front ends among the capabilities (MQTT, plugins,
  // macros); usable once every row is spawned.
  const command_runner& commands;
  // The macro_interceptor of every row, in row order.
  const std::vector<std::string>& macro_interceptors;
  // The toast handlers of every row, in row order.
  const toast_handler_list& toast_handlers;
  // The daemon's one client for outgoing HTTP requests (null in tests that need none).
  http_client* http = nullptr;

  // Registers `spawned` under its capability's interface Handle (an actor spawned with an
  // extended interface is found by the public one) and returns it untyped.
  template <class Handle, class Spawned>
  caf::actor registered(const Spawned& spawned) {
    dir.add<Handle>(spawned);
    return caf::actor_cast<caf::actor>(spawned);
  }
};

struct capability {
  std::string_view name;  // as in logs and docs: "mixer", "macros", ...
  // Spawns the actor, registers its handle and views in ctx.dir and returns it.
  caf::actor (*spawn)(spawn_context& ctx) = nullptr;  // null: left out of the build
  stop_phase stop = stop_phase::producers;
  // Adds its CAF type-ID block (cfg.add_message_types<caf::id_block::mixerd_<cap>>()).
  void (*add_types)(caf::actor_system_config& cfg) = nullptr;
  // The event types it publishes (kinds_of's list form); null: none.
  event_kind_list (*events)() = nullptr;
  // The event types its actor receives from the hub; null: none.
  event_kind_set (*subscriptions)() = nullptr;
  // Writes its keys into initial_state (from its published views); null: none.
  void (*contribute)(const directory& dir, nlohmann::json& state) = nullptr;
  // Its keys of settings.json (declared in protocol/<cap>.cpp); null: none.
  settings_schema::part (*settings)() = nullptr;
  // The toast handlers it shows its toasts through (declared in protocol/<cap>.cpp); null: none.
  toast_handler_list (*toast_handlers)() = nullptr;
  // Writes its families of GET /metrics (its counters, its view); null: none.
  void (*metrics)(const directory& dir, metrics::exposition& out) = nullptr;
  // Its readings offered as sensors (MQTT's Home Assistant sensors), from its view; null: none.
  sensor_readings (*sensors)(const directory& dir) = nullptr;
  // Its commands (actors/<cap>/<cap>_commands.cpp); null: none.
  std::vector<command> (*commands)() = nullptr;
  // The kinds of macro that act on it (declared in protocol/<cap>.cpp, each naming the command
  // it runs); null: none.
  std::vector<macros::kind> (*macro_kinds)() = nullptr;
  // Starts what it left for after `ready` (a connection to an outside service, processes):
  // called once every listener answers, so that nothing slow delays the first answer; null:
  // nothing. Most rows send their actor ready_atom (send_ready below).
  void (*after_ready)(const directory& dir) = nullptr;
  // A command asked before every macro runs, which may handle the macro itself (it answers
  // {"handled": true}); empty: none.
  std::string_view macro_interceptor{};
};

// An after_ready that sends the capability's actor (registered under Handle) ready_atom; its
// behaviour, not its public interface, handles it.
template <class Handle>
void send_ready(const directory& dir) {
  if (auto actor = dir.get<Handle>())
    caf::anon_send(caf::actor_cast<caf::actor>(actor), ready_atom_v);
}

}  // namespace mixerd
