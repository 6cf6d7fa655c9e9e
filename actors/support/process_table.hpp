// The system's processes as /proc shows them, for what a parent cannot learn from waitpid: the
// children its children left behind (the plugins' leftovers, plugins/bridge/plugin_leftovers) and
// which of its own children have exited (actors/support/child_processes).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace mixerd {

struct process_entry {
  pid_t pid = 0;
  char state = '?';  // R, S, D, T, Z (exited, not yet reaped), X, ...
  pid_t ppid = 0;
  pid_t pgid = 0;
  pid_t sid = 0;
  // Clock ticks after boot. A pid is reused once its process is gone; pid and start time
  // together name one process.
  std::uint64_t start_time = 0;

  // Exited: a signal no longer reaches it and it starts nothing more.
  bool ended() const { return state == 'Z' || state == 'X' || state == 'x'; }
};

// The text of /proc/<pid>/stat; nullopt when it is not in that form. The command name (in
// parentheses) may hold spaces and ')' itself, so the fields are read after its last ')'.
std::optional<process_entry> parse_proc_stat(std::string_view text);

// Every process of /proc (those that end while it is read are left out).
std::vector<process_entry> read_process_table();

// One process; nullopt when it is gone.
std::optional<process_entry> read_process(pid_t pid);

}  // namespace mixerd
