// The bridge's switches: POST /api/plugins/{id} and the switches and own settings of a plugin
// changed in settings.json (SIGHUP).
#include <caf/all.hpp>
#include <set>

#include "actors/support/log.hpp"
#include "plugins/bridge/bridge_internal.hpp"

namespace mixerd::bridge {

plugin_switch_result switch_plugin(self_ptr self, const std::string& id, bool enabled, bool save) {
  auto& st = self->state;
  auto it = st.plugins.find(id);
  if (it == st.plugins.end()) return {false, {}};
  auto& p = it->second;
  p.info.enabled = enabled;
  if (save) {
    auto& entry = st.stored[id];
    if (!entry.is_object()) entry = nlohmann::json::object();
    entry["enabled"] = enabled;
    persist(self);
  }
  if (!is_runnable(p)) {
    publish(self);
    return {true, p.info};
  }
  if (enabled) {
    if (p.info.state == plugin_state::failed) {
      p.crashes.clear();
      p.info.last_error.clear();
    }
    if (p.proc && p.stop_requested) {
      p.start_after_stop = true;
    } else if (!p.proc && !st.stopping) {
      start(self, p);
    }
  } else {
    if (p.proc) {
      log::info(component_of(p), "disabled: stopping");
      begin_stop(self, p, true);
    } else {
      ++p.gen;  // a restart that waits is called off
    }
    p.info.state = plugin_state::stopped;
  }
  publish(self);
  return {true, p.info};
}

void on_reload(self_ptr self, const nlohmann::json& settings) {
  auto& st = self->state;
  if (st.stopping) return;
  auto fresh = settings.find("plugins");
  nlohmann::json now =
      fresh != settings.end() && fresh->is_object() ? *fresh : nlohmann::json::object();
  auto own = [](const nlohmann::json& all, const std::string& id) {
    auto e = all.find(id);
    if (e == all.end() || !e->is_object()) return nlohmann::json::object();
    auto s = e->find("settings");
    return s != e->end() && s->is_object() ? *s : nlohmann::json::object();
  };
  auto old = std::move(st.stored);
  st.stored = now;
  for (auto& [id, p] : st.plugins) {
    const auto before = own(old, id);
    const auto after = own(now, id);
    if (before != after && is_loaded(p) && !p.stop_requested) {
      std::set<std::string> keys;
      for (const auto& [k, v] : before.items())
        keys.insert(k);
      for (const auto& [k, v] : after.items())
        keys.insert(k);
      for (const auto& k : keys) {
        auto a = before.find(k);
        auto b = after.find(k);
        const bool same =
            (a == before.end()) == (b == after.end()) && (a == before.end() || *a == *b);
        if (!same)
          enqueue(self, p,
                  {hook_item::kind::hook, "on_settings_change",
                   nlohmann::json::array({k, b == after.end() ? nlohmann::json() : *b})});
      }
    }
    bool enabled = true;
    if (auto e = now.find(id); e != now.end() && e->is_object())
      if (auto f = e->find("enabled"); f != e->end() && f->is_boolean()) enabled = f->get<bool>();
    if (enabled != p.info.enabled) switch_plugin(self, id, enabled, false);
  }
}

}  // namespace mixerd::bridge
