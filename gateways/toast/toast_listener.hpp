// The notification listener (:8889): its policy (every request counts toward the per-address
// rate limit, then the API key is checked where the route needs one) and what its routes share.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "gateways/http/router.hpp"

namespace mixerd::toast_api {

struct listener_facts {
  std::string bind_address;
  bool tls = false;
  // The bound port, known once the listener is up.
  std::shared_ptr<const std::uint16_t> port;
};

http::listener_policy listener_policy(listener_facts facts);
// The facts of the listener serving `x` (bind address, port, tls).
const listener_facts& facts_of(const http::exchange& x);

std::optional<nlohmann::json> body_object(http::exchange& x);

}  // namespace mixerd::toast_api
