#include "actors/support/program_runner.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <chrono>
#include <future>

#include "tests/unit/support/files.hpp"
#include "tests/unit/support/io_thread.hpp"

using mixerd::program_output;
using namespace std::chrono_literals;

namespace {

// Runs commands on an io thread like the daemon's.
struct command_thread : mixerd::test::io_thread {
  program_output run(std::string program, std::vector<std::string> args,
                     std::chrono::milliseconds timeout = 2000ms, std::size_t max_bytes = 1024) {
    std::promise<program_output> result;
    auto future = result.get_future();
    mixerd::run_program(io, program, program, std::move(args), timeout, max_bytes,
                        [&result](program_output out) { result.set_value(std::move(out)); });
    REQUIRE(future.wait_for(10s) == std::future_status::ready);
    return future.get();
  }
};

}  // namespace

TEST_CASE("a command's standard output is collected, without a shell") {
  command_thread t;
  auto out = t.run("/bin/echo", {"status", "--json", "$HOME", "a;b"});
  CHECK(out.complete);
  CHECK(out.text == "status --json $HOME a;b\n");
}

TEST_CASE("stderr is not collected and stdin is empty") {
  command_thread t;
  auto out = t.run("/bin/sh", {"-c", "echo out; echo err >&2; cat"});
  CHECK(out.complete);
  CHECK(out.text == "out\n");
}

TEST_CASE("a command that runs too long is cut off in time") {
  command_thread t;
  auto start = std::chrono::steady_clock::now();
  auto out = t.run("/bin/sh", {"-c", "echo partial; exec sleep 30"}, 300ms);
  CHECK_FALSE(out.complete);
  CHECK(std::chrono::steady_clock::now() - start < 5s);
}

TEST_CASE("output beyond the limit stops the command") {
  command_thread t;
  auto out = t.run("/bin/sh", {"-c", "while :; do echo 0123456789; done"}, 5000ms, 100);
  CHECK_FALSE(out.complete);
  CHECK(out.text.size() == 100);
}

TEST_CASE("a program that cannot start gives an incomplete, empty answer") {
  command_thread t;
  auto out = t.run("/nonexistent/tailscale", {"status"});
  CHECK_FALSE(out.complete);
  CHECK(out.text.empty());
}

TEST_CASE("find_in_path finds executables only, in PATH order") {
  mixerd::test::temp_dir a;
  mixerd::test::temp_dir b;
  mixerd::test::write_file(a.file("tool"), "not executable");
  mixerd::test::write_file(b.file("tool"), "#!/bin/sh\n");
  ::chmod(b.file("tool").c_str(), 0755);
  std::string path = a.path() + "::" + b.path();
  CHECK(mixerd::find_in_path("tool", path.c_str()) == b.file("tool"));
  CHECK(mixerd::find_in_path("missing", path.c_str()).empty());
  CHECK(mixerd::find_in_path("tool", nullptr).empty());
  CHECK(mixerd::find_in_path("../tool", path.c_str()).empty());
}

namespace {

program_output run_spec(mixerd::program_spec spec) {
  mixerd::test::io_thread io;
  std::promise<program_output> result;
  auto future = result.get_future();
  mixerd::run_program(io.io, std::move(spec),
                      [&result](program_output out) { result.set_value(std::move(out)); });
  REQUIRE(future.wait_for(10s) == std::future_status::ready);
  return future.get();
}

mixerd::program_spec waiting(std::string script, std::chrono::milliseconds timeout = 5000ms) {
  mixerd::program_spec spec;
  spec.program = "/bin/sh";
  spec.argv0 = "sh";
  spec.args = {"-c", std::move(script)};
  spec.timeout = timeout;
  spec.max_bytes = 1024;
  spec.with_stderr = true;
  spec.wait_for_exit = true;
  return spec;
}

}  // namespace

TEST_CASE("waiting for the exit reports the exit status, with stderr in the output") {
  auto out = run_spec(waiting("echo out; echo err >&2; exit 7"));
  CHECK(out.complete);
  CHECK(out.exit_code == 7);
  CHECK(out.text == "out\nerr\n");
  CHECK(run_spec(waiting("kill -TERM $$")).exit_signal == 15);
  auto missing = run_spec([] {
    auto spec = waiting("");
    spec.program = "/nonexistent/mixerd-program";
    return spec;
  }());
  CHECK(missing.not_started);
}

TEST_CASE("a program that closes its output runs on until it exits, within its time") {
  // Without wait_for_exit it would be killed 200 ms after closing its output.
  auto out = run_spec(waiting("exec >/dev/null 2>&1; sleep 0.5; exit 4"));
  CHECK(out.complete);
  CHECK(out.exit_code == 4);
  auto start = std::chrono::steady_clock::now();
  auto late = run_spec(waiting("exec >/dev/null 2>&1; exec sleep 30", 300ms));
  CHECK(late.timed_out);
  CHECK_FALSE(late.complete);
  CHECK(std::chrono::steady_clock::now() - start < 5s);
}
