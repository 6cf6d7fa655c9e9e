// The mixer's commands (mixer_commands.cpp), listed in its row.
#pragma once

#include <vector>

#include "actors/support/command_runner.hpp"

namespace mixerd {

std::vector<command> mixer_commands();

}  // namespace mixerd
