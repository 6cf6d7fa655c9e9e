#include "actors/system.hpp"

#include <caf/all.hpp>

#include "actors/audio/audio_actor.hpp"
#include "actors/auth/auth_actor.hpp"
#include "actors/device/device_actor.hpp"
#include "actors/hub/hub_actor.hpp"
#include "actors/log.hpp"
#include "actors/macros/macro_actor.hpp"
#include "actors/mdns/mdns_actor.hpp"
#include "actors/mixer/mixer_actor.hpp"
#include "actors/mqtt/mqtt_actor.hpp"
#include "actors/music/music_actor.hpp"
#include "actors/network/network_actor.hpp"
#include "actors/plants/plant_store_actor.hpp"
#include "actors/profiles/profile_actor.hpp"
#include "actors/settings/settings_actor.hpp"
#include "actors/smarthome/smarthome_actor.hpp"
#include "actors/stream/stream_actor.hpp"
#include "actors/toast/toast_actor.hpp"
#include "plugins/bridge/bridge_actor.hpp"
#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/macro_runs.hpp"
#include "protocol/music.hpp"

namespace mixerd {

namespace {

// Shutdown phases: producers of changes stop first, so that every change they made is queued at
// the settings actor ahead of its final flush; then the actors that only consume their output;
// the infrastructure (settings, hub) last.
enum phase : int { producers = 0, consumers = 1, infrastructure = 2, phase_count = 3 };

// One capability: how it is spawned (it adds its handle and views to the directory), when it
// stops, the events it publishes and those it receives, what it puts into initial_state, and how it
// learns the handles of rows below it (two capabilities that ask each other, such as macros running
// a profile and profiles loading macros, cannot both come first).
struct capability_row {
  const char* name;
  caf::actor (*spawn)(caf::actor_system&, const actor_options&, directory&);
  phase stop_phase;
  event_kind_list (*events)();                                  // null: publishes none
  event_kind_set (*subscriptions)();                            // null: subscribes to nothing
  void (*contribute)(const directory&, nlohmann::json& state);  // null: contributes nothing
  // Called once every row is spawned, before any gateway opens: sends the actor the handles it
  // needs from rows below it. Null: it needs none.
  void (*link)(const directory&, const caf::actor& self) = nullptr;
};

template <class Handle>
caf::actor registered(directory& dir, const Handle& handle) {
  dir.add(handle);
  return caf::actor_cast<caf::actor>(handle);
}

// The table. Order is spawn order: a row may use the handles of the rows above it.
const capability_row capability_table[] = {
    {"hub",
     [](caf::actor_system& sys, const actor_options&, directory& dir) {
       return registered<hub_actor>(dir, sys.spawn(hub_behavior, limits::hub_max_subscribers));
     },
     infrastructure, nullptr, nullptr, nullptr},
    {"settings",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       return registered<settings_actor>(
           dir, sys.spawn<caf::detached>(settings_behavior, o.paths, o.settings));
     },
     infrastructure, nullptr, nullptr, nullptr},
    {"device",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       return registered<device_actor>(
           dir, sys.spawn(device_behavior, device_config{o.io, o.serial, dir.get<hub_actor>()},
                          dir.slot(device_view{})));
     },
     producers, [] { return list_of_kinds<device_status, serial_raw, device_input>(); }, nullptr,
     [](const directory& dir, nlohmann::json& state) {
       auto device = dir.view<device_view>();
       auto audio = dir.view<audio_view>();
       auto status = device ? *device : device_view{};
       state["status"] = json::status_to_json(status, audio && audio->connected);
       state["connected"] = status.connected;
     }},
    {"audio",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       return registered<audio_actor>(
           dir, sys.spawn(audio_behavior, dir.get<hub_actor>(), mixer_from_settings(o.settings),
                          dir.slot(audio_view{})));
     },
     producers, [] { return list_of_kinds<audio_status>(); }, nullptr, nullptr},
    {"mixer",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       mixer_wiring wiring{dir.get<device_actor>(), dir.get<hub_actor>(), dir.get<settings_actor>(),
                           dir.get<audio_actor>()};
       auto view = dir.slot(mixer_view_of(mixer_from_settings(o.settings)));
       return registered<mixer_actor>(dir, sys.spawn(mixer_behavior, wiring, o.settings, view));
     },
     producers,
     [] { return list_of_kinds<slider_change, assignment_change, mute_change, volume_change>(); },
     mixer_subscriptions,
     [](const directory& dir, nlohmann::json& state) {
       auto view = dir.view<mixer_view>();
       if (!view) return;
       state["sliders"] = json::sliders_to_json(view->mix)["sliders"];
       state["mutes"] = json::mutes_to_json(view->mix.mutes);
       state["volume"] = view->mix.master_volume;
     }},
    // A producer: it changes the mixer (mute, volume macros) and its page set is persisted.
    {"macros",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       macro_wiring wiring{dir.get<device_actor>(), dir.get<hub_actor>(), dir.get<settings_actor>(),
                           dir.get<mixer_actor>(), o.io};
       auto view = dir.slot(macro_view_of(macros::pages_from_settings(o.settings)));
       return registered<macros_actor>(dir, sys.spawn(macro_behavior, wiring, o.settings, view));
     },
     producers, [] { return list_of_kinds<macro_executed, macro_page_change, macros_change>(); },
     macro_subscriptions,
     [](const directory& dir, nlohmann::json& state) {
       if (auto view = dir.view<macro_view>()) state["macros"] = macros::to_json(view->set);
     },
     [](const directory& dir, const caf::actor& self) {
       caf::anon_send(
           caf::actor_cast<macros_impl>(self),
           macro_links{dir.get<profiles_actor>(), dir.get<smarthome_actor>(),
                       dir.get<stream_actor>(), dir.get<music_actor>(), dir.get<plugins_actor>()});
     }},
    {"auth",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       auto view = dir.slot(auth_view_of(auth_config_from_settings(o.settings)));
       return registered<auth_actor>(
           dir, sys.spawn(auth_behavior, dir.get<settings_actor>(), o.settings, view));
     },
     producers, nullptr, nullptr, nullptr},
    {"toast",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       toast_wiring wiring{dir.get<device_actor>(), dir.get<settings_actor>()};
       auto view = dir.slot(toast_view{toast_handlers_from_settings(o.settings)});
       return registered<toast_actor>(dir, sys.spawn(toast_behavior, wiring, o.settings, view));
     },
     consumers, nullptr, toast_subscriptions, nullptr},
    {"network",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       network_config config;
       config.io = o.io;
       config.host_name = read_host_name();
       config.allowed_hosts = host_names::allowed_from_settings(o.settings);
       config.settings = dir.get<settings_actor>();
       // Filled from the start: the listeners open before the actor first runs.
       config.names =
           dir.slot(host_names::make_machine_names(config.host_name, "", config.allowed_hosts));
       return registered<network_actor>(dir, sys.spawn(network_behavior, std::move(config)));
     },
     consumers, nullptr, nullptr, nullptr},
    {"plants",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       return registered<plants_actor>(
           dir, sys.spawn<caf::detached>(plant_store_behavior, o.paths.data_dir + "/plants.json",
                                         dir.get<settings_actor>(), o.settings));
     },
     producers, nullptr, nullptr, nullptr},
    // Home Assistant: its connection lives on the io thread; a toggle's result is a toast.
    {"smarthome",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       smarthome_wiring wiring{o.io, dir.get<hub_actor>(), dir.get<settings_actor>(),
                               dir.get<toast_actor>()};
       auto view = dir.slot(smarthome_view{});
       return registered<smarthome_actor>(
           dir, sys.spawn(smarthome_behavior, std::move(wiring), o.settings, view));
     },
     producers, [] { return list_of_kinds<smarthome_change, smarthome_status>(); }, nullptr,
     [](const directory& dir, nlohmann::json& state) {
       auto view = dir.view<smarthome_view>();
       state["smarthome"] = smarthome::view_to_json(view ? *view : smarthome_view{});
     }},
    // The streaming software (OBS). A producer: it publishes scene and status changes.
    {"stream",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       std::string key;
       std::string error;
       // Validated at start-up (settings_schema): a bad value never gets here.
       auto config = stream::settings_from(o.settings, key, error).value_or(stream::settings{});
       stream_wiring wiring{dir.get<hub_actor>(), dir.get<toast_actor>(), dir.get<settings_actor>(),
                            o.io};
       auto view = dir.slot(stream_view{});
       return registered<stream_actor>(
           dir, sys.spawn(stream_behavior, std::move(wiring), std::move(config), view));
     },
     producers, [] { return list_of_kinds<stream_change, stream_status>(); }, nullptr,
     [](const directory& dir, nlohmann::json& state) {
       if (auto view = dir.view<stream_view>()) state["stream"] = stream::state_body(*view);
     }},
    // The session D-Bus connection runs on the io thread; a bus that is absent or slow never
    // holds up start-up (the actor reports connected false and tries again).
    {"music",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       music_wiring wiring{o.io, dir.get<hub_actor>(), dir.get<toast_actor>(),
                           music_bus_from_environment()};
       auto view = dir.slot(music_view{});
       return registered<music_actor>(dir, sys.spawn(music_behavior, std::move(wiring), view));
     },
     producers, [] { return list_of_kinds<music_change>(); }, nullptr,
     [](const directory& dir, nlohmann::json& state) {
       if (auto view = dir.view<music_view>()) state["music"] = music::to_json(*view);
     }},
    // After mixer and macros (a load hands its parts to both, a save reads both views), and last:
    // its start-up reads and may write the profile folder (fsync), which must not delay the
    // rows that subscribe to events the audio and device actors may already publish.
    {"profiles",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       profiles_wiring wiring{o.paths.data_dir + "/profiles", dir.get<mixer_actor>(),
                              dir.get<macros_actor>(),        dir.get<hub_actor>(),
                              dir.get<settings_actor>(),      dir.source<mixer_view>(),
                              dir.source<macro_view>()};
       // Listed before any gateway opens: initial_state names the profiles from the start.
       auto opened = open_profiles(wiring.folder, o.settings, current_content(wiring));
       auto view = dir.slot(profiles_view{opened.profiles, opened.current});
       return registered<profiles_actor>(
           dir,
           sys.spawn<caf::detached>(profiles_behavior, std::move(wiring), std::move(opened), view));
     },
     producers, [] { return list_of_kinds<profile_change>(); }, nullptr,
     [](const directory& dir, nlohmann::json& state) {
       if (auto view = dir.view<profiles_view>()) state["profiles"] = profiles::list_to_json(*view);
     }},
    // MQTT (Home Assistant discovery, states and commands). Detached: a clean stop waits, within
    // a bound, for the broker to acknowledge `offline`. Its broker connection runs on a thread of
    // its own, so an absent or slow broker holds up nothing. After profiles: its commands load
    // profiles. A consumer: it mirrors the producers' last changes before it goes offline.
    {"mqtt",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       mqtt_wiring wiring{
           dir.get<settings_actor>(),   dir.get<mixer_actor>(),    dir.get<macros_actor>(),
           dir.get<profiles_actor>(),   dir.source<mixer_view>(),  dir.source<macro_view>(),
           dir.source<profiles_view>(), dir.source<device_view>(), read_host_name()};
       std::string key;
       std::string error;
       // Validated at start-up (settings_schema): a bad value never gets here.
       auto config =
           mqtt::settings_from(o.settings, wiring.host_name, key, error).value_or(mqtt::settings{});
       return registered<mqtt_actor>(
           dir, sys.spawn<caf::detached>(mqtt_behavior, std::move(wiring), std::move(config)));
     },
     consumers, nullptr, mqtt_subscriptions, nullptr},
    // The plugin host, last: its hooks read every view above, and its plugins' calls reach the
    // device, macros, toasts and settings. A consumer: at stop its plugins get on_unload (2 s
    // grace) while the producers are gone already.
    {"plugins",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       plugins_wiring wiring;
       wiring.folder = o.paths.data_dir + "/plugins/executable";
       wiring.sdk_dir = plugin_sdk_dir();
       wiring.hub = dir.get<hub_actor>();
       wiring.device = dir.get<device_actor>();
       wiring.settings = dir.get<settings_actor>();
       wiring.toast = dir.get<toast_actor>();
       wiring.macros = dir.get<macros_actor>();
       wiring.device_source = dir.source<device_view>();
       wiring.mixer = dir.source<mixer_view>();
       wiring.macro_set = dir.source<macro_view>();
       wiring.music = dir.source<music_view>();
       auto view = dir.slot(plugins_view{});
       return registered<plugins_actor>(
           dir, sys.spawn(plugins_behavior, std::move(wiring), o.settings, view));
     },
     consumers, [] { return list_of_kinds<plugin_status>(); }, plugin_subscriptions, nullptr},
    // Advertises the controller through Avahi once the daemon sends it the bound port
    // (mdns_listening). Detached: Avahi's calls are D-Bus round trips.
    {"mdns",
     [](caf::actor_system& sys, const actor_options& o, directory& dir) {
       return registered<mdns_actor>(
           dir, sys.spawn<caf::detached>(mdns_behavior, dir.get<settings_actor>(), o.settings,
                                         read_host_name()));
     },
     consumers, nullptr, nullptr, nullptr},
};

}  // namespace

void configure_actor_system(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::mixerd_core>();
  cfg.add_message_types<caf::id_block::mixerd_settings>();
  cfg.add_message_types<caf::id_block::mixerd_device>();
  cfg.add_message_types<caf::id_block::mixerd_audio>();
  cfg.add_message_types<caf::id_block::mixerd_mixer>();
  cfg.add_message_types<caf::id_block::mixerd_macros>();
  cfg.add_message_types<caf::id_block::mixerd_profiles>();
  cfg.add_message_types<caf::id_block::mixerd_auth>();
  cfg.add_message_types<caf::id_block::mixerd_toast>();
  cfg.add_message_types<caf::id_block::mixerd_network>();
  cfg.add_message_types<caf::id_block::mixerd_plants>();
  cfg.add_message_types<caf::id_block::mixerd_smarthome>();
  cfg.add_message_types<caf::id_block::mixerd_stream>();
  cfg.add_message_types<caf::id_block::mixerd_music>();
  cfg.add_message_types<caf::id_block::mixerd_plugins>();
  cfg.add_message_types<caf::id_block::mixerd_mdns>();
  cfg.add_message_types<caf::id_block::mixerd_macro_runs>();
  // One worker runs every cooperative actor. With two, nearly every message between the
  // actors woke the other worker (futex + context switch). The actors that block (fsync of
  // settings.json, plants.json and the profile files) run detached and the auth actor checks
  // passwords on a detached helper (PBKDF2), each on its own thread, so they never hold up slider
  // events.
  cfg.set("scheduler.policy", caf::atom("sharing"));
  cfg.set("scheduler.max-threads", 1);
}

void spawn_actors(caf::actor_system& sys, const actor_options& options, running_system& out) {
  out.phases.assign(phase_count, {});
  std::vector<caf::actor> spawned;
  for (const auto& row : capability_table) {
    auto actor = row.spawn(sys, options, out.dir);
    spawned.push_back(actor);
    out.phases[row.stop_phase].push_back(actor);
    if (row.events) out.dir.declare(row.events());
    if (row.subscriptions)
      caf::anon_send(out.dir.get<hub_actor>(), caf::subscribe_atom_v, actor, row.subscriptions());
    if (row.contribute) out.dir.contribute(row.contribute);
  }
  std::size_t i = 0;
  for (const auto& row : capability_table) {
    if (row.link) row.link(out.dir, spawned[i]);
    ++i;
  }
}

void shutdown_actors(caf::actor_system& sys, const running_system& running,
                     const std::vector<caf::actor>& extra) {
  caf::scoped_actor self{sys};
  auto stop = [&](const std::vector<caf::actor>& group) {
    for (const auto& a : group)
      if (a) self->send_exit(a, caf::exit_reason::user_shutdown);
    for (const auto& a : group)
      if (a) self->wait_for(a);
  };
  auto first = running.phases[producers];
  first.insert(first.end(), extra.begin(), extra.end());
  stop(first);
  stop(running.phases[consumers]);
  self->request(running.dir.get<settings_actor>(), limits::shutdown_flush_timeout,
                caf::flush_atom_v)
      .receive([](bool) {},
               [](caf::error& e) {
                 log::error("mixerd", "settings not saved at shutdown: ", caf::to_string(e));
               });
  stop(running.phases[infrastructure]);
}

}  // namespace mixerd
