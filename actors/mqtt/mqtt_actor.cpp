#include "actors/mqtt/mqtt_actor.hpp"

#include <caf/all.hpp>

#include "actors/support/log.hpp"
#include "protocol/device_codec.hpp"
#include "protocol/limits.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "mqtt";
using self_ptr = mqtt_impl::stateful_pointer<mqtt_state>;
using mqtt::entity;
using mqtt::entity_kind;

// The profile list has no event of its own (a profile created, renamed or deleted): it is
// compared with what discovery shows this often, as are the queue and the dropped messages.
constexpr auto sweep_interval = std::chrono::seconds(1);
// Sensors change slowly or all the time (an uptime): their states are sent every 10 sweeps.
constexpr int sensor_sweeps = 10;

// ---- Publishing --------------------------------------------------------------------------------

// Queues a retained message while connected. A full queue marks everything for a resync.
void put(self_ptr self, const std::string& topic, const std::string& payload) {
  auto& st = self->state;
  if (!st.connected || !st.client) return;
  if (st.client->publish(topic, payload, true)) return;
  if (!st.resync)
    log::warn(component, "the broker is not keeping up (", mqtt_client::max_unacked,
              " messages unacknowledged); the states are sent again once it does");
  st.resync = true;
}

void put_state(self_ptr self, const entity& e, const std::string& payload) {
  put(self, mqtt::state_topic(self->state.config.node_id, e), payload);
}

void put_config(self_ptr self, const entity& e, const mqtt::discovery_context& c) {
  put(self, mqtt::config_topic(self->state.config, e),
      mqtt::discovery_config(self->state.config, e, c).dump());
}

std::vector<std::string> profile_names(self_ptr self) {
  std::vector<std::string> out;
  if (auto view =
          self->state.wiring.profiles_source ? self->state.wiring.profiles_source->load() : nullptr)
    for (const auto& p : view->profiles)
      out.push_back(p.name);
  return out;
}

std::string current_profile(self_ptr self) {
  auto view =
      self->state.wiring.profiles_source ? self->state.wiring.profiles_source->load() : nullptr;
  return view ? view->current : std::string();
}

void put_profile_config(self_ptr self) {
  auto& st = self->state;
  st.profile_options = profile_names(self);
  auto options = st.profile_options;
  // Home Assistant wants at least one option; the current name is one.
  if (options.empty()) options.push_back(current_profile(self));
  put_config(self, {entity_kind::profile, 0}, {"", std::move(options)});
}

void put_slider_config(self_ptr self, int index) {
  put_config(self, {entity_kind::slider, index}, {self->state.slider_names[index - 1], {}});
}

// The 9 buttons of the current page: a slot's config follows its macro; an empty slot's config
// is deleted (an empty retained payload). Only what changed is sent, unless `all`.
void sync_macros(self_ptr self, bool all) {
  auto& st = self->state;
  const auto& page = st.pages.pages[st.pages.current_page];
  for (int i = 0; i < limits::macro_count; ++i) {
    std::optional<std::string> name;
    // A button only runs a command: without commands there is none (its config is deleted).
    if (!page[i].empty() && st.config.commands) name = page[i].name();
    if (!all && name == st.macro_names[i]) continue;
    st.macro_names[i] = name;
    const entity e{entity_kind::macro, i};
    if (name)
      put_config(self, e, {*name, {}});
    else
      put(self, mqtt::config_topic(st.config, e), "");
  }
}

// The capabilities' sensors: the config of each one not yet announced, the state of each value
// that changed since it was last sent (`all`: everything again).
void put_sensors(self_ptr self, bool all) {
  auto& st = self->state;
  if (!st.wiring.sensors) return;
  if (all) st.sensor_states.clear();
  for (const auto& r : st.wiring.sensors->readings()) {
    auto known = st.sensor_states.find(r.object_id);
    if (known == st.sensor_states.end()) {
      put(self, mqtt::sensor_config_topic(st.config, r.object_id),
          mqtt::sensor_config(st.config, r).dump());
      known = st.sensor_states.emplace(r.object_id, std::string()).first;
    }
    if (r.value.empty() || r.value == known->second) continue;
    known->second = r.value;
    put(self, mqtt::sensor_state_topic(st.config.node_id, r.object_id), r.value);
  }
}

// Everything again: availability, every discovery config, every state (after a connect, when
// Home Assistant comes online, after a resync). After a connect (`connected`), the configs of
// the other mqtt.commands layout are deleted first, so that Home Assistant drops what an earlier
// run with the other value left before it sees this layout's; the layout changes only with a
// new connection.
void put_everything(self_ptr self, bool connected = false) {
  auto& st = self->state;
  put(self, mqtt::availability_topic(st.config.node_id), std::string(mqtt::online));
  if (connected)
    for (const auto& topic : mqtt::other_layout_config_topics(st.config))
      put(self, topic, "");
  const auto mixer = st.wiring.mixer_source ? st.wiring.mixer_source->load() : nullptr;
  if (mixer)
    for (int i = 0; i < limits::slider_count; ++i)
      st.slider_names[i] = mixer->mix.sliders[i].label;
  for (const auto& e : mqtt::fixed_entities()) {
    if (e.kind == entity_kind::profile)
      put_profile_config(self);
    else if (e.kind == entity_kind::slider)
      put_slider_config(self, e.index);
    else
      put_config(self, e, {});
  }
  if (auto macros = st.wiring.macros_source ? st.wiring.macros_source->load() : nullptr)
    st.pages = macros->set;
  sync_macros(self, true);
  if (mixer) {
    for (int i = 0; i < limits::slider_count; ++i) {
      put_state(self, {entity_kind::slider, i + 1}, std::to_string(mixer->mix.sliders[i].value));
      put_state(self, {entity_kind::mute, i + 1}, mqtt::on_off(mixer->mix.mutes.individual[i]));
    }
    put_state(self, {entity_kind::master_mute, 0}, mqtt::on_off(mixer->mix.mutes.master));
    put_state(self, {entity_kind::master_volume, 0}, std::to_string(mixer->mix.master_volume));
  }
  put_state(self, {entity_kind::profile, 0}, current_profile(self));
  auto device = st.wiring.device_source ? st.wiring.device_source->load() : nullptr;
  put_state(self, {entity_kind::device, 0}, mqtt::on_off(device && device->connected));
  put_sensors(self, true);
}

// ---- Events: states and the discovery that follows them --------------------------------------

void on_event(self_ptr self, const event& e) {
  auto& st = self->state;
  if (!st.connected) return;
  if (const auto* x = e.get_if<slider_change>()) {
    put_state(self, {entity_kind::slider, x->index}, std::to_string(x->value));
  } else if (const auto* x = e.get_if<assignment_change>()) {
    if (x->index < 1 || x->index > limits::slider_count) return;
    if (st.slider_names[x->index - 1] == x->label) return;
    st.slider_names[x->index - 1] = x->label;
    put_slider_config(self, x->index);
  } else if (const auto* x = e.get_if<mute_change>()) {
    if (x->index == protocol::master_index)
      put_state(self, {entity_kind::master_mute, 0}, mqtt::on_off(x->muted));
    else
      put_state(self, {entity_kind::mute, x->index}, mqtt::on_off(x->muted));
  } else if (const auto* x = e.get_if<volume_change>()) {
    put_state(self, {entity_kind::master_volume, 0}, std::to_string(x->volume));
  } else if (const auto* x = e.get_if<profile_change>()) {
    put_state(self, {entity_kind::profile, 0}, x->profile);
  } else if (const auto* x = e.get_if<macro_page_change>()) {
    if (x->page < 0 || x->page >= limits::macro_page_count) return;
    st.pages.current_page = x->page;
    sync_macros(self, false);
  } else if (const auto* x = e.get_if<macros_change>()) {
    // The whole set, in the layout of settings.json's "macros".
    st.pages = macros::pages_from_settings(nlohmann::json{{"macros", x->set}});
    sync_macros(self, false);
  } else if (const auto* x = e.get_if<device_status>()) {
    put_state(self, {entity_kind::device, 0}, mqtt::on_off(x->connected));
  }
}

// ---- Commands ---------------------------------------------------------------------------------

void complain(self_ptr self, const std::string& text) {
  auto& st = self->state;
  if (st.complaints.admit("mqtt", std::chrono::steady_clock::now()) == 0) {
    log::warn(component, "ignored: ", text);
  } else {
    ++st.complaints_suppressed;
    log::debug(component, "ignored: ", text);
  }
}

// Runs the command a message names (mqtt::request_of) as any client of the broker may: with
// the controller's permission (docs/mqtt.md says so). Its outcome is logged; a switch whose state
// did not change, or a profile that could not be loaded, gets its state again (Home Assistant
// may show what it asked for).
void run_command(self_ptr self, const mqtt::command& c) {
  auto& st = self->state;
  if (!st.wiring.commands) return;
  auto request = mqtt::request_of(c);
  command_origin origin;
  origin.from = command_origin::front_end::mqtt;
  origin.who = "mqtt";
  const auto target = c.target;
  st.wiring.commands->run(self, std::move(origin), request.name, request.args,
                          [self, target, what = mqtt::object_id(target)](command_result r) {
                            if (!r.ok()) {
                              log::warn(component, what, " command: ", r.error);
                              if (target.kind == entity_kind::profile)
                                put_state(self, {entity_kind::profile, 0}, current_profile(self));
                              return;
                            }
                            const auto changed = r.body.find("changed");
                            if (changed != r.body.end() && !changed->get<bool>())
                              put_state(self, target, mqtt::on_off(r.body.at("muted").get<bool>()));
                          });
}

// Home Assistant said `online`: the discovery again, now or at the end of the window.
void on_birth(self_ptr self) {
  auto& st = self->state;
  const auto now = std::chrono::steady_clock::now();
  switch (st.births.birth(now)) {
    case mqtt::birth_coalescer::verdict::publish:
      log::debug(component, "Home Assistant is online: discovery again");
      return put_everything(self);
    case mqtt::birth_coalescer::verdict::schedule:
      log::debug(component, "Home Assistant is online again: discovery at the window's end");
      self->delayed_send(self, st.births.due() - now, caf::tick_atom_v);
      return;
    case mqtt::birth_coalescer::verdict::owed:
      return;
  }
}

void on_birth_timer(self_ptr self) {
  auto& st = self->state;
  const auto now = std::chrono::steady_clock::now();
  if (st.births.on_timer(now)) {
    log::debug(component, "Home Assistant came online meanwhile: discovery again");
    put_everything(self);
  } else if (st.births.owed()) {
    self->delayed_send(self, st.births.due() - now, caf::tick_atom_v);
  }
}

void on_message(self_ptr self, const std::string& topic, const std::string& payload,
                bool retained) {
  auto& st = self->state;
  if (topic == mqtt::status_topic(st.config)) {
    // A retained `online` is an old birth the broker hands out at every subscription: the
    // connect's own full publication answers it.
    if (payload == mqtt::online && !retained) on_birth(self);
    return;
  }
  // Not subscribed to without commands; a message that comes anyway is not acted on.
  if (!st.config.commands) return complain(self, "a command while mqtt.commands is false");
  // A retained command would act again at every reconnect: commands are only taken live.
  if (retained) return complain(self, "a retained message on " + topic);
  std::string error;
  auto command = mqtt::parse_command(st.config.node_id, topic, payload, error);
  if (!command) return complain(self, error);
  run_command(self, *command);
}

// ---- The connection ---------------------------------------------------------------------------

// Publishes where the broker link stands when that changed (the page's Status section and the
// settings area show it).
void report(self_ptr self, mqtt::link_state state, int code = 0) {
  auto& st = self->state;
  st.link = state;
  auto facts = mqtt::link_facts(st.config, state, code);
  if (facts == st.link_facts) return;
  st.link_facts = facts;
  if (st.wiring.link) st.wiring.link->store(mqtt_link_view{facts});
  if (st.wiring.hub)
    self->send(st.wiring.hub, caf::publish_atom_v, event{status_facts{"mqtt", std::move(facts)}});
}

void disconnect(self_ptr self) {
  auto& st = self->state;
  if (st.client)
    st.client->stop(st.connected ? mqtt::availability_topic(st.config.node_id) : "",
                    std::string(mqtt::offline));
  st.client.reset();
  st.connected = false;
}

void connect(self_ptr self) {
  auto& st = self->state;
  ++st.gen;
  st.down_reported = false;
  st.resync = false;
  if (!st.config.enabled) return report(self, mqtt::link_state::off);
  mqtt_client_options o;
  o.host = st.config.host;
  o.port = st.config.port;
  o.tls = st.config.tls;
  o.username = st.config.username;
  o.password = st.config.password;
  o.client_id = "mixerd-" + st.config.node_id;
  o.will_topic = mqtt::availability_topic(st.config.node_id);
  if (st.config.commands) o.subscriptions = mqtt::command_filters(st.config.node_id);
  o.subscriptions.push_back(mqtt::status_topic(st.config));
  o.owner = caf::actor_cast<caf::actor>(self);
  o.gen = st.gen;
  std::string error;
  st.client = mqtt_client::start(std::move(o), error);
  if (!st.client) {
    log::error(component, "cannot connect to ", st.config.url, ": ", error);
    return report(self, mqtt::link_state::unavailable);
  }
  log::info(component, "connecting to ", st.config.url, " as node ", st.config.node_id);
  report(self, mqtt::link_state::connecting);
}

void on_opened(self_ptr self, std::int32_t rc) {
  auto& st = self->state;
  if (rc != 0) {
    // CONNACK's refusal (bad user name or password, not authorised): retried with back-off.
    if (!st.down_reported)
      log::warn(component, "the broker at ", st.config.url,
                " refused the connection (CONNACK code ", rc, "); retrying with back-off");
    st.down_reported = true;
    return report(self, mqtt::link_state::refused, rc);
  }
  st.connected = true;
  st.down_reported = false;
  st.resync = false;
  st.births.reset();
  log::info(component, "connected to ", st.config.url, " as node ", st.config.node_id,
            st.config.commands ? "" : " (state only: mqtt.commands is false)");
  report(self, mqtt::link_state::connected);
  put_everything(self, true);
}

void on_closed(self_ptr self, const std::string& reason) {
  auto& st = self->state;
  // A refusal closes the connection too: its reason stays shown until the next answer.
  if (st.link != mqtt::link_state::refused) report(self, mqtt::link_state::unavailable);
  if (st.connected) {
    log::warn(component, "connection to ", st.config.url, " lost: ", reason,
              "; reconnecting with back-off");
    st.connected = false;
    st.down_reported = true;
  } else if (!st.down_reported) {
    log::info(component, "broker at ", st.config.url, " not available: ", reason,
              "; retrying with back-off (1 s to 30 s)");
    st.down_reported = true;
  } else {
    log::debug(component, "broker at ", st.config.url, " still not available: ", reason);
  }
}

void on_sweep(self_ptr self) {
  auto& st = self->state;
  if (!st.connected || !st.client) return;
  if (auto dropped = st.client->take_dropped())
    log::warn(component, "dropped ", dropped, " incoming messages (too many or too large)");
  if (st.complaints_suppressed > 0 &&
      st.complaints.admit("mqtt", std::chrono::steady_clock::now()) == 0) {
    log::warn(component, st.complaints_suppressed, " more ignored commands (not logged)");
    st.complaints_suppressed = 0;
  }
  if (st.resync) {
    if (st.client->unacked() > mqtt_client::max_unacked / 2) return;
    st.resync = false;
    log::info(component, "the broker caught up: the states again");
    return put_everything(self);
  }
  if (profile_names(self) != st.profile_options) put_profile_config(self);
  if (++st.sweeps_since_sensors >= sensor_sweeps) {
    st.sweeps_since_sensors = 0;
    put_sensors(self, false);
  }
}

void on_reload(self_ptr self, const nlohmann::json& settings) {
  auto& st = self->state;
  std::string key;
  std::string error;
  auto fresh = mqtt::settings_from(settings, st.wiring.host_name, key, error);
  if (!fresh) {
    log::warn(component, "reload: ", key, " ", error, "; the running connection stays");
    return;
  }
  if (*fresh == st.config) return;
  log::info(component, "settings changed: ", fresh->enabled ? "reconnecting" : "MQTT off");
  disconnect(self);
  st.config = std::move(*fresh);
  connect(self);
}

}  // namespace

mqtt_state::~mqtt_state() {
  if (!client) return;
  client->stop(connected ? mqtt::availability_topic(config.node_id) : "",
               std::string(mqtt::offline));
}

mqtt_impl::behavior_type mqtt_behavior(mqtt_impl::stateful_pointer<mqtt_state> self,
                                       mqtt_wiring wiring, mqtt::settings config) {
  auto& st = self->state;
  st.wiring = std::move(wiring);
  st.config = std::move(config);
  if (st.wiring.settings)
    self->send(st.wiring.settings, watch_atom_v, caf::actor_cast<caf::actor>(self));
  if (!st.wiring.wait_for_ready) connect(self);
  self->delayed_send(self, sweep_interval, sweep_atom_v);
  return {
      [self](ready_atom) {
        if (self->state.wiring.wait_for_ready) {
          self->state.wiring.wait_for_ready = false;
          connect(self);
        }
      },
      [self](const event& e) { on_event(self, e); },
      [self](const settings_reloaded& reloaded) { on_reload(self, reloaded.settings); },
      [self](opened_atom, std::uint64_t gen, std::int32_t rc) {
        if (gen == self->state.gen) on_opened(self, rc);
      },
      [self](closed_atom, std::uint64_t gen, const std::string& reason, std::int32_t) {
        if (gen == self->state.gen) on_closed(self, reason);
      },
      [self](line_atom, std::uint64_t gen, const std::string& topic, const std::string& payload,
             bool retained) {
        auto& st = self->state;
        if (gen != st.gen || !st.client) return;
        st.client->consumed();
        on_message(self, topic, payload, retained);
      },
      [self](sweep_atom) {
        on_sweep(self);
        self->delayed_send(self, sweep_interval, sweep_atom_v);
      },
      [self](caf::tick_atom) { on_birth_timer(self); },
  };
}

}  // namespace mixerd
