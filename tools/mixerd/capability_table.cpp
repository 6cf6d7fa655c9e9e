// The capability table: one row per capability, in spawn order. A row may use the handles and
// views of the rows above it when it is spawned; a capability that acts on one below it (a macro
// loading a profile) does so through a command, which finds its owner when it runs. Each
// capability declares itself in its own files (actors/<cap>/<cap>_capability.cpp); this list is
// the only place that names them all. A row of an optional capability spawns its actor when its
// switch is on (MIXERD_WITH_<CAP>, cmake/capabilities.cmake); off, the row holds only what the
// capability's protocol declares (declared_only).
#include "tools/mixerd/capability_table.hpp"

#include <deque>

#include "actors/audio/audio_actor.hpp"
#include "actors/auth/auth_actor.hpp"
#include "actors/device/device_actor.hpp"
#include "actors/hub/hub_actor.hpp"
#include "actors/mixer/mixer_actor.hpp"
#include "actors/network/network_actor.hpp"
#include "actors/plants/plants_actor.hpp"
#include "actors/settings/settings_actor.hpp"
#include "actors/system/system_actor.hpp"
#include "actors/toast/toast_actor.hpp"
#include "protocol/macros.hpp"
#include "protocol/mdns.hpp"
#include "protocol/mqtt.hpp"
#include "protocol/music.hpp"
#include "protocol/plugins.hpp"
#include "protocol/profiles.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/stream.hpp"
#if MIXERD_WITH_MACROS
#include "actors/macros/macros_actor.hpp"
#endif
#if MIXERD_WITH_STREAM
#include "actors/stream/stream_actor.hpp"
#endif
#if MIXERD_WITH_SMARTHOME
#include "actors/smarthome/smarthome_actor.hpp"
#endif
#if MIXERD_WITH_MUSIC
#include "actors/music/music_actor.hpp"
#endif
#if MIXERD_WITH_PROFILES
#include "actors/profiles/profiles_actor.hpp"
#endif
#if MIXERD_WITH_MQTT
#include "actors/mqtt/mqtt_actor.hpp"
#endif
#if MIXERD_WITH_PLUGINS
#include "plugins/bridge/bridge_actor.hpp"
#endif
#if MIXERD_WITH_MDNS
#include "actors/mdns/mdns_actor.hpp"
#endif

namespace mixerd {

namespace {

// A capability left out of the build keeps what its protocol declares: its settings keep their
// checks (a settings.json written by a full build reads the same), macros of its kinds parse
// and answer "<command> is not available in this build", and its toast handlers are listed, as
// when its service is absent. Its row spawns nothing. (Unused when every switch is on.)
[[maybe_unused]] const capability* declared_only(std::string_view name,
                                                 settings_schema::part (*settings)(),
                                                 std::vector<macros::kind> (*macro_kinds)(),
                                                 toast_handler_list (*toast_handlers)()) {
  static std::deque<capability> left_out;
  auto& c = left_out.emplace_back();
  c.name = name;
  c.settings = settings;
  c.macro_kinds = macro_kinds;
  c.toast_handlers = toast_handlers;
  return &c;
}

}  // namespace

const std::vector<const capability*>& capability_table() {
  static const std::vector<const capability*> rows {
    &hub_capability(), &settings_capability(), &device_capability(), &audio_capability(),
        &mixer_capability(),
#if MIXERD_WITH_MACROS
        &macros_capability(),
#else
        declared_only("macros", macros_settings, nullptr, nullptr),
#endif
        &auth_capability(), &toast_capability(), &network_capability(), &plants_capability(),
#if MIXERD_WITH_STREAM
        &stream_capability(),
#else
        declared_only("stream", stream_settings, stream_macro_kinds, stream_toast_handlers),
#endif
#if MIXERD_WITH_SMARTHOME
        &smarthome_capability(),
#else
        declared_only("smarthome", smarthome_settings, smarthome_macro_kinds,
                      smarthome_toast_handlers),
#endif
#if MIXERD_WITH_MUSIC
        &music_capability(),
#else
        declared_only("music", nullptr, music_macro_kinds, music_toast_handlers),
#endif
#if MIXERD_WITH_PROFILES
        &profiles_capability(),
#else
        declared_only("profiles", profiles_settings, profiles_macro_kinds, nullptr),
#endif
#if MIXERD_WITH_MQTT
        &mqtt_capability(),
#else
        declared_only("mqtt", mqtt_settings, nullptr, nullptr),
#endif
#if MIXERD_WITH_PLUGINS
        &plugins_capability(),
#else
        declared_only("plugins", plugins_settings, plugins_macro_kinds, plugins_toast_handlers),
#endif
#if MIXERD_WITH_MDNS
        &mdns_capability(),
#else
        declared_only("mdns", mdns_settings, nullptr, nullptr),
#endif
        &system_capability(),
  };
  return rows;
}

}  // namespace mixerd
