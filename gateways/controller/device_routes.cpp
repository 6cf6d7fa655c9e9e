// Routes of the device link: the status of the device and of the audio server.
#include "gateways/controller/controller_listener.hpp"
#include "protocol/audio.hpp"
#include "protocol/device.hpp"
#include "protocol/json.hpp"

namespace mixerd::controller {

namespace {

void get_status(http::exchange& x) {
  auto device = x.dir.view<device_view>();
  auto audio = x.dir.view<audio_view>();
  reply(x, json::status_to_json(device ? *device : device_view{}, audio && audio->connected));
}

const http::route_registration routes{http::listener_kind::controller,
                                      {{"GET", "/api/status", true, get_status}}};

}  // namespace

}  // namespace mixerd::controller
