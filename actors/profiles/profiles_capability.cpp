// The profiles' row: after mixer and macros (a load hands its parts to both, a save reads both
// views). Detached: its start-up reads and may write the profile folder (fsync), which must not
// delay the rows that subscribe to events the audio and device actors may already publish.
#include <caf/all.hpp>

#include "actors/profiles/profiles_actor.hpp"
#include "actors/profiles/profiles_commands.hpp"
#include "protocol/profiles.hpp"

namespace mixerd {

const capability& profiles_capability() {
  static const capability c = [] {
    capability c;
    c.name = "profiles";
    c.spawn = [](spawn_context& ctx) {
      auto& dir = ctx.dir;
      profiles_wiring wiring{ctx.paths.data_dir + "/profiles", dir.get<mixer_actor>(),
                             dir.get<macros_actor>(),          dir.get<hub_actor>(),
                             dir.get<settings_actor>(),        dir.source<mixer_view>(),
                             dir.source<macros_view>()};
      // Listed before any gateway opens: initial_state names the profiles from the start.
      auto opened = open_profiles(wiring.folder, ctx.settings, current_content(wiring));
      auto view = dir.slot(profiles_view{opened.profiles, opened.current});
      auto profiles = ctx.sys.spawn<caf::detached>(profiles_behavior, std::move(wiring),
                                                   std::move(opened), view);
      return ctx.registered<profiles_actor>(profiles);
    };
    c.add_types = [](caf::actor_system_config& cfg) {
      cfg.add_message_types<caf::id_block::mixerd_profiles>();
    };
    c.events = [] { return list_of_kinds<profile_change>(); };
    c.contribute = [](const directory& dir, nlohmann::json& state) {
      if (auto view = dir.view<profiles_view>()) state["profiles"] = profiles::to_json(*view);
    };
    c.commands = profiles_commands;
    c.macro_kinds = profiles_macro_kinds;
    c.settings = profiles_settings;
    return c;
  }();
  return c;
}

}  // namespace mixerd
