// The sample plant store's route table (interfaces.md section A). The delete operation comes
// with the plant-store issue; until then every path answers 404 in the store's error style.
#pragma once

#include "gateways/http/server.hpp"

namespace mixerd {

http::handler plant_store_routes();

}  // namespace mixerd
