#include "gateways/plants/plants_gateway.hpp"

#include <algorithm>
#include <caf/all.hpp>
#include <string>
#include <string_view>

#include "actors/log.hpp"
#include "gateways/http/call.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/messages.hpp"
#include "protocol/plants.hpp"

namespace mixerd {

namespace {

using http::plant_store_error;
using result = plant_delete_outcome::result;

constexpr std::string_view prefix = "/plants/";

http::response unauthorized(std::string_view message) {
  auto res = plant_store_error(401, message);
  res.headers.emplace_back("WWW-Authenticate", "Bearer");
  return res;
}

// The Authorization header; a request carrying it twice is malformed.
plants::bearer bearer_of(const http::request& req) {
  std::string_view value;
  int seen = 0;
  constexpr std::string_view wanted = "authorization";
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (const auto& [name, v] : req.headers) {
    if (name.size() == wanted.size() && std::equal(name.begin(), name.end(), wanted.begin(),
                                                   [&](char a, char b) { return lower(a) == b; })) {
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

void dispatch(caf::event_based_actor* self, const caf::actor& store, http::call& c) {
  const auto& req = c.req;
  std::string_view path = req.path;
  if (path.substr(0, prefix.size()) != prefix ||
      path.find('/', prefix.size()) != std::string_view::npos)
    return c.respond(plant_store_error(404, "No such endpoint: " + req.path));
  if (req.method != "DELETE") {
    auto res = plant_store_error(405, "Method " + req.method + " is not allowed on " + req.path);
    res.headers.emplace_back("Allow", "DELETE");
    return c.respond(std::move(res));
  }
  auto credentials = bearer_of(req);
  if (credentials.problem != plants::bearer_problem::none)
    return c.respond(unauthorized(plants::bearer_message(credentials.problem)));
  auto id = plants::parse_id(path.substr(prefix.size()));
  auto respond = c.respond;
  self->request(store, caf::infinite, plant_delete{std::move(credentials.token), id})
      .then([respond,
             id = id.value_or(0)](const plant_delete_outcome& out) { respond(answer(out, id)); },
            [respond](caf::error&) {
              respond(plant_store_error(503, "Plant store unavailable: mixerd is stopping"));
            });
}

}  // namespace

caf::behavior plants_gateway(caf::event_based_actor* self, caf::actor store) {
  return http::guarded_gateway("plants", plant_store_error,
                               [self, store](http::call& c) { dispatch(self, store, c); });
}

}  // namespace mixerd
