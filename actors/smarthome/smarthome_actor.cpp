#include "actors/smarthome/smarthome_actor.hpp"

#include <algorithm>
#include <caf/all.hpp>

#include "actors/support/log.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "smarthome";
using self_ptr = smarthome_impl::stateful_pointer<smarthome_state>;
using result = smarthome_outcome::result;
using action = smarthome_command::action;

constexpr const char* not_connected_text = "Smart home not connected";

smarthome_outcome refused(result what, std::string error) {
  return {what, std::move(error), {}};
}

std::string seconds_text(std::chrono::milliseconds delay) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(delay).count()) + " s";
}

void publish(self_ptr self, event e) {
  self->send(self->state.wiring.hub, caf::publish_atom_v, std::move(e));
}

void publish_view(self_ptr self) {
  auto& st = self->state;
  st.view->store(
      smarthome_view{st.connected, st.connected ? st.devices : std::vector<smarthome_device>{}});
}

void send(self_ptr self, std::string text) {
  if (self->state.link) self->state.link->send(std::move(text));
}

std::int64_t next_id(self_ptr self) {
  return self->state.next_id++;
}

// Where a device goes in the list: the order of `entities`, else by entity id.
bool listed_before(const smarthome_state& st, const std::string& a, const std::string& b) {
  if (!st.config || st.config->entities.empty()) return a < b;
  const auto& order = st.config->entities;
  return std::find(order.begin(), order.end(), a) < std::find(order.begin(), order.end(), b);
}

smarthome_device* find_device(smarthome_state& st, const std::string& entity_id) {
  auto it = std::find_if(st.devices.begin(), st.devices.end(),
                         [&](const smarthome_device& d) { return d.entity_id == entity_id; });
  return it == st.devices.end() ? nullptr : &*it;
}

// ---- The connection ----------------------------------------------------------------------------

void fail_pending(self_ptr self, const std::string& why) {
  auto pending = std::move(self->state.pending);
  self->state.pending.clear();
  for (auto& [id, call] : pending)
    call.answer.deliver(refused(result::not_connected, why));
}

void set_connected(self_ptr self, bool connected) {
  auto& st = self->state;
  if (st.connected == connected) return;
  st.connected = connected;
  publish_view(self);
  publish(self, event{smarthome_status{connected}});
}

// Ends the link (if any) without scheduling anything: its late messages are dropped.
void close_link(self_ptr self) {
  auto& st = self->state;
  if (st.link) st.link->close();
  st.link.reset();
  ++st.generation;
  st.authenticated = st.subscribed = st.states_loaded = false;
  st.ping_unanswered = false;
  st.devices.clear();
  fail_pending(self, not_connected_text);
  set_connected(self, false);
}

void schedule_retry(self_ptr self) {
  auto& st = self->state;
  self->delayed_send(self, st.retry.next(), retry_atom_v, st.generation);
}

// The connection failed or ended: reconnect after the back-off.
void lost(self_ptr self, const std::string& why) {
  auto& st = self->state;
  const bool was_connected = st.connected;
  close_link(self);
  if (!st.config) return;
  if (was_connected)
    log::warn(component, "Home Assistant connection lost: ", why, "; reconnecting in ",
              seconds_text(st.retry.upcoming()));
  else
    log::info(component, "cannot connect to Home Assistant at ", st.config->url, ": ", why,
              "; retrying in ", seconds_text(st.retry.upcoming()));
  schedule_retry(self);
}

void connect(self_ptr self) {
  auto& st = self->state;
  if (!st.config || st.link || st.wiring.io == nullptr) return;
  ++st.generation;
  websocket_endpoint endpoint;
  endpoint.url = st.config->websocket;
  endpoint.verify_tls = st.config->verify_tls;
  endpoint.max_message_bytes = smarthome::max_message_bytes;
  log::info(component, "connecting to Home Assistant at ", st.config->url);
  st.link =
      open_websocket(*st.wiring.io, endpoint, caf::actor_cast<caf::actor>(self), st.generation);
  // Open, authenticated and loaded within the limit, or the attempt is given up.
  self->delayed_send(self, smarthome::setup_timeout, recheck_atom_v, st.generation);
}

// ---- Devices -----------------------------------------------------------------------------------

void load_states(self_ptr self, const nlohmann::json& states) {
  auto& st = self->state;
  st.devices.clear();
  if (!states.is_array()) return;
  bool truncated = false;
  for (const auto& state : states) {
    auto device = smarthome::device_of(state);
    if (!device || !smarthome::listed(device->entity_id, st.config->entities)) continue;
    if (find_device(st, device->entity_id) != nullptr) continue;
    if (st.devices.size() >= smarthome::max_devices) {
      truncated = true;
      break;
    }
    st.devices.push_back(std::move(*device));
  }
  if (truncated)
    log::warn(component, "Home Assistant lists more than ", smarthome::max_devices,
              " devices; the first ", smarthome::max_devices, " are shown");
  std::stable_sort(st.devices.begin(), st.devices.end(),
                   [&](const smarthome_device& a, const smarthome_device& b) {
                     return listed_before(st, a.entity_id, b.entity_id);
                   });
}

void show_toggle(self_ptr self, const smarthome_device& device) {
  const auto& toast = self->state.wiring.toast;
  if (!toast) return;
  auto text = smarthome::toggle_toast(device);
  toast_content content;
  content.message = std::move(text.message);
  content.subtitle = std::move(text.subtitle);
  content.icon = "power";
  self->send(toast, toast_notice{"smarthome", std::move(content)});
}

// Toggles of `device` waiting for its new state.
void answer_toggles(self_ptr self, const smarthome_device& device) {
  auto& pending = self->state.pending;
  for (auto it = pending.begin(); it != pending.end();) {
    auto& call = it->second;
    if (call.wants_new_state && call.command.entity_id == device.entity_id &&
        device.state != call.state_before) {
      call.answer.deliver(smarthome_outcome{result::ok, {}, device});
      show_toggle(self, device);
      it = pending.erase(it);
    } else {
      ++it;
    }
  }
}

void on_state_changed(self_ptr self, const smarthome::incoming& msg) {
  auto& st = self->state;
  if (!st.connected || !smarthome::listed(msg.changed_entity, st.config->entities)) return;
  auto* known = find_device(st, msg.changed_entity);
  if (msg.new_state.is_null()) {
    // Removed from Home Assistant.
    if (known == nullptr) return;
    st.devices.erase(st.devices.begin() + (known - st.devices.data()));
    publish_view(self);
    return;
  }
  auto device = smarthome::device_of(msg.new_state);
  if (!device || device->entity_id != msg.changed_entity) return;
  if (known == nullptr) {
    if (st.devices.size() >= smarthome::max_devices) return;
    auto at = std::find_if(st.devices.begin(), st.devices.end(), [&](const smarthome_device& d) {
      return listed_before(st, device->entity_id, d.entity_id);
    });
    st.devices.insert(at, *device);
  } else {
    const bool same = known->state == device->state &&
                      known->friendly_name == device->friendly_name &&
                      known->brightness == device->brightness;
    if (same) {
      answer_toggles(self, *device);
      return;
    }
    *known = *device;
  }
  publish_view(self);
  publish(self, event{smarthome_change{*device}});
  answer_toggles(self, *device);
}

// ---- Messages from Home Assistant --------------------------------------------------------------

void heartbeat(self_ptr self) {
  self->delayed_send(self, smarthome::heartbeat_interval, keepalive_atom_v, self->state.generation);
}

void maybe_ready(self_ptr self) {
  auto& st = self->state;
  if (!st.subscribed || !st.states_loaded || st.connected) return;
  st.retry.reset();
  log::info(component, "connected to Home Assistant: ", st.devices.size(), " devices");
  set_connected(self, true);
  heartbeat(self);
}

void on_result(self_ptr self, smarthome::incoming& msg) {
  auto& st = self->state;
  const auto id = *msg.id;
  if (id == st.subscribe_id || id == st.states_id) {
    if (!msg.success)
      return lost(self, std::string(id == st.subscribe_id ? "subscribe_events" : "get_states") +
                            " failed (" + msg.error + ")");
    if (id == st.subscribe_id) {
      st.subscribed = true;
    } else {
      load_states(self, msg.result);
      st.states_loaded = true;
    }
    return maybe_ready(self);
  }
  auto it = st.pending.find(id);
  if (it == st.pending.end()) return;
  auto& call = it->second;
  if (!msg.success) {
    log::warn(component, "Home Assistant refused the call on ", call.command.entity_id, ": ",
              msg.error);
    call.answer.deliver(refused(result::refused, "Home Assistant refused the call: " + msg.error));
    st.pending.erase(it);
    return;
  }
  if (call.wants_new_state) return;  // answered by the state_changed
  const auto* device = find_device(st, call.command.entity_id);
  call.answer.deliver(smarthome_outcome{result::ok, {}, device ? *device : smarthome_device{}});
  st.pending.erase(it);
}

void on_line(self_ptr self, const std::string& text) {
  auto& st = self->state;
  auto msg = smarthome::parse(text);
  if (!msg) {
    log::debug(component, "ignored a message of Home Assistant that is not a JSON object");
    return;
  }
  using kind = smarthome::incoming::kind;
  switch (msg->type) {
    case kind::auth_required:
      if (!st.authenticated) send(self, smarthome::auth_message(st.config->token));
      return;
    case kind::auth_ok:
      st.authenticated = true;
      st.subscribe_id = next_id(self);
      st.states_id = next_id(self);
      // Subscribed first: no change falls between the states and the events.
      send(self, smarthome::subscribe_state_changed(st.subscribe_id));
      send(self, smarthome::get_states(st.states_id));
      return;
    case kind::auth_invalid:
      log::error(component, "Home Assistant refused the access token",
                 msg->error.empty() ? "" : " (" + msg->error + ")",
                 "; check smarthome.token in the settings");
      return lost(self, "the access token was refused");
    case kind::result:
      if (msg->id) on_result(self, *msg);
      return;
    case kind::event:
      if (!msg->changed_entity.empty()) on_state_changed(self, *msg);
      return;
    case kind::pong:
      st.ping_unanswered = false;
      return;
    case kind::other:
      return;
  }
}

// ---- Calls -------------------------------------------------------------------------------------

caf::result<smarthome_outcome> call(self_ptr self, const smarthome_command& req) {
  auto& st = self->state;
  if (!st.connected) return refused(result::not_connected, not_connected_text);
  const auto* device = find_device(st, req.entity_id);
  if (device == nullptr) return refused(result::not_found, "Unknown entity: " + req.entity_id);
  const std::string domain = device->domain;
  std::string service;
  std::optional<int> brightness_pct;
  switch (req.what) {
    case action::toggle:
      service = "toggle";
      break;
    case action::turn_off:
      service = "turn_off";
      break;
    case action::turn_on:
      service = "turn_on";
      if (req.brightness) {
        if (domain != "light")
          return refused(result::invalid,
                         "entity_id " + req.entity_id + " is not a light: it has no brightness");
        if (*req.brightness == 0)
          service = "turn_off";
        else
          brightness_pct = req.brightness;
      }
      break;
  }
  if (st.pending.size() >= smarthome::max_pending_calls)
    return refused(result::busy, "Too many smart-home calls waiting; try again");
  const auto id = next_id(self);
  auto answer = self->make_response_promise<smarthome_outcome>();
  smarthome_pending pending{req, answer, req.what == action::toggle, device->state};
  st.pending.emplace(id, std::move(pending));
  send(self, smarthome::call_service(id, domain, service, req.entity_id, brightness_pct));
  self->delayed_send(self, smarthome::call_timeout, caf::timeout_atom_v, id);
  return answer;
}

void call_timed_out(self_ptr self, std::int64_t id) {
  auto& st = self->state;
  auto it = st.pending.find(id);
  if (it == st.pending.end()) return;
  const auto& call = it->second;
  const std::string limit = seconds_text(smarthome::call_timeout);
  std::string why = call.wants_new_state ? "Home Assistant did not report a new state of " +
                                               call.command.entity_id + " within " + limit
                                         : "Home Assistant did not answer within " + limit;
  log::warn(component, why);
  it->second.answer.deliver(refused(result::timeout, std::move(why)));
  st.pending.erase(it);
}

void reconfigure(self_ptr self, const nlohmann::json& settings) {
  auto& st = self->state;
  auto fresh = smarthome::settings_from(settings);
  if (fresh == st.config) return;
  log::info(component, fresh ? "smart-home settings changed: connecting again"
                             : "smart-home settings removed: disconnecting");
  close_link(self);
  st.config = std::move(fresh);
  st.retry.reset();
  connect(self);
}

}  // namespace

smarthome_state::~smarthome_state() {
  if (link) link->close();
}

smarthome_impl::behavior_type smarthome_behavior(
    smarthome_impl::stateful_pointer<smarthome_state> self, smarthome_wiring wiring,
    nlohmann::json settings, std::shared_ptr<published<smarthome_view>> view) {
  auto& st = self->state;
  st.wiring = std::move(wiring);
  st.view = std::move(view);
  st.config = smarthome::settings_from(settings);
  publish_view(self);
  if (st.wiring.settings)
    self->send(st.wiring.settings, watch_atom_v, caf::actor_cast<caf::actor>(self));
  if (!st.config) log::info(component, "Home Assistant not configured (settings key smarthome)");
  connect(self);
  return {
      [self](const smarthome_command& req) { return call(self, req); },
      [self](const settings_reloaded& reloaded) { reconfigure(self, reloaded.settings); },
      [self](opened_atom, std::uint64_t gen) {
        if (gen != self->state.generation) return;
        log::debug(component, "WebSocket open; authenticating");
      },
      [self](line_atom, std::uint64_t gen, const std::string& text) {
        if (gen == self->state.generation && self->state.link) on_line(self, text);
      },
      [self](closed_atom, std::uint64_t gen, const std::string& reason, std::int32_t) {
        if (gen != self->state.generation || !self->state.link) return;
        lost(self, reason);
      },
      [self](retry_atom, std::uint64_t gen) {
        if (gen == self->state.generation) connect(self);
      },
      [self](recheck_atom, std::uint64_t gen) {
        auto& st = self->state;
        if (gen != st.generation || !st.link || st.connected) return;
        lost(self,
             st.authenticated
                 ? "the states were not loaded within " + seconds_text(smarthome::setup_timeout)
                 : "no authentication within " + seconds_text(smarthome::setup_timeout));
      },
      [self](keepalive_atom, std::uint64_t gen) {
        auto& st = self->state;
        if (gen != st.generation || !st.connected) return;
        if (st.ping_unanswered)
          return lost(self, "no pong within " + seconds_text(smarthome::heartbeat_interval));
        st.ping_unanswered = true;
        send(self, smarthome::ping(next_id(self)));
        heartbeat(self);
      },
      [self](caf::timeout_atom, std::int64_t id) { call_timed_out(self, id); },
  };
}

}  // namespace mixerd
