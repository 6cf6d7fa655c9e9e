// The notification interface's route table (interfaces.md section B). This issue serves the
// health check; sending toasts, handlers, status, network and key rotation come with the
// notification issue.
#pragma once

#include <cstdint>
#include <functional>

#include "gateways/http/server.hpp"

namespace mixerd {

// `port` reports the listener's bound port (known only after binding when port 0 was asked).
http::handler notification_routes(std::function<std::uint16_t()> port);

}  // namespace mixerd
