// The device's row: the serial link on the io thread; it publishes every device line.
#include <caf/all.hpp>

#include "actors/device/device_actor.hpp"
#include "actors/device/device_commands.hpp"
#include "protocol/audio.hpp"
#include "protocol/device.hpp"
#include "protocol/json.hpp"

namespace mixerd {

const capability& device_capability() {
  static const capability c = [] {
    capability c;
    c.name = "device";
    c.spawn = [](spawn_context& ctx) {
      auto device = ctx.sys.spawn(
          device_behavior,
          device_config{ctx.io, ctx.serial, ctx.dir.get<hub_actor>(), ctx.dir.get<settings_actor>(),
                        device_brightness_of(ctx.settings)},
          ctx.dir.slot(device_view{}));
      return ctx.registered<device_actor>(device);
    };
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_device>();
    };
    c.events = [] { return list_of_kinds<device_status, serial_raw, device_input>(); };
    c.metrics = [](const directory& dir, metrics::exposition& out) {
      auto& counters = device_counters_of_process();
      out.family("mixerd_device_connected", "1 while the mixer device is connected.", "gauge");
      auto device = dir.view<device_view>();
      out.sample("mixerd_device_connected", std::uint64_t{device && device->connected ? 1u : 0u});
      out.family("mixerd_device_reconnects_total",
                 "Links to the device made again after one was lost.", "counter");
      out.sample("mixerd_device_reconnects_total", metrics::read(counters.reconnects));
      out.family("mixerd_serial_lines_total", "Lines on the device's serial link, by direction.",
                 "counter");
      out.sample("mixerd_serial_lines_total", {{"direction", "in"}},
                 metrics::read(counters.lines_in));
      out.sample("mixerd_serial_lines_total", {{"direction", "out"}},
                 metrics::read(counters.lines_out));
    };
    c.contribute = [](const directory& dir, nlohmann::json& state) {
      auto device = dir.view<device_view>();
      auto audio = dir.view<audio_view>();
      auto status = device ? *device : device_view{};
      state["status"] = json::status_to_json(status, audio && audio->connected);
      state["connected"] = status.connected;
    };
    c.commands = device_commands;
    c.settings = device_settings;
    return c;
  }();
  return c;
}

}  // namespace mixerd
