// Routes of the streaming software (OBS): the scene and source lists are answered from the
// stream actor's published view; switches ask the stream actor, which asks OBS. Not connected:
// 400 {"error": "Streaming software not connected"} on every one (the interface's error table).
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/stream.hpp"
#include "protocol/validation.hpp"

namespace mixerd::controller {

namespace {

using result = stream_outcome::result;

constexpr std::string_view not_connected = "Streaming software not connected";

int status_of(result what) {
  switch (what) {
    case result::ok:
      return 200;
    case result::not_connected:
      return 400;
    case result::not_found:
      return 404;
    case result::busy:
      return 503;
    case result::failed:
      break;
  }
  return 502;
}

template <class Request>
void ask_stream(http::exchange& x, Request req) {
  x.ask(
      x.dir.get<stream_actor>(),
      [respond = x.respond, errors = x.policy.errors](const stream_outcome& out) {
        if (out.what == result::ok) return respond(http::json_response(200, out.body));
        respond(errors(status_of(out.what), out.error));
      },
      std::move(req));
}

template <class Body>
void read_stream(http::exchange& x, Body body) {
  auto view = x.dir.view<stream_view>();
  if (!view || !view->connected) return x.respond(x.error(400, not_connected));
  reply(x, body(*view));
}

std::optional<std::string> name_field(http::exchange& x, const nlohmann::json& body,
                                      const char* field) {
  std::string error;
  auto name = validation::string_field(body, field, stream::max_name_bytes, error);
  if (!name) x.respond(x.error(400, error));
  return name;
}

void get_scenes(http::exchange& x) {
  read_stream(x, stream::scenes_body);
}

void get_sources(http::exchange& x) {
  read_stream(x, stream::sources_body);
}

void post_scene(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  auto name = name_field(x, *body, "scene_name");
  if (!name) return;
  ask_stream(x, stream_scene_set{std::move(*name)});
}

void post_source(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  auto name = name_field(x, *body, "source_name");
  if (!name) return;
  auto visible = body->find("visible");
  if (visible == body->end()) return x.respond(x.error(400, "Missing field: visible"));
  if (!visible->is_boolean()) return x.respond(x.error(400, "visible must be true or false"));
  ask_stream(x, stream_source_set{std::move(*name), visible->get<bool>()});
}

const http::route_registration routes{http::listener_kind::controller,
                                      {
                                          {"GET", "/api/stream/scenes", true, get_scenes},
                                          {"POST", "/api/stream/scene", true, post_scene},
                                          {"GET", "/api/stream/sources", true, get_sources},
                                          {"POST", "/api/stream/source", true, post_source},
                                      }};

}  // namespace

}  // namespace mixerd::controller
