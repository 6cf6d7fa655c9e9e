// The plugin host's commands (plugins_commands.cpp), listed in its row.
#pragma once

#include <vector>

#include "actors/support/command_runner.hpp"

namespace mixerd {

std::vector<command> plugins_commands();

}  // namespace mixerd
