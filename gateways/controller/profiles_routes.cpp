// Routes of the audio profiles: the list and the current name are answered from the profile
// actor's published view; a read of one profile asks the profile actor (it owns the folder);
// loads, creates, saves, renames and deletes run the profiles' commands
// (actors/profiles/profiles_commands.cpp). A {name} in a path is percent-encoded by the client;
// the router hands it decoded.
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/profiles.hpp"
#include "protocol/validation.hpp"

namespace mixerd::controller {

namespace {

using result = profile_outcome::result;

// The {name} of the path: refused with 400 when no profile can have it.
std::string path_name_problem(std::string_view name) {
  return profiles::name_problem(name);
}

std::optional<std::string> path_name(http::exchange& x) {
  const auto& name = x.segment(0);
  if (auto problem = path_name_problem(name); !problem.empty()) {
    x.respond(x.error(400, problem));
    return std::nullopt;
  }
  return name;
}

// A command route on /api/profiles/{name}, whose name is checked before the body is read.
http::route named(std::string_view method, std::string_view command, http::body_use body) {
  auto r = http::command_route(method, "/api/profiles/{name}", command, body);
  r.path_check = path_name_problem;
  return r;
}

template <class View>
void read_profiles(http::exchange& x, View view) {
  auto latest = x.dir.view<profiles_view>();
  if (!latest) return x.respond(x.error(503, "The profiles are not available"));
  reply(x, view(*latest));
}

void get_profiles(http::exchange& x) {
  read_profiles(x, [](const profiles_view& v) { return profiles::to_json(v); });
}

void get_current(http::exchange& x) {
  read_profiles(x, [](const profiles_view& v) { return nlohmann::json{{"name", v.current}}; });
}

// A read, but from the folder: the profile actor owns it (and lists again what it finds).
void get_profile(http::exchange& x) {
  auto name = path_name(x);
  if (!name) return;
  x.ask(
      x.dir.get<profiles_actor>(),
      [respond = x.respond, errors = x.policy.errors](const profile_outcome& out) {
        if (out.what == result::ok) return respond(http::json_response(200, out.body));
        respond(errors(profiles::status_of(out.what), out.error));
      },
      profile_get{std::move(*name)});
}

// The literal paths come before "/api/profiles/{name}": the first match wins (a profile named
// "current" is listed, saved and deleted by name, but GET /api/profiles/current is the name of
// the current profile).
const http::route_registration routes{
    http::listener_kind::controller,
    {
        {"GET", "/api/profiles", true, get_profiles},
        http::command_route("POST", "/api/profiles", "profile.create"),
        {"GET", "/api/profiles/current", true, get_current},
        http::command_route("POST", "/api/profiles/load", "profile.load"),
        {"GET", "/api/profiles/{name}", true, get_profile},
        named("PUT", "profile.save", http::body_use::object_or_empty),
        named("PATCH", "profile.edit", http::body_use::object),
        named("DELETE", "profile.delete", http::body_use::none),
    }};

}  // namespace

}  // namespace mixerd::controller
