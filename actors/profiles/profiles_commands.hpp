// The profiles' commands (profiles_commands.cpp), listed in its row.
#pragma once

#include <vector>

#include "actors/support/command_runner.hpp"

namespace mixerd {

std::vector<command> profiles_commands();

}  // namespace mixerd
