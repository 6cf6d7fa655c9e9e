// Routes of the audio profiles: the list and the current name are answered from the profile
// actor's published view; loads, creates, saves, renames, deletes and reads of one profile ask
// the profile actor (it owns the folder). A {name} in a path is percent-encoded by the client;
// the router hands it decoded.
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/profiles.hpp"
#include "protocol/validation.hpp"

namespace mixerd::controller {

namespace {

using result = profile_outcome::result;

int status_of(result what) {
  switch (what) {
    case result::ok:
      return 200;
    case result::not_found:
      return 404;
    case result::exists:
    case result::is_current:
    case result::broken:
      return 409;
    case result::invalid:
      return 400;
    case result::failed:
      break;
  }
  return 500;
}

// Asks the profile actor; answers its body with `ok_status`, or its error.
template <class Request>
void ask_profiles(http::exchange& x, Request req, int ok_status = 200) {
  x.ask(
      x.dir.get<profiles_actor>(),
      [ok_status, respond = x.respond, errors = x.policy.errors](const profile_outcome& out) {
        if (out.what == result::ok) return respond(http::json_response(ok_status, out.body));
        respond(errors(status_of(out.what), out.error));
      },
      std::move(req));
}

// A name in a body: a string that profiles::name_problem accepts. Answers 400 otherwise.
std::optional<std::string> name_field(http::exchange& x, const nlohmann::json& body,
                                      const char* field) {
  std::string error;
  auto name = validation::string_field(body, field, profiles::max_name_bytes, error);
  if (name) error = profiles::name_problem(*name, field);
  if (!error.empty()) {
    x.respond(x.error(400, error));
    return std::nullopt;
  }
  return name;
}

// The {name} of the path: refused with 400 when no profile can have it.
std::optional<std::string> path_name(http::exchange& x) {
  const auto& name = x.segment(0);
  if (auto problem = profiles::name_problem(name); !problem.empty()) {
    x.respond(x.error(400, problem));
    return std::nullopt;
  }
  return name;
}

// An optional icon: a string of at most 64 bytes without control characters.
bool icon_field(http::exchange& x, const nlohmann::json& body, std::optional<std::string>& icon) {
  if (!body.contains("icon")) return true;
  std::string error;
  icon = validation::string_field(body, "icon", profiles::max_icon_bytes, error);
  if (icon && !validation::device_text(*icon, "icon", error)) icon.reset();
  if (!icon) x.respond(x.error(400, error));
  return icon.has_value();
}

template <class View>
void read_profiles(http::exchange& x, View view) {
  auto latest = x.dir.view<profiles_view>();
  if (!latest) return x.respond(x.error(503, "The profiles are not available"));
  reply(x, view(*latest));
}

void get_profiles(http::exchange& x) {
  read_profiles(x, [](const profiles_view& v) { return profiles::list_to_json(v); });
}

void get_current(http::exchange& x) {
  read_profiles(x, [](const profiles_view& v) { return nlohmann::json{{"name", v.current}}; });
}

void post_load(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  auto name = name_field(x, *body, "name");
  if (!name) return;
  ask_profiles(x, profile_load{std::move(*name)});
}

void get_profile(http::exchange& x) {
  auto name = path_name(x);
  if (!name) return;
  ask_profiles(x, profile_get{std::move(*name)});
}

void post_profile(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  auto name = name_field(x, *body, "name");
  if (!name) return;
  std::optional<std::string> icon;
  if (!icon_field(x, *body, icon)) return;
  ask_profiles(x, profile_create{std::move(*name), icon.value_or("")}, 201);
}

void put_profile(http::exchange& x) {
  auto name = path_name(x);
  if (!name) return;
  auto body = body_object(x, true);
  if (!body) return;
  profile_save req{std::move(*name), std::nullopt, std::nullopt};
  if (!icon_field(x, *body, req.icon)) return;
  if (body->contains("new_name")) {
    auto new_name = name_field(x, *body, "new_name");
    if (!new_name) return;
    req.new_name = std::move(*new_name);
  }
  ask_profiles(x, std::move(req));
}

void delete_profile(http::exchange& x) {
  auto name = path_name(x);
  if (!name) return;
  ask_profiles(x, profile_delete{std::move(*name)});
}

// The literal paths come before "/api/profiles/{name}": the first match wins (a profile named
// "current" is listed, saved and deleted by name, but GET /api/profiles/current is the name of
// the current profile).
const http::route_registration routes{http::listener_kind::controller,
                                      {
                                          {"GET", "/api/profiles", true, get_profiles},
                                          {"POST", "/api/profiles", true, post_profile},
                                          {"GET", "/api/profiles/current", true, get_current},
                                          {"POST", "/api/profiles/load", true, post_load},
                                          {"GET", "/api/profiles/{name}", true, get_profile},
                                          {"PUT", "/api/profiles/{name}", true, put_profile},
                                          {"DELETE", "/api/profiles/{name}", true, delete_profile},
                                      }};

}  // namespace

}  // namespace mixerd::controller
