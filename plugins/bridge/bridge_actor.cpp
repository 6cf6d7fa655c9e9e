#include "plugins/bridge/bridge_actor.hpp"

#include <algorithm>
#include <caf/all.hpp>

#include "actors/support/back_off.hpp"
#include "actors/support/log.hpp"
#include "plugins/bridge/bridge_internal.hpp"
#include "protocol/json.hpp"
#include "protocol/metrics.hpp"

namespace mixerd {

namespace bridge {

namespace {

constexpr std::string_view component = "plugins";
// After the daemon's stop grace and the kill, the processes' ends are awaited this long more.
constexpr auto final_wait = std::chrono::milliseconds(500);
// Bad lines logged per process (a plugin printing garbage must not flood the log).
constexpr int max_logged_bad_lines = 10;

using phase = plugin_entry::phase;
using timer = plugin_timer::kind;

}  // namespace

bool is_loaded(const plugin_entry& p) {
  return p.ph == phase::loading || p.ph == phase::running;
}

bool is_runnable(const plugin_entry& p) {
  return p.info.state != plugin_state::invalid && p.info.state != plugin_state::incompatible;
}

void publish(self_ptr self) {
  auto& st = self->state;
  plugins_view view;
  bool any_running = false;
  for (const auto& [id, p] : st.plugins) {
    view.plugins.push_back(p.info);
    if (!p.m.schema.empty()) view.settings_schemas[id] = plugins::schema_to_json(p.m.schema);
    any_running = any_running || p.info.state == plugin_state::running;
    auto& last = st.published_infos[id];
    const auto& now = p.info;
    if (last.state != now.state || last.enabled != now.enabled || last.restarts != now.restarts ||
        last.last_error != now.last_error || last.name != now.name || last.version != now.version ||
        last.api_version != now.api_version || last.id != now.id) {
      last = now;
      if (st.wiring.hub) self->send(st.wiring.hub, caf::publish_atom_v, event{plugin_status{now}});
    }
  }
  st.view->store(std::move(view));
  if (any_running != st.loaded && st.wiring.commands) {
    st.loaded = any_running;
    // The `plugins` toast handler is loaded while a plugin runs.
    command_origin origin;
    origin.from = command_origin::front_end::plugin;
    origin.grants = {commands::permission::local};
    origin.who = "plugins";
    st.wiring.commands->run(self, std::move(origin), "toast.handler_loaded",
                            {{"id", "plugins"}, {"loaded", any_running}}, [](command_result) {});
  }
}

namespace {

void answer_ask(self_ptr self, std::uint64_t ask, bool handled) {
  auto& asks = self->state.asks;
  auto it = asks.find(ask);
  if (it == asks.end()) return;
  if (handled || --it->second.waiting <= 0) {
    it->second.promise.deliver(handled);
    asks.erase(it);
  }
}

void answer_run(self_ptr self, std::uint64_t run, plugin_macro_outcome outcome) {
  auto& runs = self->state.runs;
  auto it = runs.find(run);
  if (it == runs.end()) return;
  it->second.deliver(std::move(outcome));
  runs.erase(it);
}

// A hook item that will not be answered: its asker gets the "not handled" answer.
void abandon(self_ptr self, const plugin_entry& p, const hook_item& item, const std::string& why) {
  if (item.ask != 0) answer_ask(self, item.ask, false);
  if (item.run != 0) answer_run(self, item.run, {false, "plugin " + p.info.id + " " + why});
}

void pump(self_ptr self, plugin_entry& p);

}  // namespace

void enqueue(self_ptr self, plugin_entry& p, hook_item item) {
  if (p.queue.size() >= plugins::max_queued_hooks) {
    // The oldest ordinary hook goes; the lifecycle steps stay.
    auto victim = std::find_if(p.queue.begin(), p.queue.end(),
                               [](const hook_item& i) { return i.what == hook_item::kind::hook; });
    if (victim != p.queue.end()) {
      abandon(self, p, *victim, "dropped the hook (queue full)");
      p.queue.erase(victim);
      if (p.dropped++ % 1000 == 0)
        log::warn(component_of(p), "hook queue full (", plugins::max_queued_hooks,
                  "): dropping the oldest; ", p.dropped, " dropped so far");
    }
  }
  p.queue.push_back(std::move(item));
  pump(self, p);
}

namespace {

void send_hook(self_ptr self, plugin_entry& p, hook_item item) {
  p.current_id = ++p.next_hook_id;
  p.proc->send(plugins::encode_hook(p.current_id, item.hook, item.args));
  p.current = std::move(item);
  self->delayed_send(self, plugins::hook_timeout,
                     plugin_timer{timer::hook, p.info.id, p.gen, p.current_id});
}

// Sends the next queued hook when none is out; lifecycle steps are taken on the way.
void pump(self_ptr self, plugin_entry& p) {
  while (!p.current && p.proc && !p.queue.empty()) {
    auto item = std::move(p.queue.front());
    p.queue.pop_front();
    switch (item.what) {
      case hook_item::kind::became_running:
        p.ph = phase::running;
        p.info.state = plugin_state::running;
        log::info(component_of(p), "running");
        publish(self);
        break;
      case hook_item::kind::close_input:
        p.proc->close_input();
        self->delayed_send(self, plugins::stop_grace,
                           plugin_timer{timer::stop_grace, p.info.id, p.gen, 0});
        return;
      case hook_item::kind::hook:
        // Hooks its class does not override are not sent (register_macro_type's handlers are).
        if (item.hook != "macro_type" && p.hooks.count(item.hook) == 0) {
          abandon(self, p, item, "has no " + item.hook);
          break;
        }
        return send_hook(self, p, std::move(item));
    }
  }
}

}  // namespace

void start_enabled(self_ptr self) {
  for (auto& [id, p] : self->state.plugins)
    if (p.info.enabled && is_runnable(p) && !p.proc) start(self, p);
}

void start(self_ptr self, plugin_entry& p) {
  auto& st = self->state;
  if (!st.io) st.io = std::make_unique<plugin_io>();
  plugin_process_spec spec;
  spec.id = p.info.id;
  spec.gen = ++p.gen;
  spec.folder = p.folder;
  spec.sdk_dir = st.wiring.sdk_dir;
  spec.program = st.wiring.python;
  spec.owner = caf::actor_cast<caf::actor>(self);
  p.proc = start_plugin_process(*st.io, std::move(spec));
  p.ph = phase::waiting_ready;
  p.hooks.clear();
  p.queue.clear();
  p.current.reset();
  p.pending_error.clear();
  p.stop_requested = false;
  p.start_after_stop = false;
  p.calls_in_window = 0;
  p.bad_lines = 0;
  p.info.state = plugin_state::starting;
  p.proc->send(plugins::encode_init(p.m, p.folder));
  self->delayed_send(self, plugins::hook_timeout, plugin_timer{timer::ready, p.info.id, p.gen, 0});
  log::info(component_of(p), "starting (", p.m.name, " ", p.m.version, ")");
  publish(self);
}

namespace {

// Ends the plugin's process gently: on_disable (when disabled) and on_unload after the hook now
// out, then its input closed and, 2 s later, the kill.
}  // namespace

void begin_stop(self_ptr self, plugin_entry& p, bool disabling) {
  p.stop_requested = true;
  if (!p.proc) return;
  for (auto& item : p.queue)
    abandon(self, p, item, "is stopping");
  p.queue.clear();
  if (!is_loaded(p)) return kill_plugin(p, "stopped before it was ready");
  p.ph = phase::stopping;
  if (disabling) p.queue.push_back({hook_item::kind::hook, "on_disable", nlohmann::json::array()});
  p.queue.push_back({hook_item::kind::hook, "on_unload", nlohmann::json::array()});
  p.queue.push_back({hook_item::kind::close_input, {}, {}});
  pump(self, p);
}

namespace {

void maybe_quit(self_ptr self) {
  auto& st = self->state;
  if (!st.stopping) return;
  for (const auto& [id, p] : st.plugins)
    if (p.proc) return;
  self->quit(st.exit_reason);
}

void on_ended(self_ptr self, plugin_entry& p, const std::string& reason) {
  auto& st = self->state;
  p.proc.reset();
  if (p.current) abandon(self, p, *p.current, "ended: " + reason);
  for (auto& item : p.queue)
    abandon(self, p, item, "ended: " + reason);
  p.current.reset();
  p.queue.clear();
  p.hooks.clear();
  for (auto it = st.macro_types.begin(); it != st.macro_types.end();)
    it = it->second == p.info.id ? st.macro_types.erase(it) : std::next(it);
  const bool was_loaded = is_loaded(p) || p.ph == phase::stopping;
  p.ph = phase::down;
  if (st.stopping) {
    p.info.state = plugin_state::stopped;
    publish(self);
    return maybe_quit(self);
  }
  if (p.stop_requested) {
    log::info(component_of(p), "stopped");
    p.info.state = plugin_state::stopped;
    if (p.start_after_stop && p.info.enabled) return start(self, p);
    return publish(self);
  }
  // A crash: an exit, a kill for a rule, or a fatal load.
  const auto why = p.pending_error.empty() ? reason : p.pending_error;
  p.info.last_error = why;
  const auto now = clock::now();
  p.crashes.push_back(now);
  while (!p.crashes.empty() && now - p.crashes.front() > plugins::crash_window)
    p.crashes.pop_front();
  const int crashes = static_cast<int>(p.crashes.size());
  if (crashes >= plugins::crashes_until_failed) {
    p.info.state = plugin_state::failed;
    log::error(component_of(p), why, "; failed after ", crashes,
               " crashes within 10 minutes (enable it again to retry)");
    return publish(self);
  }
  // The crashes within the window count as the failures in a row.
  const auto delay = back_off{plugins::first_restart_delay, plugins::max_restart_delay}.delay_after(
      static_cast<std::size_t>(crashes));
  log::warn(component_of(p), why, was_loaded ? "" : " (while loading)", "; restarting in ",
            std::chrono::duration_cast<std::chrono::seconds>(delay).count(), " s");
  p.info.state = plugin_state::starting;
  self->delayed_send(self, delay, plugin_timer{timer::restart, p.info.id, p.gen, 0});
  publish(self);
}

void on_line(self_ptr self, plugin_entry& p, std::string_view text) {
  auto line = plugins::decode_plugin_line(text);
  if (auto* bad = std::get_if<plugins::line_bad>(&line)) {
    if (++p.bad_lines <= max_logged_bad_lines)
      log::warn(component_of(p), "ignored a line (", bad->reason, ")",
                p.bad_lines == max_logged_bad_lines ? "; further bad lines are not logged" : "");
  } else if (auto* ready = std::get_if<plugins::line_ready>(&line)) {
    if (p.ph != phase::waiting_ready) return;
    p.hooks.insert(ready->hooks.begin(), ready->hooks.end());
    p.ph = phase::loading;
    p.queue.push_back({hook_item::kind::hook, "on_load", nlohmann::json::array()});
    p.queue.push_back({hook_item::kind::hook, "on_enable", nlohmann::json::array()});
    p.queue.push_back({hook_item::kind::became_running, {}, {}});
    pump(self, p);
  } else if (auto* fatal = std::get_if<plugins::line_fatal>(&line)) {
    p.pending_error = fatal->error.substr(0, plugins::max_stderr_line_bytes);
    log::error(component_of(p), "could not load: ", p.pending_error);
  } else if (auto* done = std::get_if<plugins::line_hook_done>(&line)) {
    if (!p.current || done->id != p.current_id) return;
    auto item = std::move(*p.current);
    p.current.reset();
    if (done->error)
      log::warn(component_of(p), item.hook, " raised ",
                done->error->substr(0, plugins::max_stderr_line_bytes));
    if (item.ask != 0) answer_ask(self, item.ask, !done->error && done->result == true);
    if (item.run != 0) {
      if (done->error)
        answer_run(self, item.run, {false, "plugin " + p.info.id + ": " + *done->error});
      else if (done->result == false)
        answer_run(self, item.run, {false, "plugin " + p.info.id + "'s handler returned False"});
      else
        answer_run(self, item.run, {true, ""});
    }
    pump(self, p);
  } else if (auto* call = std::get_if<plugins::line_call>(&line)) {
    handle_call(self, p, *call);
  }
}

void on_timer(self_ptr self, const plugin_timer& t) {
  auto& st = self->state;
  if (t.what == timer::macro_ask) return answer_ask(self, t.seq, false);
  if (t.what == timer::shutdown) {
    if (t.seq != 0) return self->quit(st.exit_reason);
    for (auto& [id, p] : st.plugins)
      if (p.proc) kill_plugin(p, "did not stop within 2 s of the daemon's stop");
    self->delayed_send(self, final_wait, plugin_timer{timer::shutdown, "", 0, 1});
    return;
  }
  auto it = st.plugins.find(t.id);
  if (it == st.plugins.end() || it->second.gen != t.gen) return;
  auto& p = it->second;
  switch (t.what) {
    case timer::ready:
      if (p.proc && p.ph == phase::waiting_ready)
        kill_plugin(p, "it did not answer init within 5 s");
      break;
    case timer::hook:
      if (p.proc && p.current && p.current_id == t.seq)
        kill_plugin(p, "hook " + p.current->hook + " did not return within 5 s");
      break;
    case timer::stop_grace:
      if (p.proc) kill_plugin(p, "it did not exit within 2 s of its input closing");
      break;
    case timer::restart:
      if (!p.proc && p.info.enabled && p.info.state == plugin_state::starting && !st.stopping) {
        ++p.info.restarts;
        metrics::bump(plugin_restarts_of_process());
        start(self, p);
      }
      break;
    default:
      break;
  }
}

void on_event(self_ptr self, const event& e) {
  auto& st = self->state;
  auto hooks = plugins::hooks_of(e, st.mapper);
  for (auto& h : hooks)
    for (auto& [id, p] : st.plugins)
      if (is_loaded(p) && !p.stop_requested && p.hooks.count(h.hook) != 0)
        enqueue(self, p, {hook_item::kind::hook, h.hook, h.args});
}

void on_exit(self_ptr self, const caf::exit_msg& msg) {
  auto& st = self->state;
  if (st.stopping) return;
  st.stopping = true;
  st.exit_reason = msg.reason;
  for (auto& [id, p] : st.plugins)
    if (p.proc) begin_stop(self, p, false);
  self->delayed_send(self, plugins::stop_grace, plugin_timer{timer::shutdown, "", 0, 0});
  maybe_quit(self);
}

}  // namespace

void kill_plugin(plugin_entry& p, const std::string& reason) {
  if (!p.proc) return;
  if (p.pending_error.empty()) p.pending_error = reason;
  p.proc->kill(reason);
}

void persist(self_ptr self) {
  auto& st = self->state;
  if (st.wiring.settings) self->send(st.wiring.settings, caf::put_atom_v, "plugins", st.stored);
}

std::string component_of(const plugin_entry& p) {
  return "plugin " + p.info.id;
}

}  // namespace bridge

plugins_impl::behavior_type plugins_behavior(plugins_impl::stateful_pointer<plugins_state> self,
                                             plugins_wiring wiring, const nlohmann::json& settings,
                                             std::shared_ptr<published<plugins_view>> view) {
  using namespace bridge;
  auto& st = self->state;
  st.wiring = std::move(wiring);
  st.view = std::move(view);
  if (auto stored = settings.find("plugins"); stored != settings.end() && stored->is_object())
    st.stored = *stored;
  if (st.wiring.macro_set)
    if (auto m = st.wiring.macro_set->load()) st.mapper.macro_page = m->set.current_page;
  if (st.wiring.music)
    if (auto m = st.wiring.music->load()) st.mapper.music = m->state;
  self->set_exit_handler([self](caf::exit_msg& msg) { on_exit(self, msg); });
  discover(self);
  if (!st.wiring.wait_for_ready) start_enabled(self);
  publish(self);
  // After the first publish: whoever sees the watch request may read the list.
  if (st.wiring.settings)
    self->send(st.wiring.settings, watch_atom_v, caf::actor_cast<caf::actor>(self));
  return {
      [self](ready_atom) {
        if (!self->state.wiring.wait_for_ready) return;
        self->state.wiring.wait_for_ready = false;
        start_enabled(self);
        publish(self);
      },
      [self](const plugin_switch& s) -> plugin_switch_result {
        return switch_plugin(self, s.id, s.enabled, true);
      },
      [self](const plugin_macro_ask& ask) -> caf::result<bool> {
        auto& st = self->state;
        std::vector<plugin_entry*> askers;
        for (auto& [id, p] : st.plugins)
          if (is_loaded(p) && !p.stop_requested && p.hooks.count("on_macro_execute") != 0)
            askers.push_back(&p);
        if (askers.empty() || st.stopping) return false;
        const auto id = ++st.next_ask;
        auto rp = self->make_response_promise<bool>();
        st.asks.emplace(id, macro_ask{rp, static_cast<int>(askers.size())});
        self->delayed_send(self, plugins::macro_execute_wait,
                           plugin_timer{timer::macro_ask, "", 0, id});
        for (auto* p : askers) {
          p->woken_depth = ask.depth;
          p->woken_until = clock::now() + plugins::macro_execute_wait;
          enqueue(self, *p,
                  {hook_item::kind::hook, "on_macro_execute", nlohmann::json::array({ask.macro}),
                   id, 0});
        }
        return rp;
      },
      [self](const plugin_macro_run& run) -> caf::result<plugin_macro_outcome> {
        auto& st = self->state;
        auto type = run.macro.find("plugin_type");
        if (type == run.macro.end() || !type->is_string())
          return plugin_macro_outcome{false, "the macro names no plugin_type"};
        const auto name = type->get<std::string>();
        auto owner = st.macro_types.find(name);
        auto p = owner == st.macro_types.end() ? st.plugins.end() : st.plugins.find(owner->second);
        if (p == st.plugins.end() || !is_loaded(p->second) || p->second.stop_requested)
          return plugin_macro_outcome{false,
                                      "no running plugin handles plugin_type '" + name + "'"};
        const auto id = ++st.next_run;
        auto rp = self->make_response_promise<plugin_macro_outcome>();
        st.runs.emplace(id, rp);
        p->second.woken_depth = run.depth;
        p->second.woken_until = clock::now() + plugins::hook_timeout;
        enqueue(
            self, p->second,
            {hook_item::kind::hook, "macro_type", nlohmann::json::array({name, run.macro}), 0, id});
        return rp;
      },
      [self](const event& e) { on_event(self, e); },
      [self](const settings_reloaded& r) { on_reload(self, r.settings); },
      [self](plugin_output& out) {
        auto it = self->state.plugins.find(out.id);
        if (it == self->state.plugins.end() || it->second.gen != out.gen || !it->second.proc)
          return;
        on_line(self, it->second, out.line);
      },
      [self](const plugin_ended& end) {
        auto it = self->state.plugins.find(end.id);
        if (it == self->state.plugins.end() || it->second.gen != end.gen || !it->second.proc)
          return;
        on_ended(self, it->second, end.reason);
      },
      [self](const plugin_timer& t) { on_timer(self, t); },
  };
}

}  // namespace mixerd
