// One plugin process (protocol/README.md, "Plugins"): /usr/bin/python3 started with
// posix_spawn in its own session (and process group), its working folder the plugin's folder,
// three pipes. What it leaves running ends with it (plugin_leftovers.hpp). All
// of its I/O runs on the plugin I/O thread (plugin_io); the bridge actor never waits on it.
//
// Messages sent to `owner`, each with the plugin's id and the generation the owner gave, so that
// the late messages of a process it has given up are recognised and dropped:
//   plugin_output{id, gen, line}   one line of standard output (at most plugins::max_line_bytes)
//   plugin_ended{id, gen, reason}  the process is gone and reaped, and nothing it left runs;
//                                  sent exactly once, last
// Standard error goes into the daemon log as "plugin <id>: <line>".
#pragma once

#include <caf/actor.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace boost::asio {
class io_context;
}

namespace mixerd {

// The thread that runs every plugin process's I/O. Its own io_context, not the daemon's: the
// daemon stops its io thread before the actors stop, and a plugin's on_unload at daemon stop
// still needs its pipes (then the 2 s grace and the kill). Started with the first plugin process;
// it makes the daemon a child subreaper and reaps the orphans that brings it, every second.
class plugin_io {
 public:
  plugin_io();
  ~plugin_io();  // stops the thread; processes still running are killed and reaped
  plugin_io(const plugin_io&) = delete;
  plugin_io& operator=(const plugin_io&) = delete;
  boost::asio::io_context& context();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

struct plugin_process_spec {
  std::string id;  // the plugin's id: in reports and log lines
  std::uint64_t gen = 0;
  std::string folder;   // working folder
  std::string sdk_dir;  // PYTHONPATH
  std::string program = "/usr/bin/python3";
  std::vector<std::string> args = {"-s", "-B", "-m", "mixerd.runner"};
  caf::actor owner;
};

class plugin_process {
 public:
  virtual ~plugin_process() = default;
  // Queues one line (without '\n') for standard input (any thread). A plugin that lets more
  // than max_queued_bytes wait is killed ("does not read its input").
  virtual void send(std::string line) = 0;
  // Closes standard input once the queued lines are written (any thread).
  virtual void close_input() = 0;
  // Kills the process group (SIGKILL), then what it left running; `reason` becomes
  // plugin_ended's (any thread).
  virtual void kill(std::string reason) = 0;
};

inline constexpr std::size_t max_queued_bytes = 8 * 1024 * 1024;
// A plugin that writes more lines than this within one second is killed on the I/O thread
// already (the bridge's own rule, 200 calls a second, is finer; this bounds its mailbox).
inline constexpr int max_output_lines_per_second = 2000;
// Standard error lines logged per second and plugin; the rest are counted and the count logged.
inline constexpr int max_log_lines_per_second = 100;

// Starts the process on the I/O thread and returns at once; a failed start is a plugin_ended.
std::shared_ptr<plugin_process> start_plugin_process(plugin_io& io, plugin_process_spec spec);

// The environment of a plugin process (protocol/README.md): PATH, HOME and LANG of the daemon,
// PYTHONPATH = sdk_dir, PYTHONUNBUFFERED=1, PYTHONDONTWRITEBYTECODE=1, MIXERD_PLUGIN_ID=<id>.
std::vector<std::string> plugin_environment(const std::string& sdk_dir, const std::string& id);

}  // namespace mixerd
