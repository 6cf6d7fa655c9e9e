#include "actors/support/process_table.hpp"

#include <doctest/doctest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "actors/support/child_processes.hpp"

extern char** environ;

using mixerd::parse_proc_stat;

TEST_CASE("a /proc stat line is read after the command name's last parenthesis") {
  auto e = parse_proc_stat(
      "4242 (we (ird) na me) Z 17 4242 4240 0 -1 4194564 9 0 0 0 0 0 0 0 20 0 1 0 123456 0 0");
  REQUIRE(e);
  CHECK(e->pid == 4242);
  CHECK(e->state == 'Z');
  CHECK(e->ended());
  CHECK(e->ppid == 17);
  CHECK(e->pgid == 4242);
  CHECK(e->sid == 4240);
  CHECK(e->start_time == 123456);
  CHECK_FALSE(parse_proc_stat(""));
  CHECK_FALSE(parse_proc_stat("12 (x) S 1 2"));
  CHECK_FALSE(parse_proc_stat("12 x S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19"));
  CHECK_FALSE(parse_proc_stat("-3 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19"));
}

TEST_CASE("this process, as /proc shows it") {
  auto self = mixerd::read_process(::getpid());
  REQUIRE(self);
  CHECK(self->ppid == ::getppid());
  CHECK(self->sid == ::getsid(0));
  CHECK(self->pgid == ::getpgrp());
  CHECK_FALSE(self->ended());
  bool listed = false;
  for (const auto& e : mixerd::read_process_table())
    listed = listed || (e.pid == self->pid && e.start_time == self->start_time);
  CHECK(listed);
}

TEST_CASE("the orphan reaping leaves a registered child to its starter") {
  char* argv[] = {const_cast<char*>("false"), nullptr};
  pid_t registered = 0;
  REQUIRE(mixerd::spawn_registered_child(registered, [&](pid_t* out) {
            return ::posix_spawn(out, "/bin/false", nullptr, nullptr, argv, environ);
          }) == 0);
  pid_t unregistered = 0;
  REQUIRE(::posix_spawn(&unregistered, "/bin/false", nullptr, nullptr, argv, environ) == 0);
  // Both have exited once both are zombies.
  for (int i = 0; i < 500; ++i) {
    auto a = mixerd::read_process(registered);
    auto b = mixerd::read_process(unregistered);
    if (a && a->ended() && b && b->ended()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(mixerd::reap_adopted_orphans() >= 1);
  CHECK_FALSE(mixerd::read_process(unregistered));  // reaped: gone from /proc
  int status = 0;
  REQUIRE(::waitpid(registered, &status, 0) == registered);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  mixerd::forget_child(registered);
}
