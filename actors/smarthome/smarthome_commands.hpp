// The smart home's commands (smarthome_commands.cpp), listed in its row.
#pragma once

#include <vector>

#include "actors/support/command_runner.hpp"

namespace mixerd {

std::vector<command> smarthome_commands();

}  // namespace mixerd
