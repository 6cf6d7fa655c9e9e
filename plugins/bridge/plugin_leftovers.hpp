// What a plugin's process leaves running (protocol/README.md, "Plugins", "Isolation"): its
// children and their children, including those that left its session (setsid) or lost their
// parent (a double fork). They end with the plugin: SIGTERM once its process is gone, SIGKILL
// after leftover_grace.
//
// Without a cgroup per plugin, the kernel keeps no list of a process's descendants, so they are
// found in /proc by three marks, none of which a process loses by accident:
//  - its parent: a process whose parent is the plugin's process or one of its leftovers;
//  - its session: the plugin's process leads a session of its own (posix_spawn with
//    POSIX_SPAWN_SETSID), and a session's id is the pid of the process that created it, which the
//    kernel does not give to another process while the session has a member. Every process of a
//    session descends from its creator; so everything in the plugin's session, and everything in
//    a session one of its leftovers is in, is a leftover;
//  - its environment: the daemon is a child subreaper (actors/support/child_processes.hpp), so an
//    orphan becomes the daemon's child; one that carries the plugin's MIXERD_PLUGIN_ID=<id> is
//    its leftover. This finds a double-forked process that also left the session before the
//    daemon looked (a daemonising helper), unless it cleared its environment.
// The processes found while the plugin's process still runs (at the close of its input, before a
// kill) are remembered by pid and start time, so that their parent's end does not lose them.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "actors/support/process_table.hpp"

namespace mixerd {

struct process_id {
  pid_t pid = 0;
  std::uint64_t start_time = 0;
  bool operator==(const process_id& other) const {
    return pid == other.pid && start_time == other.start_time;
  }
};

struct descendant_rules {
  process_id host;  // the plugin's process, running or gone
  pid_t daemon = 0;
  pid_t daemon_session = 0;
  std::vector<process_id> known;  // leftovers found before
  // A child the daemon started itself (another plugin's process, a command macro's program):
  // never a leftover.
  std::function<bool(pid_t)> own_child;
  // Whether the process's environment holds the plugin's mark; asked only of the daemon's
  // children that it did not start (the orphans it adopted).
  std::function<bool(pid_t)> carries_mark;
};

// The plugin's leftovers in `table` (the host itself not among them), ended ones included.
std::vector<process_entry> plugin_descendants(const std::vector<process_entry>& table,
                                              const descendant_rules& rules);

// "MIXERD_PLUGIN_ID=<id>": in the environment of the plugin's process, inherited by what it
// starts.
std::string plugin_mark(std::string_view id);

// Whether `environment` (NUL-separated entries, as /proc/<pid>/environ) holds `entry`.
bool environment_holds(std::string_view environment, std::string_view entry);

// SIGTERM to SIGKILL.
inline constexpr auto leftover_grace = std::chrono::seconds(1);
// SIGKILL to giving up on a process that does not end (stuck in the kernel): logged, left.
inline constexpr auto leftover_give_up = std::chrono::seconds(1);

// One plugin process's leftovers. Not thread-safe: used by its process's I/O thread (and its
// destructor).
class plugin_leftovers {
 public:
  plugin_leftovers(std::string log_component, std::string mark)
      : log_component_(std::move(log_component)), mark_(std::move(mark)) {}

  // The plugin's process, once it was spawned.
  void set_host(pid_t pid);

  // Looks at /proc: the running leftovers, remembered for the next look.
  std::vector<process_entry> look();

  // After the plugin's process was reaped: looks, SIGTERMs what is new, SIGKILLs everything
  // after leftover_grace. True once none runs (or after leftover_give_up more); until then,
  // call it again a little later.
  bool end_step(std::chrono::steady_clock::time_point now);

  // SIGKILL to every leftover at once (the I/O thread is gone: no time to wait).
  void kill_now();

 private:
  std::string log_component_;
  std::string mark_;
  process_id host_;
  std::vector<process_id> known_;
  std::vector<process_id> terminated_;  // got SIGTERM
  bool ending_ = false;
  std::chrono::steady_clock::time_point ending_since_{};
  bool killing_ = false;
};

}  // namespace mixerd
