// The plant store listener (:8080): no gate of its own (the actor checks the bearer token).
#pragma once

#include "gateways/http/router.hpp"

namespace mixerd::plants_api {

http::listener_policy listener_policy();

}  // namespace mixerd::plants_api
