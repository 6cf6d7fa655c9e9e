// The streaming software's row (OBS). A producer: it publishes scene and status changes.
#include <caf/all.hpp>

#include "actors/stream/stream_actor.hpp"
#include "actors/stream/stream_commands.hpp"
#include "protocol/stream.hpp"

namespace mixerd {

const capability& stream_capability() {
  static const capability c = [] {
    capability c;
    c.name = "stream";
    c.spawn = [](spawn_context& ctx) {
      auto& dir = ctx.dir;
      std::string key;
      std::string error;
      // Validated at start-up (settings_schema): a bad value never gets here.
      auto config = stream::settings_from(ctx.settings, key, error).value_or(stream::settings{});
      stream_wiring wiring{dir.get<hub_actor>(), dir.get<toast_actor>(), dir.get<settings_actor>(),
                           ctx.io};
      auto view = dir.slot(stream_view{});
      auto stream = ctx.sys.spawn(stream_behavior, std::move(wiring), std::move(config), view);
      return ctx.registered<stream_actor>(stream);
    };
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_stream>();
    };
    c.events = [] { return list_of_kinds<stream_change, stream_status>(); };
    c.contribute = [](const directory& dir, nlohmann::json& state) {
      if (auto view = dir.view<stream_view>()) state["stream"] = stream::to_json(*view);
    };
    c.commands = stream_commands;
    c.macro_kinds = stream_macro_kinds;
    c.settings = stream_settings;
    c.toast_handlers = stream_toast_handlers;
    return c;
  }();
  return c;
}

}  // namespace mixerd
