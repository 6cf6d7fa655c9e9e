// The daemon's own child processes, and the orphans it adopts.
//
// Once it runs plugins, mixerd is a child subreaper (prctl(PR_SET_CHILD_SUBREAPER)): a process
// whose parent ends is re-parented to mixerd instead of init, so that what a plugin started and
// left behind (after a double fork, say) can still be found under mixerd and ended with the
// plugin (plugins/bridge/plugin_leftovers). The orphans of every other child mixerd started (a
// command macro's `sh -c 'x &'`) come to it too, and nobody waits for them:
// reap_adopted_orphans() does. It must never reap a child whose starter waits for it itself (its
// exit status would be lost), so every starter (program_runner, plugin_process) starts its child
// through spawn_registered_child, which registers the pid before the registry's lock is let go,
// and calls forget_child once it has reaped it (or gave up on it).
#pragma once

#include <sys/types.h>

#include <functional>

namespace mixerd {

// Runs `spawn` (a posix_spawn call returning its error number and setting the pid) under the
// registry's lock and registers the pid when it returned 0. Any thread.
int spawn_registered_child(pid_t& pid, const std::function<int(pid_t*)>& spawn);

// The starter has reaped `pid` (or no longer waits for it). Any thread.
void forget_child(pid_t pid);

// Whether a starter registered `pid` and still waits for it.
bool is_registered_child(pid_t pid);

// Makes the daemon a child subreaper; false (errno set) when the kernel refused. Idempotent.
bool become_child_subreaper();

// Reaps, without waiting, every exited child of the daemon that no starter registered: the
// orphans it adopted as a subreaper. Returns how many. Any thread.
int reap_adopted_orphans();

}  // namespace mixerd
