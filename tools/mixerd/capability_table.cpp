// The capability table: one row per capability, in spawn order. A row may use the handles and
// views of the rows above it when it is spawned; a capability that acts on one below it (a macro
// loading a profile) does so through a command, which finds its owner when it runs. Each
// capability declares itself in its own files (actors/<cap>/<cap>_capability.cpp); this list is
// the only place that names them all. A row of an optional capability is in the table when its
// switch is on (MIXERD_WITH_<CAP>, cmake/capabilities.cmake).
#include "tools/mixerd/capability_table.hpp"

#include "actors/audio/audio_actor.hpp"
#include "actors/auth/auth_actor.hpp"
#include "actors/device/device_actor.hpp"
#include "actors/hub/hub_actor.hpp"
#include "actors/mixer/mixer_actor.hpp"
#include "actors/network/network_actor.hpp"
#include "actors/plants/plant_store_actor.hpp"
#include "actors/settings/settings_actor.hpp"
#include "actors/toast/toast_actor.hpp"
#if MIXERD_WITH_MACROS
#include "actors/macros/macro_actor.hpp"
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
#include "actors/profiles/profile_actor.hpp"
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

const std::vector<const capability*>& capability_table() {
  static const std::vector<const capability*> rows{
      &hub_capability(),      &settings_capability(), &device_capability(),
      &audio_capability(),    &mixer_capability(),
#if MIXERD_WITH_MACROS
      &macros_capability(),
#endif
      &auth_capability(),     &toast_capability(),    &network_capability(),
      &plants_capability(),
#if MIXERD_WITH_STREAM
      &stream_capability(),
#endif
#if MIXERD_WITH_SMARTHOME
      &smarthome_capability(),
#endif
#if MIXERD_WITH_MUSIC
      &music_capability(),
#endif
#if MIXERD_WITH_PROFILES
      &profiles_capability(),
#endif
#if MIXERD_WITH_MQTT
      &mqtt_capability(),
#endif
#if MIXERD_WITH_PLUGINS
      &plugins_capability(),
#endif
#if MIXERD_WITH_MDNS
      &mdns_capability(),
#endif
  };
  return rows;
}

}  // namespace mixerd
