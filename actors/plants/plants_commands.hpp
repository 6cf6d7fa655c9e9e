// The plant store's commands (plants_commands.cpp), listed in its row.
#pragma once

#include <vector>

#include "actors/support/command_runner.hpp"

namespace mixerd {

std::vector<command> plants_commands();

}  // namespace mixerd
