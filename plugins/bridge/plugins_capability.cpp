// The plugin host's row, last but one: its hooks read every view above, and its plugins' calls
// reach the device, macros, toasts and settings. A consumer: at stop its plugins get on_unload
// (2 s grace) while the producers are gone already.
#include <caf/all.hpp>

#include "plugins/bridge/bridge_actor.hpp"
#include "plugins/bridge/plugins_commands.hpp"
#include "protocol/plugins.hpp"

namespace mixerd {

const capability& plugins_capability() {
  static const capability c = [] {
    capability c;
    c.name = "plugins";
    c.spawn = [](spawn_context& ctx) {
      auto& dir = ctx.dir;
      plugins_wiring wiring;
      wiring.folder = ctx.paths.data_dir + "/plugins/executable";
      wiring.sdk_dir = plugin_sdk_dir();
      wiring.hub = dir.get<hub_actor>();
      wiring.settings = dir.get<settings_actor>();
      wiring.commands = &ctx.commands;
      wiring.device_source = dir.source<device_view>();
      wiring.mixer = dir.source<mixer_view>();
      wiring.macro_set = dir.source<macros_view>();
      wiring.music = dir.source<music_view>();
      wiring.wait_for_ready = true;
      auto view = dir.slot(plugins_view{});
      auto plugins = ctx.sys.spawn(plugins_behavior, std::move(wiring), ctx.settings, view);
      return ctx.registered<plugins_actor>(plugins);
    };
    c.after_ready = send_ready<plugins_actor>;
    c.stop = stop_phase::consumers;
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_plugins>();
    };
    c.events = [] { return list_of_kinds<plugin_status>(); };
    c.metrics = [](const directory&, metrics::exposition& out) {
      out.family("mixerd_plugin_restarts_total",
                 "Plugins started again after a crash, an exit or a kill.", "counter");
      out.sample("mixerd_plugin_restarts_total", metrics::read(plugin_restarts_of_process()));
    };
    c.subscriptions = plugins_subscriptions;
    c.commands = plugins_commands;
    c.macro_kinds = plugins_macro_kinds;
    c.macro_interceptor = "plugin.intercept";
    c.settings = plugins_settings;
    c.toast_handlers = plugins_toast_handlers;
    return c;
  }();
  return c;
}

}  // namespace mixerd
