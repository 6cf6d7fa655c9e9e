// Internal to the controller gateway: one request on its way through a route.
#pragma once

#include <caf/error.hpp>
#include <caf/event_based_actor.hpp>
#include <functional>
#include <string>
#include <vector>

#include "gateways/controller/controller_gateway.hpp"
#include "gateways/http/server.hpp"

namespace mixerd::controller {

struct route_call {
  caf::event_based_actor* self;
  const controller_targets& targets;
  http::request& req;
  http::responder respond;  // already wraps CORS headers
  std::vector<int> params;  // integer path parameters, e.g. the slider index (1-based)
  std::string session_id;   // from the cookie, when the origin may use credentials
};

// Each answers exactly once through call.respond.
void get_status(route_call& call);
void get_sliders(route_call& call);
void post_slider(route_call& call);
void get_assignment(route_call& call);
void post_assignment(route_call& call);
void get_audio_sessions(route_call& call);
void get_mutes(route_call& call);
void post_mute(route_call& call);
void post_master_mute(route_call& call);
void get_master_volume(route_call& call);
void post_master_volume(route_call& call);

void get_auth_status(route_call& call);
void post_login(route_call& call);
void post_logout(route_call& call);

// The error handler of a request to an actor: an actor that is gone means the daemon stops.
std::function<void(caf::error&)> unavailable(http::responder respond);

// Name of the session cookie (interfaces.md).
inline constexpr std::string_view session_cookie = "controller_session";
std::string cookie_value(const http::request& req, std::string_view name);

}  // namespace mixerd::controller
