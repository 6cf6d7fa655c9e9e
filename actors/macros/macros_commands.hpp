// The macros' commands (macros_commands.cpp), listed in its row.
#pragma once

#include <vector>

#include "actors/support/command_runner.hpp"

namespace mixerd {

std::vector<command> macros_commands();

}  // namespace mixerd
