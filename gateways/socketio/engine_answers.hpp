// Private to the engine: the stateless pieces of its wire answers (Engine.IO error bodies, poll
// answers, the ping packet). The sessions are in engine.cpp.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gateways/http/server.hpp"

namespace mixerd::socketio::detail {

using headers = std::vector<std::pair<std::string, std::string>>;

// 400 with the reference server's {"code": n, "message": ...} body.
http::response error_response(int code, headers cors);
// 403 {"code": 4, "message": <message>}: the reference's answer to a handshake that its
// allowRequest refuses with that message.
http::response forbidden_response(std::string_view message, headers cors);
// A poll or POST answer; never cached (a cached poll answer would replay old packets).
http::response text_response(std::string body, headers cors,
                             std::string type = "text/plain; charset=UTF-8");
// The server's ping, `2`, shared by every session.
const std::shared_ptr<const std::string>& ping_packet();

}  // namespace mixerd::socketio::detail
