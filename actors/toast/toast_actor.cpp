#include "actors/toast/toast_actor.hpp"

#include <caf/all.hpp>

#include "actors/support/log.hpp"
#include "actors/support/settings_file.hpp"
#include "protocol/metrics.hpp"
#include "protocol/secret.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "toast";
using self_ptr = toast_actor::stateful_pointer<toast_state>;

void publish_handlers(self_ptr self) {
  self->state.view->store(toast_view{self->state.handlers});
}
using outcome = toast_outcome::result;

toast_handler* find_handler(self_ptr self, std::string_view id) {
  for (auto& h : self->state.handlers)
    if (h.id == id) return &h;
  return nullptr;
}

// Every toast passes here once, with its outcome.
void remember(self_ptr self, toast_record record) {
  const auto outcome_index = static_cast<std::size_t>(record.outcome);
  if (outcome_index < toast::toast_outcome_names.size())
    metrics::bump(toast::toasts_of_process()[outcome_index]);
  auto& history = self->state.history;
  if (history.size() >= limits::toast_history_size) history.pop_front();
  history.push_back(std::move(record));
}

// Sends the toast to the device (known to be connected) and makes it the one on screen.
void show(self_ptr self, const std::string& handler, const toast_content& toast) {
  auto& st = self->state;
  auto now = std::chrono::steady_clock::now();
  if (st.on_screen_until && now < *st.on_screen_until) {
    for (auto it = st.history.rbegin(); it != st.history.rend(); ++it)
      if (it->outcome == outcome::shown) {
        it->replaced = true;
        break;
      }
  }
  st.on_screen_until = now + std::chrono::milliseconds(toast.duration_ms);
  self->send(st.wiring.device, protocol::host_command{toast::to_device_command(toast)});
  log::debug(component, handler, " toast shown: ", toast.message);
  remember(self, {handler, toast, outcome::shown, false, std::chrono::system_clock::now()});
}

// The handler's verdict before the device is asked; fills in the handler's colour.
std::optional<outcome> screen(self_ptr self, const std::string& handler, toast_content& toast) {
  auto* h = find_handler(self, handler);
  if (!h) return outcome::unknown_handler;
  if (toast.color.empty()) toast.color = h->color.substr(1);
  if (!h->enabled) {
    remember(self,
             {handler, toast, outcome::handler_disabled, false, std::chrono::system_clock::now()});
    return outcome::handler_disabled;
  }
  return std::nullopt;
}

// Asks the device whether it is connected, then shows the toast; `done` gets the outcome.
template <class Done>
void deliver(self_ptr self, std::string handler, toast_content toast, Done done) {
  if (auto verdict = screen(self, handler, toast)) return done(*verdict);
  self->request(self->state.wiring.device, limits::actor_request_timeout, caf::get_atom_v,
                status_atom_v)
      .then(
          [self, handler, toast, done](const device_view& status) mutable {
            if (!status.connected) {
              remember(self, {handler, toast, outcome::device_offline, false,
                              std::chrono::system_clock::now()});
              return done(outcome::device_offline);
            }
            show(self, handler, toast);
            done(outcome::shown);
          },
          [done](caf::error&) mutable { done(outcome::device_offline); });
}

// The system handler: the device's own link, on the device's screen when it can be.
void on_device_status(self_ptr self, const device_status& change) {
  auto& st = self->state;
  toast_content t;
  if (change.connected) {
    t.message = st.was_connected ? "Mixer reconnected" : "Mixer connected";
    t.icon = "checkmark";
    st.was_connected = true;
  } else {
    t.message = "Mixer disconnected";
    t.icon = "warning";
    st.on_screen_until.reset();
  }
  if (screen(self, "system", t)) return;
  if (change.connected) return show(self, "system", t);
  // Nothing can be shown on a device that is gone; the history keeps it.
  remember(self, {"system", t, outcome::device_offline, false, std::chrono::system_clock::now()});
}

// The system handler: the audio server going away (and coming back after that). The first
// connect at start is no news and shows nothing.
void on_audio_status(self_ptr self, const audio_status& change) {
  // The audio actor announces "not connected" only when it loses a server it had, so a loss
  // needs no earlier "connected" here: that one may have been published before this actor
  // subscribed (the audio actor starts first and may connect at once).
  auto& st = self->state;
  toast_content t;
  if (!change.connected) {
    if (st.audio_lost) return;
    st.audio_lost = true;
    t.message = "Audio server lost";
    t.icon = "warning";
  } else {
    if (!st.audio_lost) return;  // the first connect is no news
    st.audio_lost = false;
    t.message = "Audio server back";
    t.icon = "audio";
  }
  deliver(self, "system", t, [](outcome) {});
}

void persist_switches(self_ptr self) {
  nlohmann::json switches = nlohmann::json::object();
  for (const auto& h : self->state.handlers)
    switches[h.id] = h.enabled;
  self->send(self->state.wiring.settings, caf::put_atom_v, std::string("toast_handlers"),
             std::move(switches));
}

caf::result<std::string> regenerate(self_ptr self) {
  auto key = settings_file::random_secret();
  self->state.api_key = key;  // the old key fails from this message on
  self->send(self->state.wiring.settings, caf::put_atom_v, std::string("toast_api_key"),
             nlohmann::json(key));
  log::info(component, "notification API key regenerated");
  auto rp = self->make_response_promise<std::string>();
  // Answer once the file holds the key, so `mixerd api-key` agrees with the client at once.
  self->request(self->state.wiring.settings, limits::actor_request_timeout, caf::flush_atom_v)
      .then(
          [rp, key](bool saved) mutable {
            if (!saved) log::error(component, "the new API key is in effect but not saved yet");
            rp.deliver(key);
          },
          [rp, key](caf::error&) mutable { rp.deliver(key); });
  return rp;
}

}  // namespace

toast_handler_list toast_handlers_from_settings(const nlohmann::json& settings,
                                                toast_handler_list declared) {
  auto handlers = std::move(declared);
  auto it = settings.find("toast_handlers");
  if (it == settings.end() || !it->is_object()) return handlers;
  for (auto& h : handlers)
    if (auto sw = it->find(h.id); sw != it->end() && sw->is_boolean()) h.enabled = sw->get<bool>();
  return handlers;
}

toast_actor::behavior_type toast_behavior(toast_actor::stateful_pointer<toast_state> self,
                                          toast_wiring wiring, nlohmann::json initial_settings,
                                          std::shared_ptr<published<toast_view>> view) {
  auto& st = self->state;
  st.wiring = std::move(wiring);
  st.view = std::move(view);
  st.api_key = initial_settings.value("toast_api_key", std::string());
  st.handlers = toast_handlers_from_settings(initial_settings, st.wiring.declared);
  publish_handlers(self);
  self->send(st.wiring.settings, watch_atom_v, caf::actor_cast<caf::actor>(self));
  return {
      [self](const toast_admit& req) {
        toast_admission out;
        auto wait = self->state.limiter.admit(req.address, std::chrono::steady_clock::now());
        if (wait > 0) {
          out.what = toast_admission::verdict::rate_limited;
          out.retry_after = wait;
          log::debug(component, "rate limit reached for ", req.address);
        } else if (req.needs_key &&
                   !secret::constant_time_equal(req.api_key, self->state.api_key)) {
          out.what = toast_admission::verdict::unauthorized;
        }
        return out;
      },
      [self](toast_post& req) -> caf::result<toast_outcome> {
        auto rp = self->make_response_promise<toast_outcome>();
        deliver(self, std::move(req.handler), std::move(req.toast),
                [rp](outcome what) mutable { rp.deliver(toast_outcome{what}); });
        return rp;
      },
      [self](toast_notice& req) {
        deliver(self, std::move(req.handler), std::move(req.toast), [](outcome) {});
      },
      [self](const toast_loaded& req) {
        auto* h = find_handler(self, req.handler);
        if (!h || h->loaded == req.loaded) return;
        h->loaded = req.loaded;
        publish_handlers(self);
      },
      [self](caf::get_atom, handlers_atom) { return self->state.handlers; },
      [self](const toast_switch& req) {
        toast_switch_result out;
        auto* h = find_handler(self, req.id);
        if (!h) return out;
        out.found = true;
        if (h->enabled != req.enabled) {
          h->enabled = req.enabled;
          persist_switches(self);
          publish_handlers(self);
          log::info(component, "handler ", h->id, req.enabled ? " enabled" : " disabled");
        }
        out.handler = *h;
        return out;
      },
      [self](regenerate_atom) { return regenerate(self); },
      [self](caf::get_atom, history_atom) {
        return toast_history(self->state.history.begin(), self->state.history.end());
      },
      [self](const event& e) {
        if (auto* change = e.get_if<device_status>()) on_device_status(self, *change);
        if (auto* audio = e.get_if<audio_status>()) on_audio_status(self, *audio);
      },
      [self](const settings_reloaded& reloaded) {
        auto& s = reloaded.settings;
        if (auto key = s.find("toast_api_key");
            key != s.end() && key->is_string() &&
            key->get_ref<const std::string&>() != self->state.api_key) {
          self->state.api_key = key->get<std::string>();
          log::info(component, "notification API key changed in settings");
        }
        // The switches come from the file; whether an integration runs does not.
        auto fresh = toast_handlers_from_settings(s, self->state.wiring.declared);
        for (auto& h : fresh)
          if (auto* now = find_handler(self, h.id)) h.loaded = now->loaded;
        self->state.handlers = std::move(fresh);
        publish_handlers(self);
      },
  };
}

}  // namespace mixerd
