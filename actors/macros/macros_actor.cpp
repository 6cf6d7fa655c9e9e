#include "actors/macros/macros_actor.hpp"

#include <caf/all.hpp>
#include <optional>
#include <utility>

#include "actors/macros/macro_executors.hpp"
#include "actors/macros/macro_holds.hpp"
#include "actors/support/log.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "macros";
using self_ptr = macros_impl::stateful_pointer<macros_state>;

// Setting http_macro_allow (validated before it got here; a broken one allows nothing).
std::vector<http_targets::allow_entry> http_allow_of(const nlohmann::json& settings) {
  std::string key;
  std::string error;
  auto it = settings.find(http_targets::allow_key);
  if (it == settings.end()) return {};
  return http_targets::parse_allow(*it, key, error)
      .value_or(std::vector<http_targets::allow_entry>{});
}

// The routes and the device codec check their ranges; a request from elsewhere is checked here.
bool in_range(int page, int index) {
  return page >= 0 && page < limits::macro_page_count && index >= 0 && index < limits::macro_count;
}

const macro& slot(self_ptr self, int page, int index) {
  return self->state.set.pages[page][index];
}

void publish(self_ptr self, event e) {
  self->send(self->state.wiring.hub, caf::publish_atom_v, std::move(e));
}

void publish_view(self_ptr self) {
  self->state.view->store(macros_view_of(self->state.set, self->state.http_allow));
}

void persist(self_ptr self) {
  self->send(self->state.wiring.settings, caf::put_atom_v, std::string("macros"),
             macros::to_json(self->state.set));
}

// The device shows the current page: MPAGE, then its 9 buttons (empty: empty name and icon).
void push_page(self_ptr self) {
  const auto& st = self->state;
  const int page = st.set.current_page;
  self->send(st.wiring.device, protocol::host_command{protocol::cmd_macro_page{page}});
  for (int i = 0; i < limits::macro_count; ++i) {
    const auto& m = st.set.pages[page][i];
    self->send(st.wiring.device,
               protocol::host_command{protocol::cmd_macro{i, m.name(), m.icon()}});
  }
}

// After an edit, a rename or a replacement: subscribers get the whole set, readers the new
// view. `part` is the smaller event of an edit or a rename (published first): Socket.IO clients
// that read it are not sent the whole set, which is up to max_set_bytes (protocol/events.hpp).
void set_changed(self_ptr self, bool visible_page_changed, std::optional<event> part = {}) {
  persist(self);
  std::string_view replaced_by;
  if (part) {
    replaced_by = part->wire_name();
    publish(self, std::move(*part));
  }
  publish(self, macros_change{macros::to_json(self->state.set), replaced_by});
  publish_view(self);
  if (visible_page_changed) push_page(self);
}

// ---- Runs ------------------------------------------------------------------------------------

bool is_running(self_ptr self, int page, int index) {
  for (const auto& [id, r] : self->state.runs)
    if (r.page == page && r.index == index) return true;
  return false;
}

void finish(self_ptr self, std::uint64_t id, bool ok, std::string error) {
  auto it = self->state.runs.find(id);
  if (it == self->state.runs.end()) return;
  auto r = std::move(it->second);
  self->state.runs.erase(it);
  if (ok)
    log::info(component, "macro '", r.name, "' (page ", r.page, ", slot ", r.index, ") done");
  else
    log::warn(component, "macro '", r.name, "' (page ", r.page, ", slot ", r.index,
              ") failed: ", error);
  publish(self, macro_executed{r.page, r.index, r.name, ok, std::move(error)});
  macro_holds::run_ended(self, id);
}

// Starts the current step of a run: a delay is a timer, anything else an executor.
void run_step(self_ptr self, std::uint64_t id) {
  auto& r = self->state.runs.at(id);
  if (r.next >= r.steps.size()) return finish(self, id, true, "");
  const auto& step = r.steps[r.next];
  if (step.value("type", "") == "delay") {
    self->delayed_send(self, std::chrono::milliseconds(step["ms"].get<int>()),
                       macro_step_done{id, r.next, true, ""});
    return;
  }
  macro_executors::start(self, id, r.next, step);
}

void on_step_done(self_ptr self, const macro_step_done& done) {
  auto it = self->state.runs.find(done.run);
  if (it == self->state.runs.end() || it->second.next != done.step) return;  // late
  auto& r = it->second;
  if (!done.ok) {
    // In a sequence the error names the step that stopped it.
    auto error = r.sequence ? "steps[" + std::to_string(done.step) + "] (" +
                                  r.steps[done.step].value("type", "") + "): " + done.error
                            : done.error;
    return finish(self, done.run, false, std::move(error));
  }
  ++r.next;
  run_step(self, done.run);
}

// The interceptors are asked first (the plugins' on_macro_execute): one that answers
// {"handled": true} has handled the macro and it is not run. Each answers within about a second
// (a plugin that has not answered by then counts as not handling it), so the slot stays busy at
// most that long. Without one, the run starts at once.
void ask_interceptors(self_ptr self, std::uint64_t id, const nlohmann::json& fields,
                      std::size_t next = 0) {
  const auto& w = self->state.wiring;
  if (!w.commands || next >= w.interceptors.size()) return run_step(self, id);
  self->state.runs.at(id).asking = true;
  w.commands->run(self, macro_executors::run_origin(self, id), w.interceptors[next],
                  {{"macro", fields}}, [self, id, fields, next](command_result r) {
                    auto it = self->state.runs.find(id);
                    if (it == self->state.runs.end() || !it->second.asking) return;
                    it->second.asking = false;
                    if (!r.ok() || !r.body.value("handled", false))
                      return ask_interceptors(self, id, fields, next + 1);
                    log::info(component, "macro '", it->second.name, "' handled by a plugin");
                    finish(self, id, true, "");
                  });
}

// A refused start is logged once per minute for each slot and reason: a loop or a flood must not
// flood the log too.
void log_refusal(self_ptr self, const macro_trigger_outcome& out, int index, std::string_view why) {
  const auto key = std::to_string(out.page) + ":" + std::to_string(index) + ":" + std::string(why);
  if (self->state.refusals_logged.admit(key, rate_limiter::clock::now()) != 0) return;
  log::warn(component, "macro '", out.name, "' (page ", out.page, ", slot ", index,
            ") refused: ", why, " (logged once a minute)");
}

// "ran more than 10 times in 2 s", as the budget says.
std::string over(const macros::run_budget& budget) {
  return "ran more than " + std::to_string(budget.runs) + " times in " +
         std::to_string(budget.window.count()) + " s";
}

// The run budgets (protocol/README.md, "Macros"): 0 when the run may start, else the seconds
// until there is room (nothing is counted then).
int over_budget(self_ptr self, int page, int index, std::string& why) {
  auto& st = self->state;
  const auto now = rate_limiter::clock::now();
  if (auto wait = st.slot_budget.admit(std::to_string(page) + ":" + std::to_string(index), now)) {
    why = "the slot " + over(macros::slot_runs);
    return wait;
  }
  if (auto wait = st.daemon_budget.admit("all", now)) {
    why = "macros " + over(macros::daemon_runs);
    return wait;
  }
  return 0;
}

macro_trigger_outcome trigger(self_ptr self, const macro_trigger& req) {
  using phase = macro_trigger::phase;
  auto& st = self->state;
  macro_trigger_outcome out;
  out.page = req.page.value_or(st.set.current_page);
  if (!in_range(out.page, req.index)) {
    out.what = macro_trigger_outcome::result::empty;
    return out;
  }
  const auto& m = slot(self, out.page, req.index);
  out.name = m.name();
  // A release ends the slot's hold, whatever the slot holds now (an edit while held).
  if (req.edge == phase::release && macro_holds::release(self, out.page, req.index)) return out;
  if (m.empty()) {
    out.what = macro_trigger_outcome::result::empty;
    return out;
  }
  const auto* kind = macros::find_kind(m.type());
  const bool held = kind != nullptr && kind->held();
  // Only a hold kind acts on a release; without a phase it would be let go at once.
  if (req.edge == phase::release) return out;
  if (held && req.edge == phase::click) {
    out.what = macro_trigger_outcome::result::needs_phase;
    return out;
  }
  if (held && macro_holds::renew(self, out.page, req.index, req.from_device)) return out;
  if (is_running(self, out.page, req.index)) {
    out.what = macro_trigger_outcome::result::running;
    return out;
  }
  if (req.depth > macros::max_run_depth) {
    out.what = macro_trigger_outcome::result::too_deep;
    log_refusal(self, out, req.index,
                "asked through a chain of more than " + std::to_string(macros::max_run_depth) +
                    " macro runs");
    return out;
  }
  std::string why;
  if (auto wait = over_budget(self, out.page, req.index, why)) {
    out.what = macro_trigger_outcome::result::too_often;
    out.retry_after = wait;
    log_refusal(self, out, req.index, why);
    return out;
  }
  macro_run r;
  r.page = out.page;
  r.index = req.index;
  r.name = out.name;
  r.depth = req.depth;
  r.sequence = m.type() == "sequence";
  if (r.sequence)
    r.steps.assign(m.fields["steps"].begin(), m.fields["steps"].end());
  else
    r.steps.push_back(m.fields);
  const auto id = ++st.last_run;
  st.runs.emplace(id, std::move(r));
  if (held) macro_holds::begin(self, out.page, req.index, id, m.fields, req.from_device);
  log::info(component, "macro '", out.name, "' (page ", out.page, ", slot ", req.index,
            ") started");
  ask_interceptors(self, id, m.fields);
  return out;
}

// ---- Device ----------------------------------------------------------------------------------

void change_page(self_ptr self, int page) {
  auto& st = self->state;
  if (page != st.set.current_page) {
    st.set.current_page = page;
    persist(self);
    publish(self, macro_page_change{page});
    publish_view(self);
  }
  // The device switched itself: it needs the names of the page it now shows.
  push_page(self);
}

void on_device_input(self_ptr self, const protocol::device_event& input) {
  if (auto press = std::get_if<protocol::dev_macro>(&input)) {
    // The button that comes up ends the hold it made, even after a page change meanwhile.
    if (!press->pressed) {
      macro_holds::release_device_button(self, press->index);
      return;
    }
    auto out = trigger(
        self, macro_trigger{std::nullopt, press->index, 0, macro_trigger::phase::press, true});
    if (out.what == macro_trigger_outcome::result::running)
      log::info(component, "button ", press->index, ": macro '", out.name, "' is still running");
  } else if (auto page = std::get_if<protocol::dev_macro_page>(&input)) {
    change_page(self, page->page);
  }
}

// ---- Edits -----------------------------------------------------------------------------------

macro_edit_outcome edit(self_ptr self, const macro_edit& req) {
  using result = macro_edit_outcome::result;
  if (!in_range(req.page, req.index)) return {result::stored, macro{}, 0};
  auto& set = self->state.set;
  auto& current = set.pages[req.page][req.index];
  if (req.keep_command && current.type() == "command" && !req.value.empty())
    return {result::kept_command, current, 0};
  // The set is checked here, where edits come one at a time: two routes that each checked a
  // published view could together pass the bound.
  const auto bytes =
      macros::set_bytes(set.pages) - macros::macro_bytes(current) + macros::macro_bytes(req.value);
  if (bytes > macros::max_set_bytes) return {result::set_too_large, current, bytes};
  current = req.value;
  set_changed(self, req.page == set.current_page,
              event{macro_change{req.page, req.index, current.fields}});
  return {result::stored, current, bytes};
}

std::string rename(self_ptr self, const macro_page_rename& req) {
  if (!in_range(req.page, 0)) return {};
  self->state.set.page_names[req.page] = req.name;
  set_changed(self, false, event{macro_page_name_change{req.page, req.name}});
  return req.name;
}

bool replace(self_ptr self, const macro_replace& req) {
  auto& set = self->state.set;
  set.page_names = req.page_names;
  set.pages = req.pages;
  set_changed(self, true);
  return true;
}

// A hand-edited settings file (SIGHUP) may change any part of the set, the current page too.
void on_settings_reloaded(self_ptr self, const nlohmann::json& settings) {
  self->state.http_allow = http_allow_of(settings);
  auto fresh = macros::pages_from_settings(settings);
  auto& set = self->state.set;
  if (macros::to_json(fresh) == macros::to_json(set)) return publish_view(self);
  const bool page_moved = fresh.current_page != set.current_page;
  const bool visible_changed =
      page_moved || macros::to_json(fresh)["pages"][std::to_string(set.current_page)] !=
                        macros::to_json(set)["pages"][std::to_string(set.current_page)];
  set = std::move(fresh);
  if (page_moved) publish(self, macro_page_change{set.current_page});
  publish(self, macros_change{macros::to_json(set)});
  publish_view(self);
  if (visible_changed) push_page(self);
}

}  // namespace

macros_view macros_view_of(const macro_pages& set, std::vector<http_targets::allow_entry> allow) {
  macros_view view;
  view.set = set;
  view.http_allow = std::move(allow);
  return view;
}

macros_impl::behavior_type macros_behavior(macros_impl::stateful_pointer<macros_state> self,
                                           macros_wiring wiring, nlohmann::json settings,
                                           std::shared_ptr<published<macros_view>> view) {
  auto& st = self->state;
  st.set = macros::pages_from_settings(settings);
  st.http_allow = http_allow_of(settings);
  st.wiring = std::move(wiring);
  st.view = std::move(view);
  publish_view(self);
  if (st.wiring.settings)
    self->send(st.wiring.settings, watch_atom_v, caf::actor_cast<caf::actor>(self));
  return {
      [self](const macro_trigger& req) { return trigger(self, req); },
      [self](const macro_edit& req) { return edit(self, req); },
      [self](const macro_page_rename& req) { return rename(self, req); },
      [self](const macro_replace& req) { return replace(self, req); },
      [self](const event& e) {
        if (auto in = e.get_if<device_input>()) {
          on_device_input(self, in->input);
        } else if (auto status = e.get_if<device_status>()) {
          if (status->connected)
            push_page(self);
          else
            macro_holds::release_device(self);
        }
      },
      [self](const settings_reloaded& reloaded) { on_settings_reloaded(self, reloaded.settings); },
      [self](const macro_step_done& done) { on_step_done(self, done); },
      [self](const macro_hold_lapsed& lapsed) { macro_holds::on_lapsed(self, lapsed); },
  };
}

}  // namespace mixerd
