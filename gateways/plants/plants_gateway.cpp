#include "gateways/plants/plants_gateway.hpp"

#include "gateways/http/json_body.hpp"

namespace mixerd {

http::handler plant_store_routes() {
  return [](http::request&& req, http::responder respond) {
    respond(http::plant_store_error(404, "No such endpoint: " + req.path));
  };
}

}  // namespace mixerd
