// The plant store's command: delete a plant. The caller's bearer token goes to the plant store
// actor, which owns the token and compares it before it looks at the id.
#include "actors/plants/plants_commands.hpp"

#include "protocol/plants.hpp"

namespace mixerd {

namespace {

using result = plant_delete_outcome::result;

command_result unauthorized(std::string message) {
  auto r = command_result::failure(401, std::move(message));
  r.headers.emplace_back("WWW-Authenticate", "Bearer");
  return r;
}

void remove(const command_call_ptr& call) {
  const auto id = plants::parse_id(call->text("id"));
  call->ask(call->dir().get<plants_actor>(), plant_delete{call->origin().credential, id},
            [number = id.value_or(0)](const command_call_ptr& c, const plant_delete_outcome& out) {
              switch (out.what) {
                case result::deleted:
                  return c->ok(nullptr, 204);
                case result::unauthorized:
                  return c->done(unauthorized("Invalid bearer token"));
                case result::bad_id:
                  break;
                case result::unknown_id:
                  return c->fail(400, "No plant with id " + std::to_string(number));
                case result::unavailable:
                  return c->fail(503, "Plant store unavailable: " + out.detail);
                case result::write_failed:
                  return c->fail(500, "Could not save plants.json (" + out.detail +
                                          "); the plant was not deleted");
              }
              c->fail(400, "Invalid plant id: it must be a 64-bit integer");
            });
}

}  // namespace

std::vector<command> plants_commands() {
  return {
      {"plant.delete",
       "Deletes a plant of the plant store (the caller's bearer token is checked)",
       {commands::text("id", 0, "The plant's id, a 64-bit integer")},
       commands::permission::plant_store_token,
       "Plant store unavailable",
       remove},
  };
}

}  // namespace mixerd
