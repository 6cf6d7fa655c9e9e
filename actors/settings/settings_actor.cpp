#include "actors/settings/settings_actor.hpp"

#include <algorithm>
#include <caf/all.hpp>

#include "actors/support/log.hpp"
#include "protocol/limits.hpp"
#include "protocol/settings_api.hpp"
#include "protocol/settings_schema.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "settings";

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Keeps `before` in the history when `after` changes configuration; a history that cannot be
// written is logged and the change goes on.
void keep_version(settings_state& st, const nlohmann::json& before, const nlohmann::json& after,
                  const std::string& source) {
  if (!st.history) return;
  if (auto ec = st.history->keep(before, after, st.schema, source))
    log::warn(component, "cannot keep the version before this change in ", st.history->folder(),
              ": ", ec.message());
}

// The running settings and a version of the file compare equal once the file's clears (null on a
// guarded key) are taken out, as the actors never see them.
bool same_settings(const nlohmann::json& running, nlohmann::json version) {
  settings_schema::take_cleared(version);
  return version == running;
}

// Locked read-modify-write: re-read the file, lay the pending keys over it, write it back. A
// guarded key (a secret, an access rule) the file leaves out gets its running value back, so no
// write of mixerd's ever drops one (settings_schema::keep_guarded). `after_reload`: also when
// nothing is pending (the reload kept guarded keys, and logged them).
// `why`, when given, receives the reason of a failure. A write that changes configuration (not
// only live state) first keeps the file's version in the history, as `source`'s change.
bool save_pending(settings_state& st, bool after_reload = false, std::string* why = nullptr,
                  const std::string& source = "api") {
  if (st.pending.empty() && st.removed.empty() && !after_reload) return true;
  auto fail = [why](std::string reason) {
    log::error(component, reason);
    if (why) *why = std::move(reason);
    return false;
  };
  settings_file::write_lock lock(st.paths.lock());
  if (!lock.held()) return fail("cannot lock " + st.paths.lock() + ": " + lock.error().message());
  auto on_disk = settings_file::load(st.paths.settings);
  // Never overwrite a file the user broke: keep the changes in memory and say so.
  if (!on_disk.ok()) return fail("not saving, the file is broken: " + on_disk.error);
  auto merged = on_disk.settings;
  auto kept = settings_schema::keep_guarded(st.current, merged);
  for (auto& [key, value] : st.pending.items())
    merged[key] = value;
  for (const auto& key : st.removed)
    merged.erase(key);
  if (!kept.empty() && !after_reload)
    log::warn(component, st.paths.settings, " left out ", joined(kept),
              ": written back with the running values (null clears a key)");
  if (merged != on_disk.settings) {
    if (!after_reload) keep_version(st, on_disk.settings, merged, source);
    if (auto ec =
            settings_file::write_atomically(st.paths.settings, settings_file::serialize(merged)))
      return fail("cannot write " + st.paths.settings + ": " + ec.message());
    log::debug(component, "saved ", st.paths.settings);
  }
  // A null the file holds is a clear the next reload applies; the actors never see one.
  settings_schema::take_cleared(merged);
  st.current = std::move(merged);
  st.pending = nlohmann::json::object();
  st.removed.clear();
  return true;
}

settings_change_result unwritable(const std::string& why) {
  return {409, "settings.json cannot be written, nothing changed: " + why, {}};
}

// Makes `candidate` the settings: refused whole when a changed key needs a trusted caller or the
// whole fails the checks, else saved at once (pending keys must be saved already).
settings_change_result apply(settings_state& st, nlohmann::json candidate,
                             const std::string& source, bool trusted) {
  std::string why;
  const auto before = st.current;
  const auto keys = settings_api::changed_keys(st.current, candidate);
  if (keys.empty()) return {200, {}, st.current};
  if (!trusted)
    if (auto key = settings_api::first_guarded(keys); !key.empty())
      return {403, settings_api::needs_trust_text(key), {}};
  if (auto bad = settings_schema::validate(candidate))
    return {400, bad->key + " " + bad->message, {}};
  if (auto bad = settings_schema::validate_change(candidate, keys))
    return {400, bad->key + " " + bad->message, {}};
  const auto guarded = settings_schema::guarded_keys();
  for (const auto& key : keys) {
    if (auto it = candidate.find(key); it != candidate.end())
      st.pending[key] = *it;
    else if (std::find(guarded.begin(), guarded.end(), key) != guarded.end())
      st.pending[key] = nullptr;  // null clears a guarded key; left out, a reload would keep it
    else
      st.removed.push_back(key);
  }
  if (!save_pending(st, false, &why, source)) {
    st.pending = nlohmann::json::object();
    st.removed.clear();
    return unwritable(why);
  }
  // Key paths only: a secret's value never reaches the log.
  log::info(component, "changed by ", source, ": ",
            settings_api::summary(settings_api::changed_paths(before, st.current)));
  return {200, {}, st.current};
}

// A change through the API: the patch laid over the running settings, refused whole (nothing
// changed) when a key needs a trusted caller, is no setting, or fails the checks; else saved at
// once. Pending keys are saved first, so that a refused save leaves nothing of the change behind.
settings_change_result change(settings_state& st, const settings_change& c) {
  if (!c.patch.is_object())
    return {400, "the body must be a JSON object: the settings to change (a JSON merge patch)", {}};
  std::string why;
  if (!save_pending(st, false, &why)) return unwritable(why);
  auto candidate = st.current;
  settings_api::merge_patch(candidate, c.patch, st.schema);
  const auto& known = st.schema["properties"];
  for (const auto& key : settings_api::changed_keys(st.current, candidate))
    if (!known.contains(key)) return {400, key + " is no setting of this mixerd", {}};
  return apply(st, std::move(candidate), c.source, c.trusted);
}

// Back to the version entry `id` kept: the whole file as it was before that change (a key it
// lacks is removed; a guarded one cleared), checked and applied as any change.
settings_change_result rollback(settings_state& st, const settings_rollback& r) {
  auto version = st.history ? st.history->version_before(r.id) : std::nullopt;
  if (!version) return {404, "There is no history entry " + r.id, {}};
  std::string why;
  if (!save_pending(st, false, &why)) return unwritable(why);
  settings_api::keep_live(*version, st.current, st.schema);
  return apply(st, std::move(*version), "rollback", r.trusted);
}

// An import: the whole file replaced, with the running secrets it leaves out carried over.
settings_change_result replace(settings_state& st, const settings_replace& r) {
  std::string why;
  if (!save_pending(st, false, &why)) return unwritable(why);
  auto candidate = r.settings;
  settings_api::carry_secrets(candidate, st.current, st.schema);
  settings_api::keep_live(candidate, st.current, st.schema);
  return apply(st, std::move(candidate), r.source, r.trusted);
}

nlohmann::json history_json(const settings_state& st) {
  auto list = nlohmann::json::array();
  if (st.history)
    for (const auto& e : st.history->list())
      list.push_back(
          {{"id", e.id}, {"time", e.time}, {"source", e.source}, {"summary", e.summary}});
  return {{"history", std::move(list)}};
}

// SIGHUP: the file as it is now, with the rule for guarded keys: one it leaves out keeps its
// running value (and is written back), null clears it (a cleared generated secret is made anew
// and written). Refused whole, with nothing changed, when the file is broken (empty included).
bool reload(settings_state& st) {
  auto loaded = settings_file::load(st.paths.settings);
  if (!loaded.ok()) {
    log::error(component, "reload ignored, running settings kept: ", loaded.error);
    return false;
  }
  auto fresh = std::move(loaded.settings);
  const auto kept = settings_schema::keep_guarded(st.current, fresh);
  const auto cleared = settings_schema::take_cleared(fresh);
  // A generated secret the file cleared is made anew, as on a first start, and written as
  // mixerd's own change.
  std::vector<std::string> made;
  for (const char* secret : {"toast_api_key", "plant_store_token"})
    if (std::find(cleared.begin(), cleared.end(), secret) != cleared.end()) {
      fresh[secret] = settings_file::random_secret();
      st.pending[secret] = fresh[secret];
      made.emplace_back(secret);
    }
  for (auto& [key, value] : st.pending.items())
    fresh[key] = value;
  {
    // The command line keeps its own entry (set-password, api-key) before it sends SIGHUP: its
    // version is then the running one, and this reload is that same change.
    settings_file::write_lock lock(st.paths.lock());
    auto newest = st.history ? st.history->newest_version() : std::nullopt;
    if (!newest || !same_settings(st.current, *newest)) keep_version(st, st.current, fresh, "file");
  }
  st.current = std::move(fresh);
  if (!kept.empty())
    log::warn(component, "reload: ", st.paths.settings, " leaves out ", joined(kept),
              ": their running values are kept and written back (null clears a key)");
  if (!cleared.empty()) log::info(component, "reload: cleared by the file: ", joined(cleared));
  if (!made.empty()) log::info(component, "reload: made a new ", joined(made));
  log::info(component, "reloaded ", st.paths.settings);
  if (!kept.empty() || !made.empty()) save_pending(st, true);
  return true;
}

// Runs a change and, when it changed the settings, tells the watchers as a reload does.
template <class Change>
settings_change_result applied(settings_impl::stateful_pointer<settings_state> self, Change run) {
  auto& st = self->state;
  const auto before = st.current;
  auto result = run(st);
  if (result.status == 200 && st.current != before)
    for (auto& w : st.watchers)
      caf::anon_send(w, settings_reloaded{st.current});
  return result;
}

}  // namespace

settings_impl::behavior_type settings_behavior(settings_impl::stateful_pointer<settings_state> self,
                                               settings_file::paths paths, nlohmann::json initial) {
  self->state.paths = std::move(paths);
  self->state.current = std::move(initial);
  self->state.schema = settings_schema::document();
  self->state.history.emplace(self->state.paths.data_dir + "/history", limits::config_history_size);
  {
    // The daemon's writes and the command line's (set-password, api-key) share this lock, so
    // a temporary file found while holding it is one a kill cut short.
    settings_file::write_lock lock(self->state.paths.lock());
    if (lock.held()) settings_file::remove_leftover_temporaries(self->state.paths.settings);
  }
  self->set_down_handler([self](const caf::down_msg& down) {
    auto& w = self->state.watchers;
    w.erase(
        std::remove_if(w.begin(), w.end(), [&](const caf::actor& a) { return a == down.source; }),
        w.end());
  });
  return {
      [self](caf::get_atom) { return self->state.current; },
      [self](caf::put_atom, const std::string& key, nlohmann::json value) {
        auto& st = self->state;
        if (st.current.contains(key) && st.current[key] == value) return;
        st.current[key] = value;
        st.pending[key] = std::move(value);
        if (!st.flush_scheduled) {
          st.flush_scheduled = true;
          // A tick, not a flush request: a request's reply would come back to us unhandled.
          self->delayed_send(self, limits::settings_flush_delay, caf::tick_atom_v);
        }
      },
      [self](caf::tick_atom) {
        self->state.flush_scheduled = false;
        save_pending(self->state);
      },
      [self](caf::flush_atom) { return save_pending(self->state); },
      [self](reload_atom) {
        auto& st = self->state;
        if (!reload(st)) return false;
        for (auto& w : st.watchers)
          caf::anon_send(w, settings_reloaded{st.current});
        return true;
      },
      [self](settings_change& c) { return applied(self, [&](auto& st) { return change(st, c); }); },
      [self](settings_rollback& r) {
        return applied(self, [&](auto& st) { return rollback(st, r); });
      },
      [self](settings_replace& r) {
        return applied(self, [&](auto& st) { return replace(st, r); });
      },
      [self](settings_history_request) { return history_json(self->state); },
      [self](watch_atom, caf::actor watcher) {
        self->monitor(watcher);
        self->state.watchers.push_back(std::move(watcher));
      },
  };
}

}  // namespace mixerd
