// What the daemon installs at start-up from its capability rows (tools/mixerd/system.hpp,
// install_declarations): every part of the settings schema and every kind of macro of a full
// build. The unit tests and the fuzz targets install them the same way before they run, from the
// capabilities' protocol sources (the table itself links every actor).
#pragma once

#include "protocol/auth.hpp"
#include "protocol/device.hpp"
#include "protocol/macro_kinds.hpp"
#include "protocol/macros.hpp"
#include "protocol/mdns.hpp"
#include "protocol/mixer.hpp"
#include "protocol/mqtt.hpp"
#include "protocol/music.hpp"
#include "protocol/network.hpp"
#include "protocol/plants.hpp"
#include "protocol/plugins.hpp"
#include "protocol/profiles.hpp"
#include "protocol/settings_schema.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/stream.hpp"
#include "protocol/toast.hpp"

namespace mixerd::test {

inline void install_every_declaration() {
  settings_schema::install_parts(
      {device_settings(), mixer_settings(), macros_settings(), auth_settings(), toast_settings(),
       network_settings(), plants_settings(), stream_settings(), smarthome_settings(),
       profiles_settings(), mqtt_settings(), plugins_settings(), mdns_settings()});
  macros::install_kinds({mixer_macro_kinds(), profiles_macro_kinds(), stream_macro_kinds(),
                         smarthome_macro_kinds(), music_macro_kinds(), plugins_macro_kinds()});
}

}  // namespace mixerd::test
