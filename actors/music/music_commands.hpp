// The music capability's commands (music_commands.cpp), listed in its row.
#pragma once

#include <vector>

#include "actors/support/command_runner.hpp"

namespace mixerd {

std::vector<command> music_commands();

}  // namespace mixerd
