#include "actors/support/child_processes.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mutex>
#include <unordered_set>

#include "actors/support/process_table.hpp"

namespace mixerd {

namespace {

struct registry {
  std::mutex mutex;
  std::unordered_set<pid_t> pids;
};

registry& children() {
  static registry r;
  return r;
}

}  // namespace

int spawn_registered_child(pid_t& pid, const std::function<int(pid_t*)>& spawn) {
  auto& r = children();
  // Held across the spawn: a child that exits at once is a zombie before its pid is known here,
  // and reap_adopted_orphans (which takes the lock) must not take it for an orphan meanwhile.
  std::lock_guard lock(r.mutex);
  const int rc = spawn(&pid);
  if (rc == 0 && pid > 0) r.pids.insert(pid);
  return rc;
}

void forget_child(pid_t pid) {
  auto& r = children();
  std::lock_guard lock(r.mutex);
  r.pids.erase(pid);
}

bool is_registered_child(pid_t pid) {
  auto& r = children();
  std::lock_guard lock(r.mutex);
  return r.pids.count(pid) != 0;
}

bool become_child_subreaper() {
  return ::prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL) == 0;
}

int reap_adopted_orphans() {
  auto& r = children();
  std::lock_guard lock(r.mutex);
  int reaped = 0;
  // The cheap look first: one exited child, left unreaped (WNOWAIT). Usually there is none.
  while (true) {
    siginfo_t info{};
    if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0)
      return reaped;
    if (r.pids.count(info.si_pid) != 0) break;
    if (::waitpid(info.si_pid, nullptr, WNOHANG) != info.si_pid) return reaped;
    ++reaped;
  }
  // The exited child waitid shows is one a starter is about to reap; others may hide behind it.
  const pid_t self = ::getpid();
  for (const auto& e : read_process_table())
    if (e.ppid == self && e.ended() && r.pids.count(e.pid) == 0 &&
        ::waitpid(e.pid, nullptr, WNOHANG) == e.pid)
      ++reaped;
  return reaped;
}

}  // namespace mixerd
