#include "actors/mixer/mixer_actor.hpp"

#include <algorithm>
#include <caf/all.hpp>
#include <type_traits>

#include "actors/support/log.hpp"
#include "protocol/json.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "mixer";
using self_ptr = mixer_actor::stateful_pointer<mixer_state>;

int clamp_volume(int v) {
  return std::clamp(v, limits::volume_min, limits::volume_max);
}

// Every change is published as an event; the view for readers follows once the message that
// caused it is handled (one view per message, however many changes it made).
void publish(self_ptr self, event e) {
  self->state.changed = true;
  self->send(self->state.wiring.hub, caf::publish_atom_v, std::move(e));
}

void publish_view(self_ptr self) {
  auto& st = self->state;
  st.changed = false;
  st.view->store(mixer_view_of(st.mix));
}

// Runs a handler's work, then publishes the view if it changed anything.
template <class Work>
auto changing(self_ptr self, Work work) {
  if constexpr (std::is_void_v<decltype(work())>) {
    work();
    if (self->state.changed) publish_view(self);
  } else {
    auto result = work();
    if (self->state.changed) publish_view(self);
    return result;
  }
}

void to_device(self_ptr self, protocol::host_command cmd) {
  self->send(self->state.wiring.device, std::move(cmd));
}

protocol::cmd_vol vol_command(const mixer_snapshot& mix, int i) {
  return {i, mix.sliders[i].label, mix.sliders[i].value};
}

// The audio actor gets every change of what the server should play.
void audio_level(self_ptr self, int i) {
  auto& st = self->state;
  const auto& s = st.mix.sliders[i];
  self->send(st.wiring.audio, audio_slider_level{i, s.value, s.muted, ++st.level_seq[i]});
}

void audio_target(self_ptr self, int i) {
  const auto& s = self->state.mix.sliders[i];
  self->send(self->state.wiring.audio,
             audio_slider_target{i, s.assigned, s.enforce_volume, s.curve});
}

void publish_slider(self_ptr self, int i) {
  const auto& s = self->state.mix.sliders[i];
  publish(self, slider_change{i + 1, s.value, s.position, s.pickup});
}

void audio_master(self_ptr self) {
  const auto& mix = self->state.mix;
  self->send(self->state.wiring.audio,
             audio_master_level{mix.master_volume, mix.mutes.master, ++self->state.master_seq});
}

void persist_sliders(self_ptr self) {
  auto list = nlohmann::json::array();
  for (const auto& s : self->state.mix.sliders) {
    nlohmann::json slider = {{"label", s.label},
                             {"assignment", json::to_json(s.assigned)},
                             {"enforce_volume", s.enforce_volume}};
    volume_curve_to_json(s.curve, slider);
    list.push_back(std::move(slider));
  }
  self->send(self->state.wiring.settings, caf::put_atom_v, std::string("sliders"), std::move(list));
}

// The values are live state of their own key: a slider move rewrites no configuration.
void persist_values(self_ptr self) {
  auto list = nlohmann::json::array();
  for (const auto& s : self->state.mix.sliders)
    list.push_back(s.value);
  self->send(self->state.wiring.settings, caf::put_atom_v, std::string("slider_values"),
             std::move(list));
}

void persist_mutes(self_ptr self) {
  self->send(self->state.wiring.settings, caf::put_atom_v, std::string("mutes"),
             json::mutes_to_json(self->state.mix.mutes));
}

// Everything the device shows, after (re)connect: labels and volumes, mutes, master volume.
void push_all(self_ptr self) {
  const auto& mix = self->state.mix;
  for (int i = 0; i < limits::slider_count; ++i)
    to_device(self, vol_command(mix, i));
  for (int i = 0; i < limits::mute_count; ++i)
    to_device(self, protocol::cmd_mute{i, mix.mutes.individual[i]});
  to_device(self, protocol::cmd_mute{protocol::master_index, mix.mutes.master});
  to_device(self, protocol::cmd_master{mix.master_volume});
}

// A physical slider within this of the value picks it up.
constexpr int pickup_reach = 2;

int direction(int from, int to) {
  return (to > from) - (to < from);
}

// Is the device reading `at` (after `before`) a pick-up of the slider's value?
bool picks_up(const slider_state& slider, std::optional<int> before, int at) {
  if (std::abs(at - slider.value) <= pickup_reach) return true;
  if (!before) return false;
  const int was = direction(slider.value, *before);
  return was != 0 && direction(slider.value, at) != was;  // crossed it
}

// A reading of the physical slider (protocol/README.md, "Sliders": pick-up and deadband).
void on_slider(self_ptr self, const protocol::dev_slider& in) {
  auto& st = self->state;
  const int i = in.index;
  auto& slider = st.mix.sliders[i];
  const auto before = std::exchange(slider.position, in.value);
  if (before != slider.position) st.changed = true;
  if (slider.pickup) {
    if (!picks_up(slider, before, in.value)) {
      // Only the ghost mark moves: the value set elsewhere holds.
      if (before != slider.position) publish_slider(self, i);
      return;
    }
    slider.pickup = false;
    st.last_move[i] = 0;
    if (slider.value == in.value) return publish_slider(self, i);
  } else {
    const int move = direction(slider.value, in.value);
    if (move == 0) return;
    // A noisy potentiometer: a small step back against the last move is no move.
    if (std::abs(in.value - slider.value) <= st.policy.deadband && st.last_move[i] != 0 &&
        move != st.last_move[i])
      return;
  }
  st.last_move[i] = direction(slider.value, in.value);
  slider.value = in.value;
  audio_level(self, i);
  persist_values(self);
  // The device knows where its own slider is: nothing goes back.
  publish_slider(self, i);
}

// The value was set by something other than the physical slider: its readings wait until it is
// picked up (unless it already stands there, or the takeover is "jump").
void await_pickup(self_ptr self, int i) {
  auto& slider = self->state.mix.sliders[i];
  slider.pickup = self->state.policy.pickup &&
                  !(slider.position && std::abs(*slider.position - slider.value) <= pickup_reach);
}

void apply_mute(self_ptr self, int index, bool muted) {
  auto& mix = self->state.mix;
  if (index == protocol::master_index) {
    mix.mutes.master = muted;
    audio_master(self);
  } else {
    mix.mutes.individual[index] = muted;
    mix.sliders[index].muted = muted;
    audio_level(self, index);
  }
  to_device(self, protocol::cmd_mute{index, muted});
  publish(self, mute_change{index == protocol::master_index ? index : index + 1, muted});
  persist_mutes(self);
}

void on_mute_press(self_ptr self, const protocol::dev_mute_press& in) {
  const auto& mutes = self->state.mix.mutes;
  bool now = in.index == protocol::master_index ? mutes.master : mutes.individual[in.index];
  apply_mute(self, in.index, !now);
}

// The device and the clients learn the new master volume; the settings keep it.
void master_volume_changed(self_ptr self) {
  int volume = self->state.mix.master_volume;
  to_device(self, protocol::cmd_master{volume});
  publish(self, volume_change{volume});
  self->send(self->state.wiring.settings, caf::put_atom_v, std::string("master_volume"),
             nlohmann::json(volume));
}

void change_master_volume(self_ptr self, int volume) {
  auto& mix = self->state.mix;
  volume = clamp_volume(volume);
  if (volume == mix.master_volume) {
    // An encoder turn at the end stop is still a request: tell the device the (same) result.
    to_device(self, protocol::cmd_master{volume});
    return;
  }
  mix.master_volume = volume;
  audio_master(self);
  master_volume_changed(self);
}

// Someone changed the default sink outside mixerd: that is the state now. The audio server
// already has it, so nothing goes back to the audio actor.
void on_master_observed(self_ptr self, const master_observed& seen) {
  // The rule: our own change wins only over observations older than it. `seen.seq` names the
  // latest master change of ours that the audio actor had applied when it saw the sink; an older
  // one crossed a newer change on its way here, and that change, applied after it, overwrites
  // the sink. Anything the audio actor saw after applying our latest change is the truth (it
  // drops the reports that predate the server's acknowledgement of it).
  if (seen.seq < self->state.master_seq) return;
  auto& mix = self->state.mix;
  if (seen.volume != mix.master_volume) {
    mix.master_volume = clamp_volume(seen.volume);
    master_volume_changed(self);
  }
  if (seen.muted != mix.mutes.master) {
    mix.mutes.master = seen.muted;
    to_device(self, protocol::cmd_mute{protocol::master_index, seen.muted});
    publish(self, mute_change{protocol::master_index, seen.muted});
    persist_mutes(self);
  }
}

// A value set through the API: unlike a device report, the device must be told.
int set_slider(self_ptr self, const set_slider_value& req) {
  auto& slider = self->state.mix.sliders[req.index];
  int value = clamp_volume(req.value);
  if (slider.value != value) {
    slider.value = value;
    await_pickup(self, req.index);
    audio_level(self, req.index);
    to_device(self, vol_command(self->state.mix, req.index));
    persist_values(self);
    publish_slider(self, req.index);
  }
  return value;
}

assignment assign_slider(self_ptr self, const set_slider_assignment& req) {
  auto& slider = self->state.mix.sliders[req.index];
  const std::string& label = req.label ? *req.label : slider.label;
  bool enforce = req.enforce_volume ? *req.enforce_volume : slider.enforce_volume;
  if (slider.assigned == req.assigned && slider.label == label && slider.enforce_volume == enforce)
    return slider.assigned;
  slider.assigned = req.assigned;
  slider.label = label;
  slider.enforce_volume = enforce;
  // Desired state: the newly assigned target takes the slider's position and mute at once.
  audio_target(self, req.index);
  to_device(self, vol_command(self->state.mix, req.index));
  publish(self, assignment_change{req.index + 1, slider.assigned, slider.label});
  persist_sliders(self);
  return slider.assigned;
}

// A profile load: each difference is applied as its own request would apply it, so every one
// emits its usual event and reaches the device and the audio server.
bool apply_mix(self_ptr self, const mixer_snapshot& next) {
  for (int i = 0; i < limits::slider_count; ++i) {
    const auto& s = next.sliders[i];
    assign_slider(self, set_slider_assignment{i, s.assigned, s.label, s.enforce_volume});
    set_slider(self, set_slider_value{i, s.value});
  }
  const auto& mutes = self->state.mix.mutes;
  for (int i = 0; i < limits::mute_count; ++i)
    if (next.mutes.individual[i] != mutes.individual[i])
      apply_mute(self, i, next.mutes.individual[i]);
  if (next.mutes.master != mutes.master)
    apply_mute(self, protocol::master_index, next.mutes.master);
  if (next.master_volume != self->state.mix.master_volume)
    change_master_volume(self, next.master_volume);
  return true;
}

// An app moved its own volume (policy follow): the slider follows, as if set through the API.
void on_app_level(self_ptr self, const app_level_observed& seen) {
  if (seen.index < 0 || seen.index >= limits::slider_count) return;
  // As with the master: an observation older than the slider's latest change is dropped.
  if (seen.seq < self->state.level_seq[seen.index]) return;
  set_slider(self, set_slider_value{seen.index, seen.value});
}

// The device (re)connected: it shows the state, and on a reconnect its sliders (moved meanwhile,
// or not) pick the values up rather than set them. At the first connect only the values
// restored at start-up wait.
void on_device_link(self_ptr self, bool connected) {
  auto& st = self->state;
  for (int i = 0; i < limits::slider_count; ++i) {
    auto& slider = st.mix.sliders[i];
    if (slider.position) st.changed = true;
    slider.position.reset();
    if (connected && st.device_seen && st.policy.pickup && !slider.pickup) {
      slider.pickup = true;
      publish_slider(self, i);
    }
  }
  if (!connected) return;
  st.device_seen = true;
  push_all(self);
}

// ---- Hold buttons: the holds are kept in mixer_holds.hpp; each names the state to apply -------

bool muted_now(self_ptr self, int index) {
  const auto& m = self->state.mix.mutes;
  return index == protocol::master_index ? m.master : m.individual[index];
}

bool apply_held(self_ptr self, int index, std::optional<bool> wanted) {
  if (wanted && *wanted != muted_now(self, index)) apply_mute(self, index, *wanted);
  return muted_now(self, index);
}

bool hold_mute(self_ptr self, const mute_hold& req) {
  const bool now = muted_now(self, req.index);
  return apply_held(self, req.index, self->state.holds.hold(req.index, now, req.muted, req.holder));
}

bool release_mute(self_ptr self, const mute_release& req) {
  return apply_held(self, req.index, self->state.holds.release(req.index, req.holder));
}

void on_device_input(self_ptr self, const protocol::device_event& input) {
  if (auto s = std::get_if<protocol::dev_slider>(&input)) {
    on_slider(self, *s);
  } else if (auto m = std::get_if<protocol::dev_mute_press>(&input)) {
    on_mute_press(self, *m);
  } else if (auto e = std::get_if<protocol::dev_encoder_turn>(&input)) {
    change_master_volume(self, self->state.mix.master_volume + e->delta * limits::encoder_step);
  }
}

// A hand-edited settings file (SIGHUP) may rename or reassign sliders, change mutes or the
// master volume.
void on_settings_reloaded(self_ptr self, const nlohmann::json& settings) {
  auto fresh = mixer_from_settings(settings);
  auto& st = self->state;
  auto& mix = st.mix;
  st.policy = slider_policy_from_settings(settings);
  for (int i = 0; i < limits::slider_count; ++i) {
    auto& cur = mix.sliders[i];
    const auto& next = fresh.sliders[i];
    if (cur.pickup && !st.policy.pickup) {
      cur.pickup = false;  // takeover "jump" now: the next reading drives
      publish_slider(self, i);
    }
    if (cur.curve != next.curve) {
      cur.curve = next.curve;
      st.changed = true;
      if (cur.assigned == next.assigned) audio_target(self, i);
    }
    if (cur.label == next.label && cur.assigned == next.assigned &&
        cur.enforce_volume == next.enforce_volume)
      continue;
    cur.label = next.label;
    cur.assigned = next.assigned;
    cur.enforce_volume = next.enforce_volume;
    audio_target(self, i);
    to_device(self, vol_command(mix, i));
    publish(self, assignment_change{i + 1, cur.assigned, cur.label});
  }
  for (int i = 0; i < limits::mute_count; ++i)
    if (fresh.mutes.individual[i] != mix.mutes.individual[i])
      apply_mute(self, i, fresh.mutes.individual[i]);
  if (fresh.mutes.master != mix.mutes.master)
    apply_mute(self, protocol::master_index, fresh.mutes.master);
  if (fresh.master_volume != mix.master_volume) change_master_volume(self, fresh.master_volume);
}

}  // namespace

mixer_view mixer_view_of(const mixer_snapshot& mix) {
  mixer_view view;
  view.mix = mix;
  return view;
}

mixer_snapshot mixer_from_settings(const nlohmann::json& settings) {
  mixer_snapshot mix;
  for (int i = 0; i < limits::slider_count; ++i)
    mix.sliders[i].label = default_slider_label(i + 1);
  if (auto it = settings.find("sliders"); it != settings.end() && it->is_array()) {
    for (std::size_t i = 0; i < it->size() && i < mix.sliders.size(); ++i) {
      const auto& s = (*it)[i];
      if (!s.is_object()) continue;
      if (auto label = s.find("label"); label != s.end() && label->is_string())
        mix.sliders[i].label = label->get<std::string>();
      if (auto a = s.find("assignment"); a != s.end()) {
        std::string why;
        if (auto parsed = json::assignment_from_json(*a, why)) mix.sliders[i].assigned = *parsed;
      }
      if (auto e = s.find("enforce_volume"); e != s.end() && e->is_boolean())
        mix.sliders[i].enforce_volume = e->get<bool>();
      mix.sliders[i].curve = volume_curve_from_json(s);
    }
  }
  if (auto it = settings.find("slider_values"); it != settings.end() && it->is_array())
    for (std::size_t i = 0; i < it->size() && i < mix.sliders.size(); ++i)
      if ((*it)[i].is_number_integer()) mix.sliders[i].value = clamp_volume((*it)[i].get<int>());
  if (auto it = settings.find("mutes"); it != settings.end() && it->is_object()) {
    if (auto ind = it->find("individual"); ind != it->end() && ind->is_array())
      for (std::size_t i = 0; i < ind->size() && i < mix.mutes.individual.size(); ++i)
        if ((*ind)[i].is_boolean()) mix.mutes.individual[i] = (*ind)[i].get<bool>();
    if (auto m = it->find("master"); m != it->end() && m->is_boolean())
      mix.mutes.master = m->get<bool>();
  }
  for (int i = 0; i < limits::slider_count; ++i)
    mix.sliders[i].muted = mix.mutes.individual[i];
  if (auto v = settings.find("master_volume"); v != settings.end() && v->is_number_integer())
    mix.master_volume = clamp_volume(v->get<int>());
  return mix;
}

mixer_actor::behavior_type mixer_behavior(mixer_actor::stateful_pointer<mixer_state> self,
                                          mixer_wiring wiring, nlohmann::json settings,
                                          std::shared_ptr<published<mixer_view>> view) {
  auto& st = self->state;
  st.mix = mixer_from_settings(settings);
  st.policy = slider_policy_from_settings(settings);
  // Restored values hold until their physical sliders pick them up.
  if (auto it = settings.find("slider_values"); it != settings.end() && it->is_array())
    for (std::size_t i = 0; i < it->size() && i < st.mix.sliders.size(); ++i)
      st.mix.sliders[i].pickup = st.policy.pickup;
  st.wiring = std::move(wiring);
  st.view = std::move(view);
  publish_view(self);
  self->send(st.wiring.settings, watch_atom_v, caf::actor_cast<caf::actor>(self));
  self->send(st.wiring.audio, watch_atom_v, caf::actor_cast<caf::actor>(self));
  return {
      [self](caf::get_atom) { return self->state.mix; },
      [self](const event& e) {
        changing(self, [&] {
          if (auto in = e.get_if<device_input>()) {
            on_device_input(self, in->input);
          } else if (auto status = e.get_if<device_status>()) {
            on_device_link(self, status->connected);
          }
        });
      },
      [self](const master_observed& seen) {
        changing(self, [&] { on_master_observed(self, seen); });
      },
      [self](const app_level_observed& seen) { changing(self, [&] { on_app_level(self, seen); }); },
      [self](const settings_reloaded& reloaded) {
        changing(self, [&] { on_settings_reloaded(self, reloaded.settings); });
      },
      [self](const set_slider_value& req) {
        return changing(self, [&] { return set_slider(self, req); });
      },
      [self](const set_slider_assignment& req) {
        return changing(self, [&] { return assign_slider(self, req); });
      },
      [self](const set_mute& req) {
        return changing(self, [&] {
          const auto& m = self->state.mix.mutes;
          const bool now = req.index == protocol::master_index ? m.master : m.individual[req.index];
          if (now != req.muted) apply_mute(self, req.index, req.muted);
          return now != req.muted;
        });
      },
      [self](const toggle_mute& req) {
        return changing(self, [&] {
          on_mute_press(self, protocol::dev_mute_press{req.index});
          const auto& m = self->state.mix.mutes;
          return req.index == protocol::master_index ? m.master : m.individual[req.index];
        });
      },
      [self](const set_master_volume& req) {
        return changing(self, [&] {
          change_master_volume(self, req.volume);
          return self->state.mix.master_volume;
        });
      },
      [self](const mixer_apply& req) {
        return changing(self, [&] { return apply_mix(self, req.mix); });
      },
      [self](const mute_hold& req) { return changing(self, [&] { return hold_mute(self, req); }); },
      [self](const mute_release& req) {
        return changing(self, [&] { return release_mute(self, req); });
      },
  };
}

}  // namespace mixerd
