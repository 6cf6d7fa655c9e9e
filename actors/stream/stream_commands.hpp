// The streaming software's commands (stream_commands.cpp), listed in its row.
#pragma once

#include <vector>

#include "actors/support/command_runner.hpp"

namespace mixerd {

std::vector<command> stream_commands();

}  // namespace mixerd
