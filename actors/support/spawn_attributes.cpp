#include "actors/support/spawn_attributes.hpp"

#include <signal.h>

namespace mixerd {

spawn_attributes::spawn_attributes(spawn_grouping grouping) {
  posix_spawnattr_init(&attr_);
  sigset_t none;
  sigset_t all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr_, &none);
  posix_spawnattr_setsigdefault(&attr_, &all);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (grouping == spawn_grouping::own_process_group) {
    posix_spawnattr_setpgroup(&attr_, 0);
    flags |= POSIX_SPAWN_SETPGROUP;
  } else if (grouping == spawn_grouping::own_session) {
    flags |= POSIX_SPAWN_SETSID;
  }
  posix_spawnattr_setflags(&attr_, flags);
}

spawn_attributes::~spawn_attributes() {
  posix_spawnattr_destroy(&attr_);
}

}  // namespace mixerd
