// The toast row: the notification API's state and the toasts shown on the device. A consumer:
// device and audio server changes become toasts.
#include <caf/all.hpp>

#include "actors/toast/toast_actor.hpp"
#include "actors/toast/toast_commands.hpp"
#include "protocol/toast.hpp"

namespace mixerd {

const capability& toast_capability() {
  static const capability c = [] {
    capability c;
    c.name = "toast";
    c.spawn = [](spawn_context& ctx) {
      toast_wiring wiring{ctx.dir.get<device_actor>(), ctx.dir.get<settings_actor>(),
                          ctx.toast_handlers};
      auto view =
          ctx.dir.slot(toast_view{toast_handlers_from_settings(ctx.settings, ctx.toast_handlers)});
      auto toast = ctx.sys.spawn(toast_behavior, wiring, ctx.settings, view);
      return ctx.registered<toast_actor>(toast);
    };
    c.stop = stop_phase::consumers;
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_toast>();
    };
    c.subscriptions = toast_subscriptions;
    c.metrics = [](const directory&, metrics::exposition& out) {
      out.family("mixerd_toasts_total", "Toasts handled, by outcome.", "counter");
      const auto& toasts = toast::toasts_of_process();
      for (std::size_t i = 0; i < toasts.size(); ++i)
        out.sample("mixerd_toasts_total", {{"outcome", std::string(toast::toast_outcome_names[i])}},
                   metrics::read(toasts[i]));
    };
    c.toast_handlers = toast::own_handlers;
    c.commands = toast_commands;
    c.settings = toast_settings;
    return c;
  }();
  return c;
}

}  // namespace mixerd
