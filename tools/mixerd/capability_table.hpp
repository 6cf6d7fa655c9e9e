// The daemon's capabilities, in spawn order (capability_table.cpp).
#pragma once

#include <vector>

#include "actors/support/capability.hpp"

namespace mixerd {

const std::vector<const capability*>& capability_table();

}  // namespace mixerd
