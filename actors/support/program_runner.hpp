// Runs a program without a shell and collects its standard output on the io thread, for a
// bounded time and size: the network actor never waits on a child process. The child gets
// /dev/null as stdin and stderr, default signal handling and an empty signal mask; it is killed
// when it runs past `timeout` or prints more than `max_bytes`, and is always reaped.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace boost::asio {
class io_context;
}

namespace mixerd {

struct program_output {
  std::string text;       // standard output, at most max_bytes
  bool complete = false;  // the program closed its output within the time and size limits
  // With program_spec::wait_for_exit, how the program ended (else unknown: -1 and 0).
  int exit_code = -1;        // its exit status when it exited by itself
  int exit_signal = 0;       // the signal that ended it (not one of ours)
  bool timed_out = false;    // killed at the time limit
  bool not_started = false;  // posix_spawn failed (no such program, not executable, ...)
};

struct program_spec {
  std::string program;            // a path (no PATH search)
  std::string argv0;              // argv[0]
  std::vector<std::string> args;  // argv[1...]
  std::chrono::milliseconds timeout{0};
  std::size_t max_bytes = 0;
  bool with_stderr = false;  // standard error goes into the same output (else /dev/null)
  // `done` comes once the program has exited (or was killed at the time limit), and the output
  // tells how it ended; without it, `done` comes when the output closes and a program that
  // lingers after that is killed 200 ms later.
  bool wait_for_exit = false;
};

// `done` is called once, on the io thread.
void run_program(boost::asio::io_context& io, program_spec spec,
                 std::function<void(program_output)> done);
// The same, with standard output only and without waiting for the exit.
void run_program(boost::asio::io_context& io, std::string program, std::string argv0,
                 std::vector<std::string> args, std::chrono::milliseconds timeout,
                 std::size_t max_bytes, std::function<void(program_output)> done);

// The first executable regular file named `name` in the folders of `path_variable` (":"
// separated; empty entries, meaning the current folder, are skipped). "" when none.
std::string find_in_path(const std::string& name, const char* path_variable);

}  // namespace mixerd
