// The plant store listener (:8080) and its one route: DELETE /plants/{id} with a bearer token.
#include "gateways/plants/plants_listener.hpp"

#include "gateways/http/json_body.hpp"
#include "protocol/plants.hpp"
#include "protocol/uri.hpp"

namespace mixerd::plants_api {

namespace {

using http::plant_store_error;
using result = plant_delete_outcome::result;

http::response unauthorized(std::string_view message) {
  auto res = plant_store_error(401, message);
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

http::response answer(const plant_delete_outcome& out, std::int64_t id) {
  switch (out.what) {
    case result::deleted: {
      http::response res;
      res.status = 204;
      res.content_type.clear();
      return res;
    }
    case result::unauthorized:
      return unauthorized("Invalid bearer token");
    case result::bad_id:
      break;
    case result::unknown_id:
      return plant_store_error(400, "No plant with id " + std::to_string(id));
    case result::unavailable:
      return plant_store_error(503, "Plant store unavailable: " + out.detail);
    case result::write_failed:
      return plant_store_error(
          500, "Could not save plants.json (" + out.detail + "); the plant was not deleted");
  }
  return plant_store_error(400, "Invalid plant id: it must be a 64-bit integer");
}

void delete_plant(http::exchange& x) {
  auto credentials = bearer_of(x.req);
  if (credentials.problem != plants::bearer_problem::none)
    return x.respond(unauthorized(plants::bearer_message(credentials.problem)));
  auto id = plants::parse_id(x.segment(0));
  x.ask(
      x.dir.get<plants_actor>(),
      [respond = x.respond, id = id.value_or(0)](const plant_delete_outcome& out) {
        respond(answer(out, id));
      },
      plant_delete{std::move(credentials.token), id});
}

// The token is the plant store actor's to check (it owns it); the route itself is open.
const http::route_registration routes{http::listener_kind::plant_store,
                                      {{"DELETE", "/plants/{id}", false, delete_plant}}};

}  // namespace

http::listener_policy listener_policy() {
  http::listener_policy p;
  p.kind = http::listener_kind::plant_store;
  p.name = "plant store";
  p.errors = plant_store_error;
  p.not_found = "No such endpoint: ";
  return p;
}

}  // namespace mixerd::plants_api
