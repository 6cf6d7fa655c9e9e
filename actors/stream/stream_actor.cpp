#include "actors/stream/stream_actor.hpp"

#include <algorithm>
#include <caf/all.hpp>

#include "actors/support/log.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "stream";
using self_ptr = stream_impl::stateful_pointer<stream_state>;
using phase = stream_state::phase;
using result = stream_outcome::result;
using nlohmann::json;

// Each request to OBS: a source switch chains three, well within the route's own wait (10 s).
constexpr auto request_limit = std::chrono::seconds(3);
// From the WebSocket's open to Identified.
constexpr auto identify_limit = std::chrono::seconds(10);
// Requests waiting for OBS at once; more are refused (busy).
constexpr std::size_t max_pending = 64;
constexpr std::size_t max_message_bytes = 4 * 1024 * 1024;

// Codes of answers mixerd makes up for a request OBS did not answer.
constexpr int code_lost = -1;     // the connection ended first
constexpr int code_timeout = -2;  // no answer within request_limit
constexpr int code_busy = -3;     // too many requests waiting

constexpr const char* not_connected_text = "Streaming software not connected";

// Delivers `out` (in a lambda that returns early, where deliver's own result would not fit).
void done(caf::typed_response_promise<stream_outcome>& rp, stream_outcome out) {
  rp.deliver(std::move(out));
}

stream_outcome refused(result what, std::string error) {
  return {what, std::move(error), {}};
}

stream_outcome failed_outcome(const stream::response& r) {
  switch (r.code) {
    case code_lost:
      return refused(result::not_connected, not_connected_text);
    case code_busy:
      return refused(result::busy, "Streaming software busy: too many requests waiting");
    case code_timeout:
      return refused(result::failed, "Streaming software did not answer in time");
    default:
      break;
  }
  std::string text = "Streaming software refused " + r.type + " (code " + std::to_string(r.code);
  if (!r.comment.empty()) text += ": " + r.comment;
  return refused(result::failed, text + ")");
}

stream::response made_up(std::string type, int code, std::string comment) {
  stream::response r;
  r.type = std::move(type);
  r.code = code;
  r.comment = std::move(comment);
  r.data = json::object();
  return r;
}

// ---- Publishing ------------------------------------------------------------------------------

void publish_view(self_ptr self) {
  self->state.view->store(self->state.now);
}

void announce_status(self_ptr self) {
  const auto& now = self->state.now;
  self->send(self->state.wiring.hub, caf::publish_atom_v,
             event{stream_status{now.connected, now.streaming, now.recording}});
}

void show_toast(self_ptr self, toast_content content) {
  if (self->state.wiring.toast)
    self->send(self->state.wiring.toast, toast_notice{"stream", std::move(content)});
}

// ---- Requests to OBS -------------------------------------------------------------------------

using answer_fn = std::function<void(const stream::response&)>;

void ask(self_ptr self, const std::string& type, json data, answer_fn answer) {
  auto& st = self->state;
  if (!st.link) return answer(made_up(type, code_lost, "not connected"));
  if (st.pending.size() >= max_pending) return answer(made_up(type, code_busy, "busy"));
  auto id = std::to_string(++st.last_id);
  st.pending.emplace(id, std::move(answer));
  st.link->send(stream::request_message(type, id, data));
  self->delayed_send(self, request_limit, deadline_atom_v, st.gen, id);
}

// Answers every waiting request with "connection lost" (their continuations may ask again:
// they find no link).
void fail_pending(self_ptr self) {
  auto waiting = std::move(self->state.pending);
  self->state.pending.clear();
  for (auto& [id, answer] : waiting)
    answer(made_up("request", code_lost, "connection lost"));
}

// ---- The connection --------------------------------------------------------------------------

void connect(self_ptr self) {
  auto& st = self->state;
  ++st.gen;
  st.at = phase::opening;
  st.garbage_reported = false;
  websocket_endpoint endpoint;
  endpoint.url = st.config.endpoint;
  endpoint.subprotocol = std::string(stream::subprotocol);
  endpoint.max_message_bytes = max_message_bytes;
  st.link =
      open_websocket(*st.wiring.io, std::move(endpoint), caf::actor_cast<caf::actor>(self), st.gen);
  self->delayed_send(self, identify_limit, deadline_atom_v, st.gen);
}

// Ends the current connection (if any): waiting requests fail, a view that showed OBS connected
// says it is not. With `retry`, the next attempt follows after the back-off.
void disconnect(self_ptr self, bool retry) {
  auto& st = self->state;
  if (st.link) st.link->close();
  st.link.reset();
  const bool was_connected = st.now.connected;
  st.at = phase::waiting;
  fail_pending(self);
  st.now = stream_view{};
  if (was_connected) {
    publish_view(self);
    announce_status(self);
  }
  if (!retry) return;
  self->delayed_send(self, st.retry.next(), retry_atom_v, st.gen);
}

// A connection that cannot go on: logged (the first failure of an outage at info, later ones
// at debug, a lost working connection at warn) and retried.
void give_up(self_ptr self, const std::string& why) {
  auto& st = self->state;
  const auto next = st.retry.upcoming().count();
  if (st.at == phase::ready)
    log::warn(component, "connection to OBS at ", st.config.url, " lost: ", why,
              "; reconnecting in ", next, " ms");
  else if (!st.down_reported)
    log::info(component, "OBS not available at ", st.config.url, ": ", why, "; retrying in ", next,
              " ms (then up to every ", st.retry.longest().count() / 1000, " s)");
  else
    log::debug(component, "OBS still not available at ", st.config.url, ": ", why);
  st.down_reported = true;
  disconnect(self, true);
}

// ---- State kept in step with OBS -------------------------------------------------------------

void refresh_sources(self_ptr self) {
  const std::string scene = self->state.now.current;
  ask(self, "GetSceneItemList", {{"sceneName", scene}}, [self, scene](const stream::response& r) {
    auto& now = self->state.now;
    if (!r.ok || now.current != scene) return;
    if (auto items = stream::scene_items_of(r.data)) {
      now.sources = std::move(*items);
      if (self->state.at == phase::ready) publish_view(self);
    }
  });
}

void set_program_scene(self_ptr self, const std::string& scene) {
  auto& st = self->state;
  if (st.now.current == scene) return;
  st.now.current = scene;
  if (st.at != phase::ready) return;
  publish_view(self);
  self->send(st.wiring.hub, caf::publish_atom_v, event{stream_change{scene}});
  show_toast(self, stream::scene_toast(scene));
  refresh_sources(self);
}

void refresh_scenes(self_ptr self) {
  ask(self, "GetSceneList", nullptr, [self](const stream::response& r) {
    if (!r.ok) return;
    auto list = stream::scene_list_of(r.data);
    if (!list) return;
    self->state.now.scenes = std::move(list->scenes);
    if (self->state.at == phase::ready) publish_view(self);
    set_program_scene(self, list->current);
  });
}

void set_output(self_ptr self, bool recording, bool active) {
  auto& st = self->state;
  bool& flag = recording ? st.now.recording : st.now.streaming;
  if (flag == active) return;
  flag = active;
  if (st.at != phase::ready) return;
  publish_view(self);
  announce_status(self);
  show_toast(self, stream::output_toast(recording, active));
}

void on_event(self_ptr self, const stream::event& e) {
  auto& now = self->state.now;
  const auto scene = stream::string_of(e.data, "sceneName");
  if (e.type == "CurrentProgramSceneChanged") {
    if (scene) set_program_scene(self, *scene);
  } else if (e.type == "SceneListChanged" || e.type == "SceneCreated" || e.type == "SceneRemoved" ||
             e.type == "SceneNameChanged") {
    refresh_scenes(self);
  } else if (e.type == "SceneItemEnableStateChanged") {
    auto enabled = e.data.find("sceneItemEnabled");
    auto id = e.data.find("sceneItemId");
    if (!scene || *scene != now.current || enabled == e.data.end() || !enabled->is_boolean() ||
        id == e.data.end() || !id->is_number_integer())
      return;
    for (auto& item : now.sources)
      if (item.id == id->get<std::int64_t>()) item.enabled = enabled->get<bool>();
    if (self->state.at == phase::ready) publish_view(self);
  } else if (e.type == "SceneItemCreated" || e.type == "SceneItemRemoved" ||
             e.type == "SceneItemListReindexed") {
    if (scene && *scene == now.current) refresh_sources(self);
  } else if (e.type == "InputNameChanged") {
    refresh_sources(self);
  } else if (e.type == "StreamStateChanged" || e.type == "RecordStateChanged") {
    if (auto active = stream::output_active_of(e.data))
      set_output(self, e.type == "RecordStateChanged", *active);
  }
}

// After Identified: the scene list, the program scene's sources, the stream and the recording
// state, one after the other; then the capability is connected.
void load(self_ptr self) {
  auto failed = [self](const stream::response& r) {
    if (r.code == code_lost) return;  // the connection ended: already handled
    give_up(self, "could not load its state: " + failed_outcome(r).error);
  };
  auto ready = [self] {
    auto& st = self->state;
    st.at = phase::ready;
    st.now.connected = true;
    st.retry.reset();
    st.down_reported = false;
    log::info(component, "connected to OBS at ", st.config.url, ": ", st.now.scenes.size(),
              " scenes, program scene '", st.now.current, "'",
              st.now.streaming ? ", streaming" : "", st.now.recording ? ", recording" : "");
    publish_view(self);
    announce_status(self);
    self->send(st.wiring.hub, caf::publish_atom_v, event{stream_change{st.now.current}});
  };
  auto outputs = [self, failed, ready] {
    ask(self, "GetStreamStatus", nullptr, [self, failed, ready](const stream::response& r) {
      if (!r.ok) return failed(r);
      self->state.now.streaming = stream::output_active_of(r.data).value_or(false);
      ask(self, "GetRecordStatus", nullptr, [self, failed, ready](const stream::response& r) {
        if (!r.ok) return failed(r);
        self->state.now.recording = stream::output_active_of(r.data).value_or(false);
        ready();
      });
    });
  };
  ask(self, "GetSceneList", nullptr, [self, failed, outputs](const stream::response& r) {
    auto list = r.ok ? stream::scene_list_of(r.data) : std::nullopt;
    if (!r.ok) return failed(r);
    if (!list) return give_up(self, "its scene list is malformed");
    auto& now = self->state.now;
    now.scenes = std::move(list->scenes);
    now.current = std::move(list->current);
    ask(self, "GetSceneItemList", {{"sceneName", now.current}},
        [self, failed, outputs](const stream::response& r) {
          if (!r.ok) return failed(r);
          auto items = stream::scene_items_of(r.data);
          if (!items) return give_up(self, "its source list is malformed");
          self->state.now.sources = std::move(*items);
          outputs();
        });
  });
}

void on_line(self_ptr self, const std::string& text) {
  auto& st = self->state;
  std::string error;
  auto msg = stream::parse_message(text, error);
  if (!msg) {
    // Ignored: one bad message does not end the connection, and the log is not flooded.
    if (!st.garbage_reported)
      log::warn(component, "ignoring a message from OBS that mixerd cannot read: ", error);
    st.garbage_reported = true;
    return;
  }
  if (auto* h = std::get_if<stream::hello>(&*msg)) {
    if (st.at != phase::opening) return;
    if (h->challenge && st.config.password.empty() && !st.down_reported)
      log::warn(component, "OBS asks for a password but the setting stream.password is empty");
    st.at = phase::identifying;
    st.link->send(stream::identify_message(*h, st.config.password));
  } else if (std::holds_alternative<stream::identified>(*msg)) {
    if (st.at != phase::identifying) return;
    st.at = phase::loading;
    load(self);
  } else if (auto* e = std::get_if<stream::event>(&*msg)) {
    if (st.at == phase::loading || st.at == phase::ready) on_event(self, *e);
  } else if (auto* r = std::get_if<stream::response>(&*msg)) {
    auto it = st.pending.find(r->id);
    if (it == st.pending.end()) return;  // answered late, after its time limit
    auto answer = std::move(it->second);
    st.pending.erase(it);
    answer(*r);
  }
}

void on_closed(self_ptr self, const std::string& reason, std::int32_t code) {
  if (code == stream::close_authentication_failed) {
    auto& st = self->state;
    if (!st.down_reported || st.at == phase::ready)
      log::warn(component, "OBS at ", st.config.url,
                " refused the password (authentication failed); retrying in ",
                st.retry.upcoming().count(), " ms");
    st.down_reported = true;
    return disconnect(self, true);
  }
  give_up(self, reason);
}

// ---- Requests of the routes and macros -------------------------------------------------------

caf::result<stream_outcome> switch_scene(self_ptr self, const stream_scene_set& req) {
  if (self->state.at != phase::ready) return refused(result::not_connected, not_connected_text);
  auto rp = self->make_response_promise<stream_outcome>();
  ask(self, "SetCurrentProgramScene", {{"sceneName", req.scene_name}},
      [self, rp, name = req.scene_name](const stream::response& r) mutable {
        if (r.ok) {
          set_program_scene(self, name);
          return done(rp, stream_outcome{result::ok, {}, {{"success", true}, {"scene", name}}});
        }
        if (r.code == stream::code_not_found)
          return done(rp, refused(result::not_found, "Scene '" + name + "' not found"));
        rp.deliver(failed_outcome(r));
      });
  return rp;
}

void set_item(self_ptr self, caf::typed_response_promise<stream_outcome> rp,
              const std::string& scene, const std::string& source, std::int64_t id, bool visible) {
  ask(self, "SetSceneItemEnabled",
      {{"sceneName", scene}, {"sceneItemId", id}, {"sceneItemEnabled", visible}},
      [self, rp, scene, source, id, visible](const stream::response& r) mutable {
        if (!r.ok) return done(rp, failed_outcome(r));
        auto& now = self->state.now;
        if (now.current == scene) {
          for (auto& item : now.sources)
            if (item.id == id) item.enabled = visible;
          publish_view(self);
        }
        rp.deliver(stream_outcome{
            result::ok, {}, {{"success", true}, {"source", source}, {"visible", visible}}});
      });
}

caf::result<stream_outcome> switch_source(self_ptr self, const stream_source_set& req) {
  if (self->state.at != phase::ready) return refused(result::not_connected, not_connected_text);
  auto rp = self->make_response_promise<stream_outcome>();
  const std::string scene = self->state.now.current;
  ask(self, "GetSceneItemId", {{"sceneName", scene}, {"sourceName", req.source_name}},
      [self, rp, scene, req](const stream::response& r) mutable {
        if (r.code == stream::code_not_found)
          return done(rp, refused(result::not_found, "Source '" + req.source_name +
                                                         "' not found in scene '" + scene + "'"));
        auto id = r.data.find("sceneItemId");
        if (!r.ok || id == r.data.end() || !id->is_number_integer())
          return done(rp, failed_outcome(r));
        const auto item = id->get<std::int64_t>();
        if (req.visible) return set_item(self, rp, scene, req.source_name, item, *req.visible);
        ask(self, "GetSceneItemEnabled", {{"sceneName", scene}, {"sceneItemId", item}},
            [self, rp, scene, source = req.source_name, item](const stream::response& r) mutable {
              auto enabled = r.data.find("sceneItemEnabled");
              if (!r.ok || enabled == r.data.end() || !enabled->is_boolean())
                return done(rp, failed_outcome(r));
              set_item(self, rp, scene, source, item, !enabled->get<bool>());
            });
      });
  return rp;
}

void on_reload(self_ptr self, const nlohmann::json& settings) {
  std::string key;
  std::string error;
  auto fresh = stream::settings_from(settings, key, error);
  auto& st = self->state;
  if (!fresh) {
    log::warn(component, "reload: ", key, " ", error, "; the running connection stays");
    return;
  }
  if (*fresh == st.config) return;
  st.config = std::move(*fresh);
  log::info(component, "settings changed: connecting to OBS at ", st.config.url);
  st.down_reported = false;
  disconnect(self, false);
  st.retry.reset();
  connect(self);
}

}  // namespace

stream_impl::behavior_type stream_behavior(stream_impl::stateful_pointer<stream_state> self,
                                           stream_wiring wiring, stream::settings config,
                                           std::shared_ptr<published<stream_view>> view) {
  auto& st = self->state;
  st.wiring = std::move(wiring);
  st.config = std::move(config);
  st.view = std::move(view);
  publish_view(self);
  if (st.wiring.settings)
    self->send(st.wiring.settings, watch_atom_v, caf::actor_cast<caf::actor>(self));
  if (st.wiring.io != nullptr) connect(self);
  return {
      [self](const stream_scene_set& req) { return switch_scene(self, req); },
      [self](const stream_source_set& req) { return switch_source(self, req); },
      [self](const settings_reloaded& reloaded) { on_reload(self, reloaded.settings); },
      [self](opened_atom, std::uint64_t gen) {
        if (gen != self->state.gen) return;
        log::debug(component, "WebSocket to OBS open; waiting for Hello");
      },
      [self](line_atom, std::uint64_t gen, const std::string& text) {
        if (gen == self->state.gen && self->state.link) on_line(self, text);
      },
      [self](closed_atom, std::uint64_t gen, const std::string& reason, std::int32_t code) {
        if (gen == self->state.gen && self->state.link) on_closed(self, reason, code);
      },
      [self](retry_atom, std::uint64_t gen) {
        if (gen == self->state.gen && self->state.at == phase::waiting) connect(self);
      },
      [self](deadline_atom, std::uint64_t gen) {
        auto& st = self->state;
        if (gen != st.gen || (st.at != phase::opening && st.at != phase::identifying)) return;
        give_up(self,
                "no Hello and Identified within " + std::to_string(identify_limit.count()) + " s");
      },
      [self](deadline_atom, std::uint64_t gen, const std::string& id) {
        auto& st = self->state;
        if (gen != st.gen) return;
        auto it = st.pending.find(id);
        if (it == st.pending.end()) return;
        auto answer = std::move(it->second);
        st.pending.erase(it);
        answer(made_up("request", code_timeout, "no answer"));
      },
  };
}

}  // namespace mixerd
