#include "actors/auth/auth_actor.hpp"

#include <openssl/crypto.h>

#include <caf/all.hpp>

#include "actors/auth/password_hash.hpp"
#include "actors/auth/session_table.hpp"
#include "actors/log.hpp"
#include "actors/settings/settings_file.hpp"
#include "protocol/messages.hpp"
#include "protocol/secret.hpp"
#include "protocol/settings_schema.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "auth";
using clock = std::chrono::steady_clock;
using self_ptr = auth_actor::stateful_pointer<auth_actor_state>;

constexpr std::size_t max_sessions = 1024;
constexpr std::size_t max_tracked_addresses = 4096;
constexpr std::size_t max_failures = 5;
constexpr auto failure_window = std::chrono::minutes(5);

// The table readers see changes with every login, logout, sweep and settings reload.
void publish(self_ptr self) {
  self->state.view->store(self->state.table);
}

void configure(self_ptr self, auth_config config) {
  auto& st = self->state;
  st.config = std::move(config);
  auto fresh = auth_view_of(st.config);
  st.table.enabled = fresh.enabled;
  st.table.session_timeout_ms = fresh.session_timeout_ms;
}

// Drops failures older than the window; returns the address's list.
std::deque<clock::time_point>& recent_failures(self_ptr self, const std::string& address) {
  auto& list = self->state.failures[address];
  auto now = clock::now();
  while (!list.empty() && now - list.front() >= failure_window)
    list.pop_front();
  return list;
}

bool expired(const auth_view& table, const auth_session& session, std::int64_t now_ms) {
  return now_ms - session.last_seen_ms->load(std::memory_order_relaxed) > table.session_timeout_ms;
}

void forget_stale(self_ptr self) {
  auto now = clock::now();
  auto& st = self->state;
  const auto now_ms = auth::steady_ms();
  auto& sessions = st.table.sessions;
  const auto before = sessions.size();
  for (auto it = sessions.begin(); it != sessions.end();)
    it = expired(st.table, it->second, now_ms) ? sessions.erase(it) : std::next(it);
  if (sessions.size() != before) publish(self);
  for (auto it = st.failures.begin(); it != st.failures.end();)
    it = it->second.empty() || now - it->second.back() >= failure_window ? st.failures.erase(it)
                                                                         : std::next(it);
}

// Runs PBKDF2 (300,000 rounds: about 0.1 s here, a second on a Pi) on a thread of its own, so
// that a login never stops the one scheduler worker that carries slider events. Linked to the
// auth actor: it ends with it.
caf::behavior password_checker(caf::event_based_actor* self, caf::actor auth) {
  self->link_to(auth);
  return {
      [](const login_attempt& req, const std::string& stored_hash) {
        bool ok = password_hash::verify(req.password, stored_hash);
        // OpenSSL keeps per-thread state (the error queue) until its thread exits, and CAF does
        // not join a detached actor's thread: a process that ends right after its actor system
        // (the daemon at shutdown, a test) can end first, and LeakSanitizer reports the state.
        // Freed here, on this thread, after each check.
        OPENSSL_thread_stop();
        return ok;
      },
  };
}

login_outcome finish_login(self_ptr self, const login_attempt& req, bool password_ok) {
  auto& st = self->state;
  login_outcome out;
  bool name_ok = secret::constant_time_equal(req.username, st.config.username);
  if (!(password_ok && name_ok)) {
    log::warn(component, "failed login for '", req.username, "' from ", req.address);
    out.what = login_outcome::result::invalid;
    return out;
  }
  st.failures.erase(req.address);
  auto& sessions = st.table.sessions;
  if (sessions.size() >= max_sessions) {
    auto oldest = std::min_element(sessions.begin(), sessions.end(), [](auto& a, auto& b) {
      return a.second.last_seen_ms->load() < b.second.last_seen_ms->load();
    });
    sessions.erase(oldest);
  }
  out.what = login_outcome::result::ok;
  out.session_id = settings_file::random_secret();
  out.max_age = req.remember ? st.config.session_timeout : 0;
  sessions[auth::session_digest(out.session_id)] = {
      st.config.username, std::make_shared<std::atomic<std::int64_t>>(auth::steady_ms())};
  publish(self);
  log::info(component, "'", st.config.username, "' logged in from ", req.address);
  return out;
}

caf::result<login_outcome> login(self_ptr self, const login_attempt& req) {
  auto& st = self->state;
  login_outcome out;
  if (!st.config.enabled) {
    out.what = login_outcome::result::disabled;
    return out;
  }
  forget_stale(self);
  auto& failures = recent_failures(self, req.address);
  if (failures.size() >= max_failures) {
    auto wait = failure_window - (clock::now() - failures.front());
    out.what = login_outcome::result::throttled;
    out.retry_after = static_cast<int>(std::chrono::ceil<std::chrono::seconds>(wait).count());
    log::warn(component, "login from ", req.address, " refused: too many failures");
    return out;
  }
  // Counted as a failure until the check says otherwise, so a burst of attempts sent before the
  // first answer is throttled like a series.
  if (st.failures.size() <= max_tracked_addresses) failures.push_back(clock::now());
  if (!st.password_checker)
    st.password_checker =
        self->spawn<caf::detached>(password_checker, caf::actor_cast<caf::actor>(self));
  // The hash is checked even for a wrong name, so both failures take the same time.
  auto promise = self->make_response_promise<login_outcome>();
  self->request(st.password_checker, caf::infinite, req, st.config.password_hash)
      .then(
          [self, req, promise](bool password_ok) mutable {
            promise.deliver(finish_login(self, req, password_ok));
          },
          [promise](caf::error& error) mutable { promise.deliver(std::move(error)); });
  return promise;
}

}  // namespace

auth_view auth_view_of(const auth_config& config) {
  auth_view view;
  view.enabled = config.enabled;
  view.session_timeout_ms = std::int64_t{config.session_timeout} * 1000;
  return view;
}

auth_config auth_config_from_settings(const nlohmann::json& s) {
  auth_config c;
  c.enabled = s.value("auth_enabled", false);
  c.username = s.value("auth_username", std::string());
  c.password_hash = s.value("auth_password_hash", std::string());
  c.session_timeout = s.value("session_timeout", settings_schema::default_session_timeout);
  return c;
}

auth_actor::behavior_type auth_behavior(auth_actor::stateful_pointer<auth_actor_state> self,
                                        settings_actor settings, nlohmann::json initial_settings,
                                        std::shared_ptr<published<auth_view>> view) {
  self->state.view = std::move(view);
  configure(self, auth_config_from_settings(initial_settings));
  publish(self);
  if (self->state.config.enabled)
    log::info(component, "controller login is on for '", self->state.config.username, "'");
  self->send(settings, watch_atom_v, caf::actor_cast<caf::actor>(self));
  return {
      [self](const auth_check& req) {
        return auth::check_session(self->state.table, req.session_id);
      },
      [self](const login_attempt& req) { return login(self, req); },
      [self](const logout_request& req) {
        if (req.session_id.empty()) return;
        if (self->state.table.sessions.erase(auth::session_digest(req.session_id)) > 0)
          publish(self);
      },
      [self](const settings_reloaded& reloaded) {
        auto fresh = auth_config_from_settings(reloaded.settings);
        const auto& cur = self->state.config;
        if (fresh.username != cur.username || fresh.password_hash != cur.password_hash ||
            fresh.enabled != cur.enabled) {
          self->state.table.sessions.clear();
          log::info(component, "login settings changed: ",
                    fresh.enabled ? "login is on for '" + fresh.username + "'" : "login is off",
                    "; all sessions ended");
        }
        configure(self, std::move(fresh));
        publish(self);
      },
  };
}

}  // namespace mixerd
