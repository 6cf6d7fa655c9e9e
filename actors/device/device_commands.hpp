// The device's commands (device_commands.cpp), listed in its row.
#pragma once

#include <vector>

#include "actors/support/command_runner.hpp"

namespace mixerd {

std::vector<command> device_commands();

}  // namespace mixerd
