// The toast capability's commands (toast_commands.cpp), listed in its row.
#pragma once

#include <vector>

#include "actors/support/command_runner.hpp"

namespace mixerd {

std::vector<command> toast_commands();

}  // namespace mixerd
