// The plant store's route table (interfaces.md section A, contract.md "Plant store"): a
// stateless actor that turns `DELETE /plants/{id}` into a plant_delete request to the plant
// store actor, and its outcome into 204 (empty body) or the store's error body
// {"error": <status>, "message": "..."}.
//
// Checked in this order: unknown path 404; another method on /plants/{id} 405 (Allow: DELETE);
// a missing, non-Bearer or malformed Authorization header 401 (WWW-Authenticate: Bearer); then
// the actor: wrong token 401, id not an int64 or unknown 400, broken plants.json 503, failed
// write 500.
#pragma once

#include <caf/actor.hpp>
#include <caf/event_based_actor.hpp>

namespace mixerd {

caf::behavior plants_gateway(caf::event_based_actor* self, caf::actor store);

}  // namespace mixerd
