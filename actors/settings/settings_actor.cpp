#include "actors/settings/settings_actor.hpp"

#include <algorithm>
#include <caf/all.hpp>

#include "actors/support/log.hpp"
#include "protocol/limits.hpp"
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

// Locked read-modify-write: re-read the file, lay the pending keys over it, write it back. A
// guarded key (a secret, an access rule) the file leaves out gets its running value back, so no
// write of mixerd's ever drops one (settings_schema::keep_guarded). `after_reload`: also when
// nothing is pending (the reload kept guarded keys, and logged them).
bool save_pending(settings_state& st, bool after_reload = false) {
  if (st.pending.empty() && !after_reload) return true;
  settings_file::write_lock lock(st.paths.lock());
  if (!lock.held()) {
    log::error(component, "cannot lock ", st.paths.lock(), ": ", lock.error().message());
    return false;
  }
  auto on_disk = settings_file::load(st.paths.settings);
  if (!on_disk.ok()) {
    // Never overwrite a file the user broke: keep the changes in memory and say so.
    log::error(component, "not saving, the file is broken: ", on_disk.error);
    return false;
  }
  auto merged = on_disk.settings;
  auto kept = settings_schema::keep_guarded(st.current, merged);
  for (auto& [key, value] : st.pending.items())
    merged[key] = value;
  if (!kept.empty() && !after_reload)
    log::warn(component, st.paths.settings, " left out ", joined(kept),
              ": written back with the running values (null clears a key)");
  if (merged != on_disk.settings) {
    if (auto ec =
            settings_file::write_atomically(st.paths.settings, settings_file::serialize(merged))) {
      log::error(component, "cannot write ", st.paths.settings, ": ", ec.message());
      return false;
    }
    log::debug(component, "saved ", st.paths.settings);
  }
  // A null the file holds is a clear the next reload applies; the actors never see one.
  settings_schema::take_cleared(merged);
  st.current = std::move(merged);
  st.pending = nlohmann::json::object();
  return true;
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

}  // namespace

settings_impl::behavior_type settings_behavior(settings_impl::stateful_pointer<settings_state> self,
                                               settings_file::paths paths, nlohmann::json initial) {
  self->state.paths = std::move(paths);
  self->state.current = std::move(initial);
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
      [self](watch_atom, caf::actor watcher) {
        self->monitor(watcher);
        self->state.watchers.push_back(std::move(watcher));
      },
  };
}

}  // namespace mixerd
