// The MQTT row (Home Assistant discovery, states and commands). Detached: a clean stop waits,
// within a bound, for the broker to acknowledge `offline`. Its broker connection runs on a thread
// of its own, so an absent or slow broker holds up nothing. After profiles: its commands load
// profiles. A consumer: it mirrors the producers' last changes before it goes offline.
#include <caf/all.hpp>

#include "actors/mqtt/mqtt_actor.hpp"
#include "actors/network/network_actor.hpp"
#include "protocol/mqtt.hpp"

namespace mixerd {

const capability& mqtt_capability() {
  static const capability c = [] {
    capability c;
    c.name = "mqtt";
    c.spawn = [](spawn_context& ctx) {
      auto& dir = ctx.dir;
      mqtt_wiring wiring{dir.get<settings_actor>(),
                         &ctx.commands,
                         dir.source<mixer_view>(),
                         dir.source<macros_view>(),
                         dir.source<profiles_view>(),
                         dir.source<device_view>(),
                         read_host_name(),
                         &dir,
                         true,
                         dir.get<hub_actor>(),
                         dir.slot(mqtt_link_view{})};
      std::string key;
      std::string error;
      // Validated at start-up (settings_schema): a bad value never gets here.
      auto config = mqtt::settings_from(ctx.settings, wiring.host_name, key, error)
                        .value_or(mqtt::settings{});
      auto mqtt = ctx.sys.spawn<caf::detached>(mqtt_behavior, std::move(wiring), std::move(config));
      return ctx.registered<mqtt_actor>(mqtt);
    };
    c.stop = stop_phase::consumers;
    // The broker link in the page's Status section and the settings area.
    c.events = [] { return list_of_kinds<status_facts>(); };
    c.contribute = [](const directory& dir, nlohmann::json& state) {
      if (auto view = dir.view<mqtt_link_view>(); view && !view->facts.empty())
        state["status_facts"]["mqtt"] = to_json(view->facts);
    };
    c.after_ready = send_ready<mqtt_actor>;
    c.subscriptions = mqtt_subscriptions;
    c.settings = mqtt_settings;
    return c;
  }();
  return c;
}

}  // namespace mixerd
