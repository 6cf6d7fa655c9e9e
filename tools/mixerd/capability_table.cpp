// The capability table: one row per capability, in spawn order. A row may use the handles and
// views of the rows above it when it is spawned; a capability that acts on one below it (a macro
// loading a profile) does so through a command, which finds its owner when it runs.
// Each capability declares itself in its own files (actors/<cap>/<cap>_capability.cpp); this
// list is the only place that names them all.
#include "tools/mixerd/capability_table.hpp"

#include "actors/audio/audio_actor.hpp"
#include "actors/auth/auth_actor.hpp"
#include "actors/device/device_actor.hpp"
#include "actors/hub/hub_actor.hpp"
#include "actors/macros/macro_actor.hpp"
#include "actors/mdns/mdns_actor.hpp"
#include "actors/mixer/mixer_actor.hpp"
#include "actors/mqtt/mqtt_actor.hpp"
#include "actors/music/music_actor.hpp"
#include "actors/network/network_actor.hpp"
#include "actors/plants/plant_store_actor.hpp"
#include "actors/profiles/profile_actor.hpp"
#include "actors/settings/settings_actor.hpp"
#include "actors/smarthome/smarthome_actor.hpp"
#include "actors/stream/stream_actor.hpp"
#include "actors/toast/toast_actor.hpp"
#include "plugins/bridge/bridge_actor.hpp"

namespace mixerd {

const std::vector<const capability*>& capability_table() {
  static const std::vector<const capability*> rows{
      &hub_capability(),     &settings_capability(), &device_capability(), &audio_capability(),
      &mixer_capability(),   &macros_capability(),   &auth_capability(),   &toast_capability(),
      &network_capability(), &plants_capability(),   &stream_capability(), &smarthome_capability(),
      &music_capability(),   &profiles_capability(), &mqtt_capability(),   &plugins_capability(),
      &mdns_capability(),
  };
  return rows;
}

}  // namespace mixerd
