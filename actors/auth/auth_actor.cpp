#include "actors/auth/auth_actor.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <caf/all.hpp>
#include <ctime>
#include <thread>

#include "actors/auth/password_hash.hpp"
#include "actors/auth/session_table.hpp"
#include "actors/support/log.hpp"
#include "actors/support/settings_file.hpp"
#include "protocol/limits.hpp"
#include "protocol/secret.hpp"
#include "protocol/settings_schema.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "auth";
using clock = std::chrono::steady_clock;
using self_ptr = auth_actor::stateful_pointer<auth_state>;
using result = login_outcome::result;

// The table readers see changes with every login, logout, sweep and settings reload.
void publish(self_ptr self) {
  self->state.view->store(self->state.table);
}

void configure(self_ptr self, auth_config config) {
  auto& st = self->state;
  st.config = std::move(config);
  auto fresh = auth_view_of(st.config);
  st.table.enabled = fresh.enabled;
  st.table.password_set = fresh.password_set;
  st.table.session_timeout_ms = fresh.session_timeout_ms;
  st.table.session_max_lifetime_ms = fresh.session_max_lifetime_ms;
  st.table.metrics_token = std::move(fresh.metrics_token);
}

void forget_ended_sessions(self_ptr self) {
  auto& table = self->state.table;
  const auto now_ms = auth::steady_ms();
  const auto before = table.sessions.size();
  for (auto it = table.sessions.begin(); it != table.sessions.end();)
    it = auth::expired(table, it->second, now_ms) ? table.sessions.erase(it) : std::next(it);
  if (table.sessions.size() != before) publish(self);
}

// Runs PBKDF2 (300,000 rounds: about 0.06 s here, a second on a Pi) on a thread of its own, so
// that a login never stops a scheduler worker (one carries slider events). Linked to the auth
// actor: it ends with it. The auth actor sends it one check at a time.
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

// Makes the hash of a new password on a thread of its own (PBKDF2 as above), then ends. Linked
// to the auth actor as the checkers are. (It takes an argument: CAF 0.17 dereferences a null
// argument tuple when a function actor takes none.)
caf::behavior password_hasher(caf::event_based_actor* self, caf::actor auth) {
  self->link_to(auth);
  return {
      [self](const std::string& password) {
        auto hash = password_hash::make(password);
        OPENSSL_thread_stop();
        self->quit();
        return hash;
      },
  };
}

int whole_seconds(clock::duration d) {
  auto s = std::chrono::ceil<std::chrono::seconds>(d).count();
  return static_cast<int>(std::max<decltype(s)>(s, 1));
}

// An attempt that is not checked because too many wait: it does not count against its client.
void refuse_busy(self_ptr self, pending_login& login, const char* why) {
  auto& st = self->state;
  st.throttle.withdraw(login.ticket);
  login_outcome out;
  out.what = result::busy;
  const auto waiting = static_cast<clock::rep>(st.waiting.size() + 1);
  out.retry_after = whole_seconds(st.check_time * waiting / static_cast<clock::rep>(st.pool_size));
  log::warn(component, "login from ", login.req.address, " not checked: ", why);
  login.promise.deliver(out);
}

// A new session of the configured user from `address` (the least recently used one ends when
// the table is full); its id, the cookie value.
std::string open_session(self_ptr self, const std::string& address) {
  auto& sessions = self->state.table.sessions;
  if (sessions.size() >= login_limits::max_sessions) {
    auto oldest = std::min_element(sessions.begin(), sessions.end(), [](auto& a, auto& b) {
      return a.second.last_seen_ms->load() < b.second.last_seen_ms->load();
    });
    sessions.erase(oldest);
  }
  auto id = settings_file::random_secret();
  const auto now_ms = auth::steady_ms();
  sessions[auth::session_digest(id)] = {self->state.config.username,
                                        std::make_shared<std::atomic<std::int64_t>>(now_ms), now_ms,
                                        address, static_cast<std::int64_t>(std::time(nullptr))};
  publish(self);
  return id;
}

login_outcome finish_login(self_ptr self, const pending_login& login, bool password_ok) {
  auto& st = self->state;
  const auto& req = login.req;
  login_outcome out;
  // A check of the password alone (check_only) names no user: the login's is meant.
  bool name_ok = req.check_only || secret::constant_time_equal(req.username, st.config.username);
  if (!(password_ok && name_ok)) {
    // The attempt stays counted (it was counted when it arrived).
    log::warn(component, "failed login for '", req.username, "' from ", req.address);
    out.what = result::invalid;
    return out;
  }
  st.throttle.clear(login.ticket);
  out.what = result::ok;
  if (req.check_only) return out;
  out.session_id = open_session(self, req.address);
  // A remembered cookie never outlives the session (settings keep the lifetime >= the timeout).
  out.max_age =
      req.remember ? std::min(st.config.session_timeout, st.config.session_max_lifetime) : 0;
  log::info(component, "'", st.config.username, "' logged in from ", req.address);
  return out;
}

// The measured time of one check sizes the queue: on a slow machine fewer checks may wait.
void learn_check_time(self_ptr self, clock::duration took) {
  auto& st = self->state;
  st.check_time += (took - st.check_time) / 4;
  for (auto& late : st.waiting.resize(waiting_capacity(st.pool_size, st.check_time)))
    refuse_busy(self, late, "too many checks wait");
}

void dispatch(self_ptr self);

void start_check(self_ptr self, caf::actor checker, pending_login login) {
  auto& st = self->state;
  if (!st.config.enabled && !login.req.check_only) {
    st.idle_checkers.push_back(std::move(checker));
    st.throttle.withdraw(login.ticket);
    login_outcome out;
    out.what = result::disabled;
    login.promise.deliver(out);
    return;
  }
  // The hash is checked even for a wrong name, so both failures take the same time.
  auto hash = st.config.password_hash;
  const auto started = clock::now();
  self->request(checker, caf::infinite, login.req, hash)
      .then(
          [self, checker, login, hash, started](bool password_ok) mutable {
            auto& st = self->state;
            st.idle_checkers.push_back(checker);
            learn_check_time(self, clock::now() - started);
            // A reload may have changed the password while this one was being checked.
            password_ok = password_ok && hash == st.config.password_hash;
            login.promise.deliver(finish_login(self, login, password_ok));
            dispatch(self);
          },
          [login](caf::error& error) mutable { login.promise.deliver(std::move(error)); });
}

// Starts waiting checks on idle checkers (spawning one while the pool is not full).
void dispatch(self_ptr self) {
  auto& st = self->state;
  for (auto& late : st.waiting.take_older_than(clock::now() - login_limits::max_wait))
    refuse_busy(self, late, "waited too long for a password check");
  while (st.waiting.size() > 0) {
    if (st.idle_checkers.empty()) {
      if (st.checkers >= st.pool_size) return;
      // A thread the system cannot give refuses the waiting logins (busy), never ends the
      // auth actor (which would refuse every login until a restart).
      try {
        st.idle_checkers.push_back(
            self->spawn<caf::detached>(password_checker, caf::actor_cast<caf::actor>(self)));
        ++st.checkers;
      } catch (const std::exception& e) {
        log::error(component, "cannot start a password checker: ", e.what());
        if (st.checkers > 0) return;  // the running ones take the waiting logins
        while (st.waiting.size() > 0) {
          auto next = st.waiting.pop();
          refuse_busy(self, *next, "no password checker could be started");
        }
        return;
      }
    }
    auto checker = std::move(st.idle_checkers.back());
    st.idle_checkers.pop_back();
    start_check(self, std::move(checker), std::move(*st.waiting.pop()));
  }
}

caf::result<login_outcome> login(self_ptr self, const login_attempt& req) {
  auto& st = self->state;
  login_outcome out;
  if (!st.config.enabled && !req.check_only) {
    out.what = result::disabled;
    return out;
  }
  forget_ended_sessions(self);
  // Counted now, before the check: a burst sent before the first answer is throttled like a
  // series.
  const auto now = clock::now();
  auto admission = st.throttle.admit(req.address, now);
  if (!admission.admitted) {
    out.what = result::throttled;
    out.retry_after = admission.retry_after;
    log::warn(component, "login from ", req.address, " refused: too many failures");
    return out;
  }
  // Clients counted in the shared entry (the throttle's table is full) go last.
  const auto earlier = admission.ticket.shared ? login_limits::max_attempts : admission.earlier;
  auto promise = self->make_response_promise<login_outcome>();
  auto refused =
      st.waiting.push(earlier, now, pending_login{req, promise, std::move(admission.ticket)});
  if (refused) refuse_busy(self, *refused, "too many checks wait");
  dispatch(self);
  return promise;
}

password_outcome refused(int status, std::string error, int retry_after = 0) {
  password_outcome out;
  out.status = status;
  out.error = std::move(error);
  out.retry_after = retry_after;
  return out;
}

// The last step of a password change: the hash written through the settings actor (checked,
// saved, kept in the history, applied as a reload: the reload reaches this actor before the
// answer does, ending every session), then a session for the caller.
void store_password(self_ptr self, password_change req, std::string username, std::string hash,
                    caf::typed_response_promise<password_outcome> promise) {
  settings_change change{{{"auth_enabled", true},
                          {"auth_username", username},
                          {"auth_password_hash", std::move(hash)}},
                         req.source,
                         true};
  self->request(self->state.settings, limits::actor_request_timeout, std::move(change))
      .then(
          [self, req, username, promise](const settings_change_result& r) mutable {
            self->state.changing_password = false;
            if (r.status != 200) {
              promise.deliver(refused(r.status, r.error));
              return;
            }
            password_outcome out;
            out.username = username;
            out.session_id = open_session(self, req.address);
            log::info(component, "password set for '", username, "' from ", req.address,
                      "; login is on");
            promise.deliver(std::move(out));
          },
          [self, promise](caf::error&) mutable {
            self->state.changing_password = false;
            promise.deliver(refused(503, "The settings could not be changed now; try again"));
          });
}

// Hashes the new password on a thread of its own, then stores it.
void hash_password(self_ptr self, password_change req, std::string username,
                   caf::typed_response_promise<password_outcome> promise) {
  caf::actor hasher;
  try {
    hasher = self->spawn<caf::detached>(password_hasher, caf::actor_cast<caf::actor>(self));
  } catch (const std::exception& e) {
    log::error(component, "cannot start a password hasher: ", e.what());
    self->state.changing_password = false;
    {
      promise.deliver(refused(503, "The password could not be hashed now; try again", 1));
      return;
    }
  }
  self->request(hasher, caf::infinite, req.password)
      .then(
          [self, req, username, promise](std::string& hash) mutable {
            store_password(self, std::move(req), std::move(username), std::move(hash), promise);
          },
          [self, promise](caf::error&) mutable {
            self->state.changing_password = false;
            promise.deliver(refused(503, "The password could not be hashed now; try again", 1));
          });
}

caf::result<password_outcome> change_password(self_ptr self, password_change req) {
  auto& st = self->state;
  std::string username = req.username;
  if (username.empty()) username = st.config.username.empty() ? "admin" : st.config.username;
  if (auto problem = username_problem(username); !problem.empty())
    return refused(400, "username " + problem);
  if (auto problem = password_problem(req.password); !problem.empty())
    return refused(400, "password " + problem);
  const bool first = st.config.password_hash.empty();
  if (!first && !req.trusted)
    return refused(403, "Changing the password needs login or a browser on this machine");
  if (!first && req.current_password.empty())
    return refused(400, "current_password is required to change the password");
  // One change at a time: a second would race the first's settings write.
  if (st.changing_password)
    return refused(503, "Another password change is running; try again in 1 s", 1);
  st.changing_password = true;
  auto promise = self->make_response_promise<password_outcome>();
  if (first) {
    hash_password(self, std::move(req), std::move(username), promise);
    return promise;
  }
  // The current password is checked as a login is (throttled per client, queued).
  login_attempt check{{}, req.current_password, false, req.address, true};
  self->request(caf::actor_cast<auth_actor>(self), caf::infinite, std::move(check))
      .then(
          [self, req, username, promise](const login_outcome& out) mutable {
            using r = login_outcome::result;
            if (out.what == r::ok)
              return hash_password(self, std::move(req), std::move(username), promise);
            self->state.changing_password = false;
            if (out.what == r::throttled) {
              promise.deliver(refused(429,
                                      "Too many failed password checks; try again in " +
                                          std::to_string(out.retry_after) + " s",
                                      out.retry_after));
              return;
            }
            if (out.what == r::busy) {
              promise.deliver(refused(503,
                                      "Too many password checks at once; try again in " +
                                          std::to_string(out.retry_after) + " s",
                                      out.retry_after));
              return;
            }
            log::warn(component, "password change from ", req.address,
                      " refused: wrong current password");
            promise.deliver(refused(403, "current_password is wrong"));
          },
          [self, promise](caf::error&) mutable {
            self->state.changing_password = false;
            promise.deliver(refused(503, "The password could not be checked now; try again", 1));
          });
  return promise;
}

}  // namespace

std::size_t checker_pool_size() {
  const std::size_t cores = std::thread::hardware_concurrency();
  return std::clamp<std::size_t>(cores > 1 ? cores - 1 : 1, 1, login_limits::max_checkers);
}

std::size_t waiting_capacity(std::size_t pool, clock::duration check_time) {
  const auto per_checker = login_limits::wait_budget / std::max(check_time, clock::duration(1));
  return std::clamp<std::size_t>(pool * static_cast<std::size_t>(per_checker), 2 * pool,
                                 login_limits::max_waiting);
}

auth_view auth_view_of(const auth_config& config) {
  auth_view view;
  view.enabled = config.enabled;
  view.password_set = !config.password_hash.empty();
  view.session_timeout_ms = std::int64_t{config.session_timeout} * 1000;
  view.session_max_lifetime_ms = std::int64_t{config.session_max_lifetime} * 1000;
  view.metrics_token = config.metrics_token;
  return view;
}

auth_config auth_config_from_settings(const nlohmann::json& s) {
  auth_config c;
  c.enabled = s.value("auth_enabled", false);
  c.username = s.value("auth_username", std::string());
  c.password_hash = s.value("auth_password_hash", std::string());
  c.session_timeout = s.value("session_timeout", settings_schema::default_session_timeout);
  // Without the key, never shorter than the idle timeout (a long timeout set before the key
  // existed stays valid).
  c.session_max_lifetime =
      s.value("session_max_lifetime",
              std::max(settings_schema::default_session_max_lifetime, c.session_timeout));
  c.metrics_token = s.value("metrics_token", std::string());
  return c;
}

auth_actor::behavior_type auth_behavior(auth_actor::stateful_pointer<auth_state> self,
                                        settings_actor settings, nlohmann::json initial_settings,
                                        std::shared_ptr<published<auth_view>> view) {
  self->state.view = std::move(view);
  self->state.settings = settings;
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
      [self](password_change& req) { return change_password(self, std::move(req)); },
      [self](const sessions_request& req) {
        forget_ended_sessions(self);
        return auth::sessions_json(self->state.table, req.session_id, auth::steady_ms());
      },
      [self](logout_everywhere) {
        auto& sessions = self->state.table.sessions;
        const auto ended = static_cast<int>(sessions.size());
        sessions.clear();
        publish(self);
        log::info(component, "logged out everywhere: ", ended, " sessions ended");
        return ended;
      },
      [self](const logout_request& req) {
        if (req.session_id.empty()) return false;
        if (self->state.table.sessions.erase(auth::session_digest(req.session_id)) == 0)
          return false;
        publish(self);
        return true;
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
