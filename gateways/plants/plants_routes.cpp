// The plant store listener (:8080) and its one route: DELETE /plants/{id} with a bearer token.
#include "gateways/plants/plants_listener.hpp"

#include "gateways/http/json_body.hpp"
#include "protocol/plants.hpp"
#include "protocol/uri.hpp"

namespace mixerd::plants_api {

namespace {

using http::plants_error;

http::response unauthorized(std::string_view message) {
  auto res = plants_error(401, message);
  res.headers.emplace_back("WWW-Authenticate", "Bearer");
  return res;
}

// The Authorization header; a request carrying it twice is malformed.
plants::bearer bearer_of(const http::request& req) {
  std::string_view value;
  int seen = 0;
  for (const auto& [name, v] : req.headers) {
    if (uri::iequals(name, "Authorization")) {
      value = v;
      ++seen;
    }
  }
  if (seen > 1) return {plants::bearer_problem::malformed, {}};
  return plants::parse_bearer(value);
}

void delete_plant(http::exchange& x) {
  auto credentials = bearer_of(x.req);
  if (credentials.problem != plants::bearer_problem::none)
    return x.respond(unauthorized(plants::bearer_message(credentials.problem)));
  // The token is the plant store actor's to compare (plant.delete hands it over).
  x.run("plant.delete", {{"id", x.segment(0)}}, std::move(credentials.token));
}

// The token is the plant store actor's to check (it owns it); the route itself is open.
const http::route_registration routes{http::listener_kind::plants,
                                      {{"DELETE", "/plants/{id}", false, delete_plant}}};

}  // namespace

http::listener_policy listener_policy() {
  http::listener_policy p;
  p.kind = http::listener_kind::plants;
  p.name = "plant store";
  p.errors = plants_error;
  // Its command checks the bearer token in the owner (plant.delete).
  p.grants = {commands::permission::plant_store_token};
  p.not_found = "No such endpoint: ";
  return p;
}

}  // namespace mixerd::plants_api
