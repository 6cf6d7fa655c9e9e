#include "actors/settings/settings_actor.hpp"

#include <caf/all.hpp>

#include "actors/support/log.hpp"
#include "protocol/limits.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "settings";

// Locked read-modify-write: re-read the file, lay the pending keys over it, write it back.
bool save_pending(settings_state& st) {
  if (st.pending.empty()) return true;
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
  auto merged = std::move(on_disk.settings);
  for (auto& [key, value] : st.pending.items())
    merged[key] = value;
  if (auto ec =
          settings_file::write_atomically(st.paths.settings, settings_file::serialize(merged))) {
    log::error(component, "cannot write ", st.paths.settings, ": ", ec.message());
    return false;
  }
  st.current = std::move(merged);
  st.pending = nlohmann::json::object();
  log::debug(component, "saved ", st.paths.settings);
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
        auto loaded = settings_file::load(st.paths.settings);
        if (!loaded.ok()) {
          log::error(component, "reload ignored, running settings kept: ", loaded.error);
          return false;
        }
        auto fresh = std::move(loaded.settings);
        for (auto& [key, value] : st.pending.items())
          fresh[key] = value;
        st.current = std::move(fresh);
        log::info(component, "reloaded ", st.paths.settings);
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
