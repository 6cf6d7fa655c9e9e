// Messages inside the macro capability, not part of its interface (protocol/macros.hpp): what
// the system table sends the macro actor once every capability is spawned, and what its
// executors (actors/macros/macro_executors.cpp) report back. In the type-ID block like every
// message type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

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

// The outcome of step `step` of run `run` (a single macro is a run of one step). Reports of a run
// that has ended or of a step that is not the current one are dropped (a late answer after a
// time limit).
struct macro_step_done {
  std::uint64_t run = 0;
  std::size_t step = 0;
  bool ok = false;
  std::string error;  // when not ok: a sentence for macro_executed
};

}  // namespace mixerd
