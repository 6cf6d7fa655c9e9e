#include "gateways/controller/controller_gateway.hpp"

#include <caf/all.hpp>

#include "actors/log.hpp"
#include "gateways/http/call.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/json.hpp"
#include "protocol/messages.hpp"

namespace mixerd {

namespace {

using http::controller_error;
using http::json_response;

// Reads of the mixer: each GET route maps a snapshot to its JSON shape.
using snapshot_view = nlohmann::json (*)(const mixer_snapshot&);

struct read_route {
  std::string_view path;
  snapshot_view view;
};

constexpr read_route mixer_reads[] = {
    {"/api/sliders", [](const mixer_snapshot& m) { return json::sliders_to_json(m); }},
    {"/api/mutes", [](const mixer_snapshot& m) { return json::mutes_to_json(m.mutes); }},
    {"/api/volume/master",
     [](const mixer_snapshot& m) { return json::volume_to_json(m.master_volume); }},
};

auto unavailable(http::responder respond) {
  return [respond = std::move(respond)](caf::error&) {
    respond(controller_error(503, "The daemon is shutting down"));
  };
}

void get_status(caf::event_based_actor* self, const controller_targets& t,
                http::responder respond) {
  self->request(t.device, caf::infinite, caf::get_atom_v, status_atom_v)
      .then(
          [self, mixer = t.mixer, respond](const device_status& status) {
            self->request(mixer, caf::infinite, caf::get_atom_v)
                .then(
                    [respond, status](const mixer_snapshot& m) {
                      respond(json_response(200, json::status_to_json(status, m.audio_connected)));
                    },
                    unavailable(respond));
          },
          unavailable(respond));
}

void route(caf::event_based_actor* self, const controller_targets& t, http::call& c) {
  const auto& path = c.req.path;
  const bool get = c.req.method == "GET" || c.req.method == "HEAD";
  auto not_allowed = [&](std::string_view allow) {
    auto r = controller_error(405, "Method " + c.req.method + " is not allowed on " + path);
    r.headers.emplace_back("Allow", allow);
    c.respond(std::move(r));
  };
  if (path == "/api/status") {
    if (!get) return not_allowed("GET");
    return get_status(self, t, std::move(c.respond));
  }
  for (const auto& r : mixer_reads) {
    if (path != r.path) continue;
    if (!get) return not_allowed("GET");
    self->request(t.mixer, caf::infinite, caf::get_atom_v)
        .then([view = r.view, respond = c.respond](
                  const mixer_snapshot& m) { respond(json_response(200, view(m))); },
              unavailable(c.respond));
    return;
  }
  c.respond(controller_error(404, "Not found: " + path));
}

}  // namespace

caf::behavior controller_gateway(caf::event_based_actor* self, controller_targets targets) {
  return {
      [self, targets](http::call& c) {
        // An exception would end this actor and with it the whole controller: answer 500.
        auto respond = c.respond;
        try {
          route(self, targets, c);
        } catch (const std::exception& e) {
          log::error("controller", "request ", c.req.method, " ", c.req.target,
                     " failed: ", e.what());
          respond(controller_error(500, "Internal error"));
        }
      },
  };
}

http::handler forward_to(caf::actor gateway) {
  return [gateway](http::request&& req, http::responder respond) {
    caf::anon_send(gateway, http::call{std::move(req), std::move(respond)});
  };
}

}  // namespace mixerd
