// Routes of the audio server: the applications playing now.
#include <cmath>

#include "gateways/controller/controller_listener.hpp"
#include "protocol/audio.hpp"

namespace mixerd::controller {

namespace {

void get_audio_sessions(http::exchange& x) {
  auto view = x.dir.view<audio_view>();
  auto list = nlohmann::json::array();
  if (view)
    for (const auto& s : view->sessions)
      list.push_back(
          {{"name", s.name},
           {"displayName", s.display_name},
           {"binary", s.who.binary},
           {"applicationName", s.who.name},
           {"applicationId", s.who.id},
           {"flatpakId", s.who.flatpak_id},
           {"streams", s.streams},
           {"slider", s.slider < 0 ? nlohmann::json(nullptr) : nlohmann::json(s.slider + 1)},
           {"volume", s.volume < 0 ? nlohmann::json(nullptr)
                                   : nlohmann::json(std::round(s.volume * 10) / 10)},
           {"muted", s.muted}});
  auto options =
      nlohmann::json::array({{{"name", "system_default_output"}, {"displayName", "System output"}},
                             {{"name", "system_default_input"}, {"displayName", "Microphone"}}});
  reply(x, {{"sessions", std::move(list)}, {"systemOptions", std::move(options)}});
}

const http::route_registration routes{http::listener_kind::controller,
                                      {{"GET", "/api/audio/sessions", true, get_audio_sessions}}};

}  // namespace

}  // namespace mixerd::controller
