#include "actors/plants/plants_actor.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <caf/all.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "actors/support/log.hpp"
#include "actors/support/settings_file.hpp"
#include "protocol/plants.hpp"
#include "protocol/secret.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "plants";
using self_ptr = plants_actor::stateful_pointer<plants_state>;
using outcome = plant_delete_outcome;

std::string token_from(const nlohmann::json& settings) {
  auto it = settings.find("plant_store_token");
  return it != settings.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Loads plants.json into the state, the way it is done at start: a missing file gets the
// sample plants; a broken one leaves the store unavailable and the file untouched.
void load(self_ptr self) {
  auto& st = self->state;
  // Only this actor writes plants.json: a temporary file next to it is a write a kill cut short.
  settings_file::remove_leftover_temporaries(st.path);
  std::string text;
  std::string error;
  switch (settings_file::read_bounded(st.path, plants::max_file_bytes + 1, text, error)) {
    case settings_file::read_status::missing: {
      st.plants = plants::sample_plants();
      st.broken.clear();
      if (auto ec = settings_file::write_atomically(st.path, plants::serialize(st.plants)))
        log::error(component, "cannot write the sample plants to ", st.path, ": ", ec.message());
      else
        log::info(component, "wrote ", st.plants.size(), " sample plants to ", st.path);
      return;
    }
    case settings_file::read_status::failed:
      break;
    case settings_file::read_status::ok: {
      auto parsed = plants::parse_plants(text);
      if (parsed.ok()) {
        st.plants = std::move(parsed.list);
        st.broken.clear();
        log::info(component, st.plants.size(), " plants in ", st.path);
        return;
      }
      error = std::move(parsed.error);
      break;
    }
  }
  st.plants = nlohmann::json::array();
  st.broken = std::move(error);
  log::error(component, st.path, ": ", st.broken,
             "; the plant store answers 503 and leaves the file untouched until it is fixed "
             "(then SIGHUP or restart)");
}

outcome delete_plant(self_ptr self, const plant_delete& req) {
  auto& st = self->state;
  if (!secret::constant_time_equal(req.token, st.token)) return {outcome::result::unauthorized, {}};
  if (!req.id) return {outcome::result::bad_id, {}};
  if (!st.broken.empty()) return {outcome::result::unavailable, "plants.json: " + st.broken};
  auto pos = plants::find(st.plants, *req.id);
  if (!pos) return {outcome::result::unknown_id, {}};
  auto at = st.plants.begin() + static_cast<std::ptrdiff_t>(*pos);
  nlohmann::json removed = std::move(*at);
  st.plants.erase(at);
  if (auto ec = settings_file::write_atomically(st.path, plants::serialize(st.plants))) {
    // Nothing changed on disk: the plant stays.
    st.plants.insert(st.plants.begin() + static_cast<std::ptrdiff_t>(*pos), std::move(removed));
    log::error(component, "cannot write ", st.path, ": ", ec.message());
    return {outcome::result::write_failed, ec.message()};
  }
  log::info(component, "deleted plant ", *req.id, " (", removed["name"].get<std::string>(), ")");
  return {outcome::result::deleted, {}};
}

}  // namespace

plants_actor::behavior_type plants_behavior(plants_actor::stateful_pointer<plants_state> self,
                                            std::string path, settings_actor settings,
                                            nlohmann::json initial_settings) {
  self->state.path = std::move(path);
  self->state.token = token_from(initial_settings);
  load(self);
  if (settings) self->send(settings, watch_atom_v, caf::actor_cast<caf::actor>(self));
  return {
      [self](const plant_delete& req) { return delete_plant(self, req); },
      [self](const settings_reloaded& reloaded) {
        self->state.token = token_from(reloaded.settings);
        load(self);
      },
  };
}

}  // namespace mixerd
