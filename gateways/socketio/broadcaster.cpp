#include "gateways/socketio/broadcaster.hpp"

#include <caf/all.hpp>
#include <utility>

#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/messages.hpp"
#include "protocol/socketio_codec.hpp"

namespace mixerd::socketio {

namespace {

namespace wire = mixerd::json;

// Tries the ids one after the other; the first valid one wins. An empty list still asks, so
// that a daemon with login off answers "allowed".
void check_next(caf::event_based_actor* self, const caf::actor& auth,
                std::shared_ptr<auth_query> query, std::size_t next) {
  std::string id = next < query->session_ids.size() ? query->session_ids[next] : std::string();
  self->request(auth, caf::infinite, auth_check{std::move(id)})
      .then(
          [self, auth, query, next](const auth_state& state) {
            if (state.authenticated) return query->done(true);
            if (next + 1 < query->session_ids.size())
              return check_next(self, auth, query, next + 1);
            query->done(false);
          },
          [query](caf::error&) { query->done(false); });
}

}  // namespace

bool is_browser_event(const event& e) {
  return !std::holds_alternative<serial_raw>(e) && !std::holds_alternative<device_input>(e);
}

nlohmann::json initial_state(const device_status& device, const mixer_snapshot& mix) {
  nlohmann::json page_names = nlohmann::json::object();
  nlohmann::json pages = nlohmann::json::object();
  for (int page = 0; page < limits::macro_page_count; ++page) {
    page_names[std::to_string(page)] = "Page " + std::to_string(page + 1);
    pages[std::to_string(page)] = nlohmann::json::array();
  }
  return {
      {"sliders", wire::sliders_to_json(mix)["sliders"]},
      {"mutes", wire::mutes_to_json(mix.mutes)},
      {"volume", mix.master_volume},
      {"macros", {{"current_page", 0}, {"page_names", page_names}, {"pages", pages}}},
      {"profiles", {{"profiles", nlohmann::json::array()}, {"current", ""}}},
      {"status", wire::status_to_json(device, mix.audio_connected)},
      {"connected", device.connected},
  };
}

caf::behavior sio_broadcaster(caf::event_based_actor* self, caf::actor hub, deliver_fn deliver) {
  self->send(hub, caf::subscribe_atom_v, caf::actor_cast<caf::actor>(self));
  return {
      [deliver = std::move(deliver)](const event& e) {
        if (!is_browser_event(e)) return;
        deliver(std::make_shared<const std::string>(
            sio::event_message(event_name(e), wire::event_payload(e))));
      },
  };
}

caf::behavior sio_queries(caf::event_based_actor* self, query_targets targets) {
  return {
      [self, targets](state_query& q) {
        auto query = std::make_shared<state_query>(std::move(q));
        auto failed = [query](caf::error&) { query->done(nullptr); };
        self->request(targets.device, caf::infinite, caf::get_atom_v, status_atom_v)
            .then(
                [self, targets, query, failed](const device_status& device) {
                  self->request(targets.mixer, caf::infinite, caf::get_atom_v)
                      .then(
                          [query, device](const mixer_snapshot& mix) {
                            auto state = initial_state(device, mix);
                            query->done(std::make_shared<const std::string>(
                                query->ack_id ? sio::ack_message(*query->ack_id,
                                                                 nlohmann::json::array({state}))
                                              : sio::event_message("initial_state", state)));
                          },
                          failed);
                },
                failed);
      },
      [self, targets](auth_query& q) {
        check_next(self, targets.auth, std::make_shared<auth_query>(std::move(q)), 0);
      },
  };
}

}  // namespace mixerd::socketio
