// The system row: the machine's uptime, load and temperature. It reads kernel files on its own
// timer and needs no other capability but the hub.
#include <caf/all.hpp>
#include <cstdlib>

#include "actors/system/system_actor.hpp"
#include "protocol/system.hpp"

namespace mixerd {

const capability& system_capability() {
  static const capability c = [] {
    capability c;
    c.name = "system";
    c.spawn = [](spawn_context& ctx) {
      system_wiring wiring{ctx.dir.get<hub_actor>(), nullptr};
      if (const char* thermal = std::getenv("MIXERD_THERMAL_DIR"); thermal && *thermal)
        wiring.thermal_dir = thermal;
      // The first sample here, so that the first request and initial_state never see an empty
      // view: a few reads of kernel files, which never wait on a disk.
      wiring.view = ctx.dir.slot(read_system(wiring.proc_dir, wiring.thermal_dir));
      auto system = ctx.sys.spawn(system_behavior, std::move(wiring));
      return ctx.registered<system_actor>(system);
    };
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_system>();
    };
    c.events = [] { return list_of_kinds<status_facts>(); };
    c.contribute = [](const directory& dir, nlohmann::json& state) {
      if (auto view = dir.view<system_view>())
        state["status_facts"]["system"] = to_json(system::facts_of(*view));
    };
    c.sensors = [](const directory& dir) {
      auto view = dir.view<system_view>();
      return view ? system::sensors_of(*view) : sensor_readings{};
    };
    return c;
  }();
  return c;
}

}  // namespace mixerd
