// The toast handlers of a full build, for tests of the toast capability and its routes.
#pragma once

#include "protocol/music.hpp"
#include "protocol/plugins.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/stream.hpp"
#include "protocol/toast.hpp"

namespace mixerd::test {

// Every toast handler the daemon's capabilities declare, in the order of their rows.
inline mixerd::toast_handler_list every_toast_handler() {
  mixerd::toast_handler_list all = mixerd::toast::own_handlers();
  for (auto list : {mixerd::stream_toast_handlers(), mixerd::smarthome_toast_handlers(),
                    mixerd::music_toast_handlers(), mixerd::plugins_toast_handlers()})
    all.insert(all.end(), list.begin(), list.end());
  return all;
}

}  // namespace mixerd::test
