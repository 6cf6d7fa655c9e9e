#include "actors/audio/audio_actor.hpp"

#include <algorithm>
#include <caf/all.hpp>

#include "actors/support/log.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "audio";
// A stream that resets its own volume is set back at most this often per second; then once
// more when the second is over, so that a fight costs little and still ends with our value.
constexpr int max_corrections_per_second = 10;
// A stream's first moments belong to the server, not to the app: PipeWire's session manager
// (wireplumber) gives a new stream the volume it remembers for the app a few milliseconds after
// the stream appears, and may do so after we gave it the slider's level. A change reported this
// soon is set back even on a slider that leaves the app's own changes alone (enforce off).
constexpr auto settle_time = std::chrono::seconds(1);

using self_ptr = audio_impl::stateful_pointer<audio_state>;

bool busy(self_ptr self, audio_object id) {
  auto it = self->state.pending.find(id);
  return it != self->state.pending.end() && it->second > 0;
}

// Sets volume (server units) and mute of one object where the mirror says they differ; the
// mirror then holds the requested values until the server reports.
void apply(self_ptr self, audio_object id, audio_mirror& m, std::uint32_t raw, bool muted) {
  // Without channels the client can send no volume (and no acknowledgement would come).
  if (m.writable && m.channels > 0 && (m.volume_min != raw || m.volume_max != raw)) {
    self->state.client->set_volume(id, m.channels, raw);
    ++self->state.pending[id];
    m.volume_min = m.volume_max = raw;
  }
  if (m.muted != muted) {
    self->state.client->set_mute(id, muted);
    ++self->state.pending[id];
    m.muted = muted;
  }
}

bool volume_differs(const audio_mirror& m, std::uint32_t raw) {
  return m.writable && (m.volume_min != raw || m.volume_max != raw);
}

// The volume a slider's value applies, through its curve.
std::uint32_t raw_of(const audio_target& t) {
  return audio::raw_volume(audio::applied_percent(t.curve, t.volume));
}

// The slider that controls the stream, or -1: the first whose app assignment covers it, else the
// first unmapped one that does not exclude it.
int slider_of(const audio_state& st, const audio_stream_mirror& s) {
  const auto& aliases = st.policy.aliases;
  for (int i = 0; i < limits::slider_count; ++i)
    if (audio::covers(st.sliders[i].assigned, s.who, aliases)) return i;
  for (int i = 0; i < limits::slider_count; ++i)
    if (st.sliders[i].assigned.type == assignment_type::unmapped &&
        !audio::excludes(st.sliders[i].assigned, s.who, aliases))
      return i;
  return -1;
}

void apply_slider(self_ptr self, int i) {
  auto& st = self->state;
  if (!st.connected) return;
  const auto& t = st.sliders[i];
  switch (t.assigned.type) {
    case assignment_type::unassigned:
      break;
    case assignment_type::system_default_output:
      if (st.sink.known)
        apply(self, {audio_object_kind::sink, st.sink.index}, st.sink, raw_of(t), t.muted);
      break;
    case assignment_type::system_default_input:
      if (st.source.known)
        apply(self, {audio_object_kind::source, st.source.index}, st.source, raw_of(t), t.muted);
      break;
    case assignment_type::app:
    case assignment_type::unmapped:
      for (auto& [index, stream] : st.streams)
        if (slider_of(st, stream) == i)
          apply(self, {audio_object_kind::stream, index}, stream, raw_of(t), t.muted);
      break;
  }
}

void apply_master(self_ptr self) {
  auto& st = self->state;
  if (st.connected && st.sink.known)
    apply(self, {audio_object_kind::sink, st.sink.index}, st.sink,
          audio::raw_volume(st.master_volume), st.master_muted);
}

void apply_sliders_of(self_ptr self, assignment_type type) {
  for (int i = 0; i < limits::slider_count; ++i)
    if (self->state.sliders[i].assigned.type == type) apply_slider(self, i);
}

// After an assignment or alias change: each stream that now belongs to another slider gets that
// slider's level; the others are left as they are (their slider did not change).
void reassign_streams(self_ptr self) {
  auto& st = self->state;
  for (auto& [index, stream] : st.streams) {
    const int now = slider_of(st, stream);
    if (now == std::exchange(stream.slider, now) || now < 0 || !st.connected) continue;
    const auto& t = st.sliders[now];
    apply(self, {audio_object_kind::stream, index}, stream, raw_of(t), t.muted);
  }
}

audio_sessions sessions(const audio_state& st);

// Readers (the session list, the status) see the link and the streams from here.
void publish_view(self_ptr self) {
  const auto& st = self->state;
  st.view->store(audio_view{st.connected, st.server, sessions(st)});
}

void publish_status(self_ptr self) {
  const auto& st = self->state;
  publish_view(self);
  self->send(st.hub, caf::publish_atom_v, event{audio_status{st.connected, st.server}});
}

void forget_server(self_ptr self) {
  auto& st = self->state;
  st.default_sink.clear();
  st.default_source.clear();
  st.sink = {};
  st.source = {};
  st.streams.clear();
  st.pending.clear();
}

void on_link(self_ptr self, const pulse_link& link) {
  auto& st = self->state;
  if (link.connected) {
    // Announced once the server info arrives (it names the server and the defaults).
    forget_server(self);
    st.push_sink = st.push_source = true;
    st.retry.reset();
    return;
  }
  forget_server(self);
  if (st.connected) {
    st.connected = false;
    log::warn(component, "lost the audio server ", st.server, " (", link.detail,
              "); reconnecting in the background");
    publish_status(self);
    st.told_unreachable = true;
  } else if (!st.told_unreachable) {
    log::warn(component, "no audio server reachable (", link.detail,
              "); volumes are kept and applied once one is; retrying in the background");
    st.told_unreachable = true;
  } else {
    log::debug(component, "audio server still not reachable: ", link.detail);
  }
  if (st.retry_pending) return;
  st.retry_pending = true;
  self->delayed_send(self, st.retry.next(), retry_atom_v);
}

void on_defaults(self_ptr self, const pulse_defaults& d) {
  auto& st = self->state;
  if (d.sink != st.default_sink) {
    // A new default output keeps its own volume and the master follows it (like a system volume
    // indicator would); only after a (re)connect does the desired master win.
    if (!st.default_sink.empty()) st.push_sink = false;
    st.default_sink = d.sink;
    st.sink = {};
  }
  if (d.source != st.default_source) {
    st.default_source = d.source;
    st.source = {};
    st.push_source = true;  // the microphone slider has nothing to follow: it applies
  }
  if (!st.connected) {
    st.connected = true;
    st.server = d.server;
    st.told_unreachable = false;
    log::info(component, "connected to ", d.server, " (default output '", d.sink,
              "', default input '", d.source, "')");
    publish_status(self);
  }
}

void on_device(self_ptr self, const pulse_device& dev) {
  auto& st = self->state;
  bool is_sink = dev.id.kind == audio_object_kind::sink;
  if (dev.name != (is_sink ? st.default_sink : st.default_source)) return;
  auto& mirror = is_sink ? st.sink : st.source;
  mirror.known = true;
  mirror.index = dev.id.index;
  mirror.channels = dev.channels;
  // The rule: our own change wins only over what the server had before it. A report that
  // arrives while a change of ours to this object still waits for its acknowledgement was read
  // before the server applied that change: it is dropped, and the mirror keeps the values we
  // asked for (taking the old ones would make a later change of ours look like no change). Every
  // report after the acknowledgement is the truth, and one always comes: the pulse client reads
  // the object again once its last change is acknowledged (an outside change that the server
  // applied before ours, e.g. of the mute while we set the volume, is seen there).
  if (busy(self, dev.id)) return;
  mirror.volume_min = dev.volume_min;
  mirror.volume_max = dev.volume_max;
  mirror.muted = dev.muted;
  if (!is_sink) {
    if (std::exchange(st.push_source, false))
      apply_sliders_of(self, assignment_type::system_default_input);
    return;
  }
  if (std::exchange(st.push_sink, false)) {
    apply_master(self);
    apply_sliders_of(self, assignment_type::system_default_output);
    return;
  }
  int volume = audio::percent_volume(dev.volume_max);
  if (volume == st.master_volume && dev.muted == st.master_muted) return;
  st.master_volume = volume;
  st.master_muted = dev.muted;
  log::debug(component, "default output changed outside mixerd: ", volume, "%",
             dev.muted ? ", muted" : "");
  // With the number of the mixer's latest master change this actor has applied: an observation
  // made before a newer change reached it is older than that change, which the mixer keeps.
  for (const auto& w : st.watchers)
    caf::anon_send(w, master_observed{volume, dev.muted, st.master_seq});
}

// Sets a stream back to its slider's level, unless it has been set back too often this second.
void enforce(self_ptr self, std::uint32_t index, audio_stream_mirror& s, const audio_target& t) {
  auto now = std::chrono::steady_clock::now();
  if (now - s.window_start >= std::chrono::seconds(1)) {
    s.window_start = now;
    s.corrections = 0;
  }
  if (s.corrections >= max_corrections_per_second) {
    if (!s.recheck_scheduled) {
      s.recheck_scheduled = true;
      log::info(component, "'", audio::session_name(s.who),
                "' keeps changing its own volume; setting it back once a second");
      self->delayed_send(self, std::chrono::seconds(1), recheck_atom_v, index);
    }
    return;
  }
  ++s.corrections;
  apply(self, {audio_object_kind::stream, index}, s, raw_of(t), t.muted);
}

// Policy follow: the app's own volume becomes the slider's value (the mixer sets it, and sends
// the level back for the slider's other streams). Its own mute is left as it chose.
void follow(self_ptr self, int i, const audio_stream_mirror& s) {
  const auto& t = self->state.sliders[i];
  if (!volume_differs(s, raw_of(t))) return;
  const int value = audio::slider_value_for(t.curve, audio::exact_percent(s.volume_max));
  log::debug(component, "'", audio::session_name(s.who), "' changed its own volume; slider ", i + 1,
             " follows to ", value);
  for (const auto& w : self->state.watchers)
    caf::anon_send(w, app_level_observed{i, value, t.seq});
}

void on_stream(self_ptr self, const pulse_stream& in) {
  auto& st = self->state;
  auto& s = st.streams[in.index];
  s.who = in.who;
  s.channels = in.channels;
  s.volume_min = in.volume_min;
  s.volume_max = in.volume_max;
  s.muted = in.muted;
  s.writable = in.volume_writable;
  auto now = std::chrono::steady_clock::now();
  if (in.fresh) s.appeared = now;
  int i = s.slider = slider_of(st, s);
  if (i < 0) return;
  const auto& t = st.sliders[i];
  audio_object id{audio_object_kind::stream, in.index};
  if (in.fresh) {
    log::debug(component, "stream '", audio::session_name(s.who), "' appeared; giving it slider ",
               i + 1, "'s level");
    apply(self, id, s, raw_of(t), t.muted);
  } else if (busy(self, id)) {
    return;  // our own change is still on its way
  } else if (now - s.appeared < settle_time) {
    // The server's late restore of a remembered level (wireplumber) is no choice of the app's:
    // it is set back whatever the policy, and never followed.
    if (s.muted != t.muted || volume_differs(s, raw_of(t))) enforce(self, in.index, s, t);
  } else if (!t.enforce) {
    return;  // the app's changes are left alone
  } else if (st.policy.follow) {
    follow(self, i, s);
  } else if (s.muted != t.muted || volume_differs(s, raw_of(t))) {
    enforce(self, in.index, s, t);
  }
}

void on_recheck(self_ptr self, std::uint32_t index) {
  auto& st = self->state;
  auto it = st.streams.find(index);
  if (it == st.streams.end()) return;
  auto& s = it->second;
  s.recheck_scheduled = false;
  s.corrections = 0;
  s.window_start = std::chrono::steady_clock::now();
  int i = slider_of(st, s);
  if (i >= 0 && st.sliders[i].enforce && !st.policy.follow)
    apply(self, {audio_object_kind::stream, index}, s, raw_of(st.sliders[i]), st.sliders[i].muted);
}

// One entry per app (its streams share a session name), in the order the server listed them.
audio_sessions sessions(const audio_state& st) {
  audio_sessions list;
  for (const auto& [index, s] : st.streams) {
    auto name = audio::session_name(s.who);
    if (name.empty()) continue;
    auto known = std::find_if(list.begin(), list.end(), [&](const audio_session& entry) {
      return audio::same_app(entry.name, name);
    });
    if (known != list.end()) {
      ++known->streams;
      continue;
    }
    audio_session entry;
    entry.name = std::string(name);
    entry.display_name = s.who.name.empty() ? entry.name : s.who.name;
    entry.who = s.who;
    entry.streams = 1;
    entry.slider = slider_of(st, s);
    if (s.volume_max > 0 || s.volume_min == 0) entry.volume = audio::exact_percent(s.volume_max);
    entry.muted = s.muted;
    list.push_back(std::move(entry));
  }
  return list;
}

}  // namespace

audio_impl::behavior_type audio_behavior(audio_impl::stateful_pointer<audio_state> self,
                                         hub_actor hub, settings_actor settings,
                                         const mixer_snapshot& initial, audio_policy policy,
                                         std::shared_ptr<published<audio_view>> view) {
  auto& st = self->state;
  st.policy = std::move(policy);
  for (int i = 0; i < limits::slider_count; ++i) {
    const auto& s = initial.sliders[i];
    st.sliders[i] = audio_target{s.assigned, s.enforce_volume, s.curve, s.value, s.muted, 0};
  }
  st.master_volume = initial.master_volume;
  st.master_muted = initial.mutes.master;
  st.hub = std::move(hub);
  st.view = std::move(view);
  publish_view(self);
  self->send(settings, watch_atom_v, caf::actor_cast<caf::actor>(self));
  st.client = std::make_unique<pulse_client>(caf::actor_cast<caf::actor>(self));
  st.client->connect();
  return {
      [self](const pulse_link& link) { on_link(self, link); },
      [self](retry_atom) {
        self->state.retry_pending = false;
        self->state.client->connect();
      },
      [self](const pulse_defaults& d) { on_defaults(self, d); },
      [self](const pulse_device& d) { on_device(self, d); },
      [self](const pulse_stream& s) {
        on_stream(self, s);
        publish_view(self);  // the session list shows each app's applied volume
      },
      [self](const pulse_stream_gone& gone) {
        self->state.streams.erase(gone.index);
        self->state.pending.erase({audio_object_kind::stream, gone.index});
        publish_view(self);
      },
      [self](const pulse_op_done& done) {
        auto it = self->state.pending.find(done.target);
        if (it != self->state.pending.end() && --it->second <= 0) self->state.pending.erase(it);
      },
      [self](recheck_atom, std::uint32_t index) { on_recheck(self, index); },
      [self](const audio_slider_target& t) {
        if (t.index < 0 || t.index >= limits::slider_count) return;
        auto& target = self->state.sliders[t.index];
        target.assigned = t.assigned;
        target.enforce = t.enforce;
        target.curve = t.curve;
        apply_slider(self, t.index);
        // An app or unmapped assignment may take streams from another slider or give them back.
        reassign_streams(self);
        publish_view(self);
      },
      [self](const settings_reloaded& reloaded) {
        self->state.policy = audio_policy_from_settings(reloaded.settings);
        reassign_streams(self);  // aliases may match other streams now
        publish_view(self);
      },
      [self](const audio_slider_level& l) {
        if (l.index < 0 || l.index >= limits::slider_count) return;
        auto& target = self->state.sliders[l.index];
        target.volume = l.volume;
        target.muted = l.muted;
        target.seq = l.seq;
        apply_slider(self, l.index);
      },
      [self](const audio_master_level& m) {
        self->state.master_volume = m.volume;
        self->state.master_muted = m.muted;
        self->state.master_seq = m.seq;
        apply_master(self);
      },
      [self](watch_atom, const caf::actor& watcher) { self->state.watchers.push_back(watcher); },
      [self](caf::get_atom, sessions_atom) { return sessions(self->state); },
  };
}

}  // namespace mixerd
