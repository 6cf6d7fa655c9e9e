// The daemon's life: data folder and pid file, settings load, actor system, the simulated
// device, the three listeners, signals, and an orderly stop.
#pragma once

#include "tools/mixerd/command_line.hpp"

namespace mixerd {

// Runs until SIGINT/SIGTERM. Returns the process exit code (docs/api.md, "Exit codes").
int run_daemon(const cli::options& opts);

}  // namespace mixerd
