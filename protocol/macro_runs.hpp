// Messages inside the macro capability, not part of its interface (protocol/macros.hpp): what
// the system table sends the macro actor once every capability is spawned, and what its
// executors (actors/macros/macro_executors.cpp) report back. In the type-ID block like every
// message type.
#pragma once

#include <caf/type_id.hpp>
#include <cstddef>
#include <cstdint>
#include <string>

#include "protocol/mdns.hpp"
#include "protocol/music.hpp"
#include "protocol/plugins.hpp"
#include "protocol/profiles.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/stream.hpp"

namespace mixerd {

// The handles of capabilities spawned after the macro actor (actors/system.cpp, the link
// column). An invalid handle: that capability does not run.
struct macro_links {
  profiles_actor profiles;
  smarthome_actor smarthome;
  stream_actor stream;
  music_actor music;
  plugins_actor plugins;
};

}  // namespace mixerd

// The macro_runs capability's CAF type-ID block, chained after the mdns block
// (docs/architecture.md, "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_links)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_macro_runs, caf::id_block::mixerd_mdns::end)
CAF_ADD_TYPE_ID(mixerd_macro_runs, (mixerd::macro_links))
CAF_END_TYPE_ID_BLOCK(mixerd_macro_runs)
