#include "actors/profiles/profiles_actor.hpp"

#include <algorithm>
#include <caf/all.hpp>
#include <optional>
#include <string>

#include "actors/profiles/profile_folder.hpp"
#include "actors/profiles/profile_list.hpp"
#include "actors/support/local_time.hpp"
#include "actors/support/log.hpp"

namespace mixerd {

namespace {

using namespace profile_list;
constexpr std::string_view component = "profiles";
using self_ptr = profiles_impl::stateful_pointer<profiles_state>;
using clock = std::chrono::steady_clock;
using outcome = profile_outcome;
using result = profile_outcome::result;
// Each owner answers a load's part at once; well within the route's own wait.
constexpr auto apply_timeout = std::chrono::seconds(4);

outcome refused(result what, std::string error) {
  return {what, std::move(error), {}};
}

outcome not_found(const std::string& name) {
  return refused(result::not_found, "Profile '" + name + "' not found");
}

outcome broken(const std::string& name, const std::string& error) {
  return refused(result::broken, "Profile '" + name + "' is broken on disk (" + error +
                                     "); it is left untouched until the file is fixed or deleted");
}

void publish_view(self_ptr self) {
  auto& st = self->state;
  st.view->store(profiles_view{st.profiles, st.current});
}

void make_current(self_ptr self, const std::string& name) {
  auto& st = self->state;
  st.current = name;
  if (st.wiring.settings)
    self->send(st.wiring.settings, caf::put_atom_v, std::string(profiles::current_key),
               nlohmann::json(name));
}

// The file of a listed profile, or why there is none (the list follows what was found).
std::variant<profiles::profile_file, outcome> read_listed(self_ptr self, const std::string& name) {
  auto& st = self->state;
  auto entry = find(st.profiles, name);
  if (entry == st.profiles.end()) return not_found(name);
  auto read = profile_folder::read(st.wiring.folder, name);
  if (read.file) {
    if (!entry->error.empty()) {
      log::info(component, profile_folder::path_of(st.wiring.folder, name), " is fixed");
      *entry = profiles::summary_of(*read.file);
      publish_view(self);
    }
    return std::move(*read.file);
  }
  if (read.missing) {
    // Removed by hand: it is no longer a profile (the current one stays named until another
    // is loaded, so that current is never empty).
    log::warn(component, profile_folder::path_of(st.wiring.folder, name), " is gone");
    st.profiles.erase(entry);
    publish_view(self);
    return not_found(name);
  }
  if (entry->error != read.error) {
    log::error(component, profile_folder::path_of(st.wiring.folder, name), ": ", read.error,
               "; left untouched");
    entry->error = read.error;
    publish_view(self);
  }
  return broken(name, read.error);
}

// ---- Load --------------------------------------------------------------------------------------

outcome loaded(self_ptr self, const std::string& name) {
  make_current(self, name);
  self->send(self->state.wiring.hub, caf::publish_atom_v, event{profile_change{name}});
  publish_view(self);
  log::info(component, "loaded profile '", name, "'");
  return {result::ok,
          {},
          {{"success", true}, {"profile", name}, {"message", "Profile load requested"}}};
}

outcome load_failed(const std::string& name, const char* part, const caf::error& e) {
  log::error(component, "loading profile '", name, "': the ", part,
             " did not apply it: ", caf::to_string(e));
  return refused(result::failed,
                 "Profile '" + name + "' was not fully applied: the " + part + " did not answer");
}

caf::result<outcome> load(self_ptr self, const profile_load& req) {
  auto file = read_listed(self, req.name);
  if (auto* failed = std::get_if<outcome>(&file)) return std::move(*failed);
  auto& profile = std::get<profiles::profile_file>(file);
  auto rp = self->make_response_promise<outcome>();
  const auto& wiring = self->state.wiring;
  // Awaited, one part after the other: no other request of this actor runs in between, so two
  // loads apply whole, in the order they came, and profile_change follows every change of its
  // own load. The mixer and the macro actor publish their events before they answer.
  self->request(wiring.mixer, apply_timeout, mixer_apply{profile.content.mix})
      .await(
          [self, rp, name = req.name, macros = profile.content.macros](bool) mutable {
            const auto& owner = self->state.wiring.macros;
            if (!owner) {
              rp.deliver(loaded(self, name));
              return;
            }
            self->request(owner, apply_timeout, std::move(macros))
                .await([self, rp, name](bool) mutable { rp.deliver(loaded(self, name)); },
                       [rp, name](caf::error& e) mutable {
                         rp.deliver(load_failed(name, "macro actor", e));
                       });
          },
          [rp, name = req.name](caf::error& e) mutable {
            rp.deliver(load_failed(name, "mixer", e));
          });
  return rp;
}

// ---- Writes: their bounds, and saves held back to be written together -------------------------

// Why the file `text` of profile `name` may not be written now: too large (507) or past the
// write budget (429). `replacing`: the cost of the held-back save it would take the place of.
std::optional<outcome> write_refusal(self_ptr self, const std::string& name,
                                     const std::string& text, std::size_t replacing = 0) {
  auto& st = self->state;
  if (text.size() > profiles::max_profile_bytes)
    return refused(result::too_large,
                   "Profile '" + name + "' would take " + std::to_string(text.size()) +
                       " bytes; a profile may take at most " +
                       std::to_string(profiles::max_profile_bytes) + " (most of it is its macros)");
  const auto cost = st.budget.cost_of(text.size());
  const int wait = st.budget.wait_for(cost, st.pending_cost - replacing, clock::now());
  if (wait == 0) return std::nullopt;
  auto out =
      refused(result::too_fast, "Too many profile writes: at most " +
                                    std::to_string(profiles::write_budget_bytes / (1024 * 1024)) +
                                    " MiB of profile files a minute (each write counts at least " +
                                    std::to_string(profiles::write_min_cost / 1024) +
                                    " KiB); try again in " + std::to_string(wait) + " s");
  out.retry_after = wait;
  return out;
}

// Writes a profile's file now (on disk when it returns) and lists it.
outcome written(self_ptr self, const profiles::profile_file& file, const std::string& text,
                const char* what) {
  auto& st = self->state;
  if (auto ec = profile_folder::write(st.wiring.folder, file.name, text)) {
    log::error(component, "cannot write ", profile_folder::path_of(st.wiring.folder, file.name),
               ": ", ec.message());
    return refused(result::failed,
                   "Profile '" + file.name + "' could not be saved: " + ec.message());
  }
  const auto now = clock::now();
  st.budget.spend(st.budget.cost_of(text.size()), now);
  for (auto it = st.written_at.begin(); it != st.written_at.end();)
    it = it->second + profiles::save_coalesce_delay <= now ? st.written_at.erase(it) : ++it;
  st.written_at[file.name] = now;
  put(st.profiles, profiles::summary_of(file));
  log::info(component, what, " profile '", file.name, "'");
  return {result::ok, {}, {}};
}

outcome saved(self_ptr self, const profiles::profile_file& file) {
  return {result::ok,
          {},
          {{"success", true},
           {"profile", profiles::summary_to_json(profiles::summary_of(file),
                                                 self->state.current == file.name)}}};
}

// Writes every held-back save and answers its requests. Runs at the tick, before any request
// but a save of a held profile (so that every other request sees the folder as answered), and
// when the actor stops.
void flush_saves(self_ptr self) {
  auto& st = self->state;
  if (st.pending.empty()) return;
  auto pending = std::move(st.pending);
  st.pending.clear();
  st.pending_cost = 0;
  for (auto& [name, held] : pending) {
    auto out = written(self, held.file, profiles::serialize(held.file), "saved");
    if (out.what == result::ok) out = saved(self, held.file);
    if (held.waiting.size() > 1)
      log::debug(component, held.waiting.size(), " saves of '", name, "' written once");
    for (auto& promise : held.waiting)
      promise.deliver(out);
  }
  publish_view(self);
}

// A save of a profile written less than save_coalesce_delay ago waits for the next tick, with
// any later save of it: one write for all of them.
bool written_lately(self_ptr self, const std::string& name) {
  auto it = self->state.written_at.find(name);
  return it != self->state.written_at.end() &&
         clock::now() < it->second + profiles::save_coalesce_delay;
}

caf::result<outcome> hold(self_ptr self, profiles::profile_file file, std::size_t cost) {
  auto& st = self->state;
  auto& held = st.pending[file.name];
  st.pending_cost = st.pending_cost - held.cost + cost;
  held.cost = cost;
  held.file = std::move(file);
  held.waiting.push_back(self->make_response_promise<outcome>());
  if (!st.flush_scheduled) {
    st.flush_scheduled = true;
    self->delayed_send(self, profiles::save_coalesce_delay, caf::tick_atom_v);
  }
  return held.waiting.back();
}

// ---- Create, save, rename, delete, get ---------------------------------------------------------

outcome create(self_ptr self, const profile_create& req) {
  auto& st = self->state;
  if (auto problem = profiles::name_problem(req.name); !problem.empty())
    return refused(result::invalid, problem);
  if (find(st.profiles, req.name) != st.profiles.end())
    return refused(result::exists, "Profile '" + req.name + "' already exists");
  if (st.profiles.size() >= profiles::max_profiles)
    return refused(result::too_many,
                   "There are " + std::to_string(st.profiles.size()) + " profiles; at most " +
                       std::to_string(profiles::max_profiles) + " are kept: delete one first");
  profiles::profile_file file;
  file.name = req.name;
  file.icon = req.icon;
  file.created = file.updated = local_timestamp();
  file.content = current_content(st.wiring);
  const auto text = profiles::serialize(file);
  if (auto no = write_refusal(self, file.name, text)) return std::move(*no);
  auto out = written(self, file, text, "created");
  if (out.what != result::ok) return out;
  publish_view(self);
  out.body = {{"success", true},
              {"profile", profiles::summary_to_json(profiles::summary_of(file), false)}};
  return out;
}

// A save of a profile whose save is held back joins it: the latest state is what is written.
caf::result<outcome> save_again(self_ptr self, pending_save& held, const profile_save& req) {
  auto file = held.file;
  if (req.icon) file.icon = *req.icon;
  file.updated = local_timestamp();
  file.content = current_content(self->state.wiring);
  const auto text = profiles::serialize(file);
  if (auto no = write_refusal(self, file.name, text, held.cost)) return std::move(*no);
  return hold(self, std::move(file), self->state.budget.cost_of(text.size()));
}

caf::result<outcome> save(self_ptr self, const profile_save& req) {
  auto& st = self->state;
  const std::string target = req.new_name.value_or(req.name);
  if (auto problem = profiles::name_problem(target, req.new_name ? "new_name" : "name");
      !problem.empty())
    return refused(result::invalid, problem);
  const bool rename = target != req.name;
  if (auto held = st.pending.find(req.name);
      !rename && !req.keep_content && held != st.pending.end())
    return save_again(self, held->second, req);
  // The old file must hold what its answered saves wrote.
  if (rename || req.keep_content) flush_saves(self);
  if (rename && find(st.profiles, target) != st.profiles.end()) {
    if (find(st.profiles, req.name) == st.profiles.end()) return not_found(req.name);
    return refused(result::exists, "Profile '" + target + "' already exists");
  }
  // Never over a broken file: its `created` and what it held are not known.
  auto old = read_listed(self, req.name);
  if (auto* failed = std::get_if<outcome>(&old)) return std::move(*failed);
  auto file = std::move(std::get<profiles::profile_file>(old));
  file.name = target;
  if (req.icon) file.icon = *req.icon;
  file.updated = local_timestamp();
  if (!req.keep_content) file.content = current_content(st.wiring);
  const auto text = profiles::serialize(file);
  if (auto no = write_refusal(self, file.name, text)) return std::move(*no);
  if (!rename && !req.keep_content && written_lately(self, file.name))
    return hold(self, std::move(file), st.budget.cost_of(text.size()));
  // A rename writes the new file before it removes the old one: a kill in between leaves both,
  // never neither.
  const char* done =
      req.keep_content ? (rename ? "renamed" : "edited") : (rename ? "saved and renamed" : "saved");
  auto out = written(self, file, text, done);
  if (out.what != result::ok) return out;
  if (rename) {
    if (auto ec = profile_folder::remove(st.wiring.folder, req.name))
      log::error(component, "renamed profile '", req.name, "' to '", target,
                 "' but cannot remove the old file: ", ec.message());
    else
      st.profiles.erase(find(st.profiles, req.name));
    if (st.current == req.name) make_current(self, target);
  }
  publish_view(self);
  return saved(self, file);
}

outcome remove(self_ptr self, const profile_delete& req) {
  auto& st = self->state;
  auto entry = find(st.profiles, req.name);
  if (entry == st.profiles.end()) return not_found(req.name);
  if (req.name == st.current)
    return refused(result::is_current,
                   "Profile '" + req.name + "' is the current profile; load another one first");
  if (auto ec = profile_folder::remove(st.wiring.folder, req.name)) {
    log::error(component, "cannot remove ", profile_folder::path_of(st.wiring.folder, req.name),
               ": ", ec.message());
    return refused(result::failed,
                   "Profile '" + req.name + "' could not be deleted: " + ec.message());
  }
  st.profiles.erase(entry);
  publish_view(self);
  log::info(component, "deleted profile '", req.name, "'");
  return {
      result::ok, {}, {{"success", true}, {"profile", req.name}, {"message", "Profile deleted"}}};
}

outcome get(self_ptr self, const profile_get& req) {
  auto file = read_listed(self, req.name);
  if (auto* failed = std::get_if<outcome>(&file)) return std::move(*failed);
  const auto& profile = std::get<profiles::profile_file>(file);
  return {result::ok, {}, profiles::profile_to_json(profile, profile.name == self->state.current)};
}

outcome export_all(self_ptr self) {
  auto all = nlohmann::json::array();
  // read_listed may drop a profile removed by hand: walk a copy of the names.
  std::vector<std::string> names;
  for (const auto& p : self->state.profiles)
    names.push_back(p.name);
  for (const auto& name : names) {
    auto file = read_listed(self, name);
    if (const auto* profile = std::get_if<profiles::profile_file>(&file))
      all.push_back(profiles::profile_to_json(*profile, profile->name == self->state.current));
  }
  return {result::ok, {}, std::move(all)};
}

// An import: every imported profile written (each atomically), then every other profile file
// removed. The current one follows the imported settings' current_profile on their reload.
outcome replace_all(self_ptr self, const profiles_replace& req) {
  auto& st = self->state;
  const auto& folder = st.wiring.folder;
  auto relist = [&] {
    st.profiles = profile_folder::list(folder);
    publish_view(self);
  };
  for (const auto& file : req.files)
    if (auto ec = profile_folder::write(folder, file)) {
      log::error(component, "cannot write ", profile_folder::path_of(folder, file.name), ": ",
                 ec.message());
      relist();
      return refused(result::failed,
                     "Profile '" + file.name + "' could not be written: " + ec.message());
    }
  for (const auto& old : profile_folder::list(folder)) {
    const bool imported = std::any_of(req.files.begin(), req.files.end(),
                                      [&](const auto& f) { return f.name == old.name; });
    if (imported) continue;
    if (auto ec = profile_folder::remove(folder, old.name))
      log::error(component, "cannot remove ", profile_folder::path_of(folder, old.name), ": ",
                 ec.message());
  }
  relist();
  log::info(component, "imported ", req.files.size(), " profiles");
  return {result::ok, {}, profiles::to_json(profiles_view{st.profiles, st.current})};
}

// SIGHUP: the folder and current_profile are read again (a profile fixed or added by hand).
void reload(self_ptr self, const nlohmann::json& settings) {
  auto& st = self->state;
  auto opened = open_profiles(st.wiring.folder, settings, current_content(st.wiring));
  st.profiles = std::move(opened.profiles);
  if (opened.current != current_from(settings) || opened.current != st.current)
    make_current(self, opened.current);
  publish_view(self);
}

}  // namespace

profiles_impl::behavior_type profiles_behavior(profiles_impl::stateful_pointer<profiles_state> self,
                                               profiles_wiring wiring, profiles_opened opened,
                                               std::shared_ptr<published<profiles_view>> view) {
  auto& st = self->state;
  st.wiring = std::move(wiring);
  st.profiles = std::move(opened.profiles);
  st.current = std::move(opened.current);
  st.view = std::move(view);
  publish_view(self);
  if (opened.current_changed) make_current(self, st.current);
  if (st.wiring.settings)
    self->send(st.wiring.settings, watch_atom_v, caf::actor_cast<caf::actor>(self));
  // Saves held back are written before the actor stops (their requests are still waiting).
  self->set_exit_handler([self](caf::exit_msg& msg) {
    flush_saves(self);
    self->quit(msg.reason);
  });
  // Every request but a save sees the folder with the held-back saves written.
  return {
      [self](const profile_load& req) {
        flush_saves(self);
        return load(self, req);
      },
      [self](const profile_create& req) {
        flush_saves(self);
        return create(self, req);
      },
      [self](const profile_save& req) { return save(self, req); },
      [self](const profile_delete& req) {
        flush_saves(self);
        return remove(self, req);
      },
      [self](const profile_get& req) {
        flush_saves(self);
        return get(self, req);
      },
      [self](profiles_export) {
        flush_saves(self);
        return export_all(self);
      },
      [self](const profiles_replace& req) {
        flush_saves(self);
        return replace_all(self, req);
      },
      [self](const settings_reloaded& reloaded) {
        flush_saves(self);
        reload(self, reloaded.settings);
      },
      [self](caf::tick_atom) {
        self->state.flush_scheduled = false;
        flush_saves(self);
      },
  };
}

}  // namespace mixerd
