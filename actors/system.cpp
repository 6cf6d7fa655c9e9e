#include "actors/system.hpp"

#include <caf/all.hpp>

#include "actors/audio/audio_actor.hpp"
#include "actors/auth/auth_actor.hpp"
#include "actors/device/device_actor.hpp"
#include "actors/hub/hub_actor.hpp"
#include "actors/mixer/mixer_actor.hpp"
#include "actors/network/network_actor.hpp"
#include "actors/plants/plant_store_actor.hpp"
#include "actors/settings/settings_actor.hpp"
#include "actors/toast/toast_actor.hpp"
#include "protocol/limits.hpp"
#include "protocol/messages.hpp"

namespace mixerd {

void configure_actor_system(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::mixerd>();
  // One worker runs every cooperative actor. With two, nearly every message between the
  // gateways and the state actors woke the other worker (futex + context switch): one worker
  // served 36k instead of 25k GET /api/sliders per second on two cores. The actors that block
  // (fsync of settings.json and plants.json) run detached and the auth actor checks
  // passwords on a detached helper (PBKDF2), each on its own thread, so they never hold up slider
  // events.
  cfg.set("scheduler.policy", caf::atom("sharing"));
  cfg.set("scheduler.max-threads", 1);
}

actor_handles spawn_actors(caf::actor_system& sys, const actor_options& options) {
  actor_handles h;
  h.hub = sys.spawn(hub_actor, limits::hub_max_subscribers);
  h.settings = sys.spawn<caf::detached>(settings_actor, options.paths, options.settings);
  h.device = sys.spawn(device_actor, device_config{options.io, options.serial, h.hub});
  h.audio = sys.spawn(audio_actor, h.hub, mixer_from_settings(options.settings));
  h.mixer =
      sys.spawn(mixer_actor, mixer_wiring{h.device, h.hub, h.settings, h.audio}, options.settings);
  h.auth = sys.spawn(auth_actor, h.settings, options.settings);
  h.toast = sys.spawn(toast_actor, toast_wiring{h.device, h.hub, h.settings}, options.settings);
  h.network = sys.spawn(network_actor, network_config{options.io});
  h.plants = sys.spawn<caf::detached>(plant_store_actor, options.paths.data_dir + "/plants.json",
                                      h.settings, options.settings);
  return h;
}

void shutdown_actors(caf::actor_system& sys, const actor_handles& actors, const caf::actor& extra) {
  caf::scoped_actor self{sys};
  // Producers first: once they are gone, every change they made is already queued at the
  // settings actor, ahead of the flush below.
  for (const auto& a :
       {extra, actors.device, actors.mixer, actors.audio, actors.auth, actors.plants})
    self->send_exit(a, caf::exit_reason::user_shutdown);
  for (const auto& a : {actors.toast, actors.network})
    self->send_exit(a, caf::exit_reason::user_shutdown);
  self->wait_for(extra, actors.device, actors.mixer, actors.audio, actors.auth, actors.plants);
  self->wait_for(actors.toast, actors.network);
  self->request(actors.settings, caf::infinite, caf::flush_atom_v)
      .receive([](bool) {}, [](caf::error&) {});
  for (const auto& a : {actors.settings, actors.hub})
    self->send_exit(a, caf::exit_reason::user_shutdown);
  self->wait_for(actors.settings, actors.hub);
}

}  // namespace mixerd
