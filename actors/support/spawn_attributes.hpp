// posix_spawn attributes for the daemon's child processes (command macros, tailscale, plugins):
// an empty signal mask and default handling of every signal, since a child must not inherit
// what the daemon blocks or ignores (SIGPIPE); optionally a process group of its own, so that
// killing the group ends whatever the child started too, or a session of its own (and with it a
// group): a plugin's process, whose session id marks everything it starts that does not leave
// the session (plugins/bridge/plugin_leftovers).
#pragma once

#include <spawn.h>

namespace mixerd {

enum class spawn_grouping { inherit, own_process_group, own_session };

class spawn_attributes {
 public:
  explicit spawn_attributes(spawn_grouping grouping = spawn_grouping::inherit);
  ~spawn_attributes();
  spawn_attributes(const spawn_attributes&) = delete;
  spawn_attributes& operator=(const spawn_attributes&) = delete;
  const posix_spawnattr_t* get() const { return &attr_; }

 private:
  posix_spawnattr_t attr_;
};

}  // namespace mixerd
