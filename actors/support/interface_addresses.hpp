// The addresses of this machine's interfaces that are up (getifaddrs): what the network
// capability reports and what outgoing requests must not reach unasked (protocol/http_targets.hpp).
#pragma once

#include <vector>

#include "protocol/network.hpp"

namespace mixerd {

std::vector<interface_address> read_interface_addresses();

}  // namespace mixerd
