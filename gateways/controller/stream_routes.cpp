// Routes of the streaming software (OBS): the scene and source lists are answered from the
// stream actor's published view; switches run the streaming software's commands
// (actors/stream/stream_commands.cpp). Not connected:
// 400 {"error": "Streaming software not connected"} on every one (the interface's error table).
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/stream.hpp"

namespace mixerd::controller {

namespace {

constexpr std::string_view not_connected = "Streaming software not connected";

template <class Body>
void read_stream(http::exchange& x, Body body) {
  auto view = x.dir.view<stream_view>();
  if (!view || !view->connected) return x.respond(x.error(400, not_connected));
  reply(x, body(*view));
}

void get_scenes(http::exchange& x) {
  read_stream(x, stream::scenes_to_json);
}

void get_sources(http::exchange& x) {
  read_stream(x, stream::sources_to_json);
}

const http::route_registration routes{
    http::listener_kind::controller,
    {
        {"GET", "/api/stream/scenes", true, get_scenes},
        http::command_route("POST", "/api/stream/scene", "stream.scene"),
        {"GET", "/api/stream/sources", true, get_sources},
        http::command_route("POST", "/api/stream/source", "stream.source"),
    }};

}  // namespace

}  // namespace mixerd::controller
