#include "plugins/bridge/plugin_leftovers.hpp"

#include <doctest/doctest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "actors/support/child_processes.hpp"

using mixerd::descendant_rules;
using mixerd::process_entry;
using mixerd::process_id;

namespace {

constexpr pid_t daemon_pid = 100;
constexpr pid_t daemon_session = 50;
constexpr pid_t host = 200;
constexpr std::uint64_t host_start = 7000;

process_entry proc(pid_t pid, pid_t ppid, pid_t sid, char state = 'S', std::uint64_t start = 0) {
  process_entry e;
  e.pid = pid;
  e.ppid = ppid;
  e.pgid = sid;
  e.sid = sid;
  e.state = state;
  e.start_time = start != 0 ? start : 8000 + static_cast<std::uint64_t>(pid);
  return e;
}

// The daemon (in its session), the plugin's process leading its own, and processes around.
std::vector<process_entry> with_daemon(std::vector<process_entry> more, bool host_runs = true) {
  std::vector<process_entry> table = {proc(1, 0, 1), proc(daemon_pid, 1, daemon_session)};
  if (host_runs) table.push_back(proc(host, daemon_pid, host, 'S', host_start));
  table.insert(table.end(), more.begin(), more.end());
  return table;
}

descendant_rules rules(std::set<pid_t> marked = {}, std::set<pid_t> own = {host}) {
  descendant_rules r;
  r.host = {host, host_start};
  r.daemon = daemon_pid;
  r.daemon_session = daemon_session;
  r.own_child = [own](pid_t pid) { return own.count(pid) != 0; };
  r.carries_mark = [marked](pid_t pid) { return marked.count(pid) != 0; };
  return r;
}

std::set<pid_t> pids(const std::vector<process_entry>& entries) {
  std::set<pid_t> out;
  for (const auto& e : entries)
    out.insert(e.pid);
  return out;
}

}  // namespace

TEST_CASE("while the plugin's process runs, its children and theirs are found by parent") {
  auto table =
      with_daemon({proc(201, host, host), proc(202, 201, 202),  // left the session
                   proc(203, 202, 202), proc(300, daemon_pid, daemon_session), proc(301, 1, 301)});
  CHECK(pids(plugin_descendants(table, rules())) == std::set<pid_t>{201, 202, 203});
}

TEST_CASE("after the plugin's process ended, its session still marks what stayed in it") {
  // 201 and its child were re-parented to the daemon (a subreaper) when the plugin ended.
  auto table = with_daemon({proc(201, daemon_pid, host), proc(204, 201, host)}, false);
  CHECK(pids(plugin_descendants(table, rules())) == std::set<pid_t>{201, 204});
}

TEST_CASE("an orphan that left the session is the plugin's only when it carries the mark") {
  // 210: double-forked and setsid (its session's creator is gone); 211: someone else's orphan.
  auto table = with_daemon(
      {proc(210, daemon_pid, 209), proc(212, 210, 209), proc(211, daemon_pid, 211)}, false);
  CHECK(pids(plugin_descendants(table, rules({210}))) == std::set<pid_t>{210, 212});
  CHECK(pids(plugin_descendants(table, rules())).empty());
  // The mark is asked of the daemon's orphans only, never of a child it started itself.
  CHECK(pids(plugin_descendants(table, rules({210, 211}, {host, 211}))) ==
        std::set<pid_t>{210, 212});
}

TEST_CASE("a leftover's session brings in every process of that session") {
  // 220 is found by its parent; 221 is in 220's session but lost its parent.
  auto table = with_daemon({proc(220, host, 220), proc(221, daemon_pid, 220), proc(222, 221, 220)});
  CHECK(pids(plugin_descendants(table, rules())) == std::set<pid_t>{220, 221, 222});
}

TEST_CASE("the daemon's own session and children are never the plugin's") {
  // A marked orphan in the daemon's session (it copied the variable) does not bring in the
  // daemon's session, and another plugin's process (the daemon's child) is never taken.
  auto table =
      with_daemon({proc(230, daemon_pid, daemon_session), proc(231, daemon_pid, daemon_session),
                   proc(400, daemon_pid, 400), proc(401, 400, 400)});
  auto found = pids(plugin_descendants(table, rules({230, 400}, {host, 400})));
  CHECK(found == std::set<pid_t>{230});
}

TEST_CASE("a process found before is recognised by pid and start time") {
  // 240 left the session, lost its parent and cleared its environment: only the earlier look
  // (while the plugin's process ran) knows it. 241 reuses a pid found before: not the same one.
  auto table = with_daemon(
      {proc(240, daemon_pid, 240, 'S', 9100), proc(241, daemon_pid, 241, 'S', 9999)}, false);
  auto r = rules();
  r.known = {process_id{240, 9100}, process_id{241, 9101}};
  CHECK(pids(plugin_descendants(table, r)) == std::set<pid_t>{240});
}

TEST_CASE("a pid of the plugin's process given to another process marks nothing") {
  // The plugin's process is gone and its pid reused (another start time): neither the new
  // process's children nor its session are the plugin's.
  auto table =
      with_daemon({proc(host, 1, host, 'S', host_start + 1), proc(250, host, host)}, false);
  CHECK(pids(plugin_descendants(table, rules())).empty());
}

TEST_CASE("ended leftovers are listed, the plugin's process itself never") {
  auto table = with_daemon({proc(260, host, host, 'Z')});
  auto found = plugin_descendants(table, rules());
  REQUIRE(found.size() == 1);
  CHECK(found[0].ended());
}

TEST_CASE("the mark is one whole entry of the environment") {
  const auto mark = mixerd::plugin_mark("com.example.a");
  CHECK(mark == "MIXERD_PLUGIN_ID=com.example.a");
  using namespace std::string_literals;
  CHECK(mixerd::environment_holds("PATH=/bin\0MIXERD_PLUGIN_ID=com.example.a\0"s, mark));
  CHECK(mixerd::environment_holds("MIXERD_PLUGIN_ID=com.example.a"s, mark));
  CHECK_FALSE(mixerd::environment_holds("MIXERD_PLUGIN_ID=com.example.ab\0"s, mark));
  CHECK_FALSE(mixerd::environment_holds("X=MIXERD_PLUGIN_ID=com.example.a\0"s, mark));
  CHECK_FALSE(mixerd::environment_holds(""s, mark));
}

TEST_CASE("live: what a process left in its session and behind a setsid ends with it") {
  // The host: a shell that starts a sleeper in its session and one in a session of its own, then
  // exits, and both lose their parent.
  const std::string mark = mixerd::plugin_mark("test.leftovers.live");
  std::vector<std::string> env_strings = {"PATH=/usr/bin:/bin", mark};
  std::vector<char*> envp;
  for (auto& s : env_strings)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string script =
      "sleep 30 </dev/null >/dev/null 2>&1 & setsid sleep 31 </dev/null >/dev/null 2>&1 & "
      "exec sleep 0.2";
  std::vector<char*> argv = {const_cast<char*>("sh"), const_cast<char*>("-c"), script.data(),
                             nullptr};
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  pid_t pid = 0;
  REQUIRE(mixerd::spawn_registered_child(pid, [&](pid_t* out) {
            return ::posix_spawn(out, "/bin/sh", nullptr, &attr, argv.data(), envp.data());
          }) == 0);
  posix_spawnattr_destroy(&attr);
  mixerd::plugin_leftovers leftovers("test", mark);
  leftovers.set_host(pid);
  // While the shell runs, both sleepers are its children.
  std::vector<process_entry> running;
  for (int i = 0; i < 100 && running.size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    running = leftovers.look();
  }
  CHECK(running.size() == 2);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  mixerd::forget_child(pid);
  // The shell is gone: the one in its session is found by the session; the other by the look
  // before (and by the mark, when this binary is already a subreaper).
  const auto now = std::chrono::steady_clock::now();
  CHECK_FALSE(leftovers.end_step(now));
  bool done = false;
  for (int i = 0; i < 200 && !done; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    done = leftovers.end_step(std::chrono::steady_clock::now());
  }
  CHECK(done);
  CHECK(leftovers.look().empty());
  for (const auto& e : running) {
    auto now_there = mixerd::read_process(e.pid);
    CHECK((!now_there || now_there->start_time != e.start_time || now_there->ended()));
  }
}
