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

struct command_output {
  std::string text;       // standard output, at most max_bytes
  bool complete = false;  // the program closed its output within the time and size limits
};

// `program` is a path (no PATH search); `args` become argv[1...], `argv0` is argv[0].
// `done` is called once, on the io thread.
void run_command(boost::asio::io_context& io, std::string program, std::string argv0,
                 std::vector<std::string> args, std::chrono::milliseconds timeout,
                 std::size_t max_bytes, std::function<void(command_output)> done);

// The first executable regular file named `name` in the folders of `path_variable` (":"
// separated; empty entries, meaning the current folder, are skipped). "" when none.
std::string find_in_path(const std::string& name, const char* path_variable);

}  // namespace mixerd
