// The subcommands `mixerd set-password USER` and `mixerd api-key`. They change
// settings.json the way the daemon does (under the writers' lock, atomically) and tell a
// running daemon to re-read it with SIGHUP.
#pragma once

#include "tools/mixerd/command_line.hpp"

namespace mixerd::subcommands {

int set_password(const cli::options& opts);
int api_key(const cli::options& opts);

}  // namespace mixerd::subcommands
