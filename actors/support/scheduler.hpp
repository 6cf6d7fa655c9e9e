// The CAF scheduler of a quiet daemon on a small machine: work-sharing (idle workers sleep) with
// one worker. The daemon and the actor tests run their actors on the same settings.
#pragma once

#include <caf/fwd.hpp>

namespace mixerd {

void configure_scheduler(caf::actor_system_config& cfg);

}  // namespace mixerd
