// The auth actor owns controller login: the configured user and password hash (read from
// settings, refreshed on reload), the live sessions (server-side; they end after session_timeout
// unused and session_max_lifetime after their login) and the throttle of login attempts per
// client (actors/auth/login_throttle.hpp). It publishes its session table as an auth_view after
// every change, so that checking a request's session costs no message
// (actors/auth/session_table.hpp). Passwords are checked by a small pool of detached checker
// actors, one check each at a time, fed from a bounded queue that puts clients that have not
// failed first (actors/auth/check_queue.hpp): PBKDF2 never runs on a scheduler worker, and a
// flood of failed logins cannot hold up a correct one for long. Interface: protocol/auth.hpp.
#pragma once

#include <caf/actor.hpp>
#include <caf/typed_response_promise.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "actors/auth/check_queue.hpp"
#include "actors/auth/login_throttle.hpp"
#include "actors/support/capability.hpp"
#include "protocol/auth.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"

namespace mixerd {

namespace login_limits {
inline constexpr std::size_t max_sessions = 1024;
inline constexpr std::size_t max_attempts = 5;  // per client and window (docs/api.md)
inline constexpr auto attempt_window = std::chrono::minutes(5);
inline constexpr std::size_t max_tracked_clients = 4096;
// Password checks: at most this many checker threads (fewer on small machines, see
// checker_pool_size), and as many waiting checks as would start within the wait budget by the
// measured time of a check. A check that waits longer than max_wait is not run.
inline constexpr std::size_t max_checkers = 4;
inline constexpr auto wait_budget = std::chrono::seconds(2);
inline constexpr auto max_wait = std::chrono::seconds(10);
inline constexpr std::size_t max_waiting = 256;
inline constexpr auto first_check_estimate = std::chrono::milliseconds(100);
}  // namespace login_limits

struct auth_config {
  bool enabled = false;
  std::string username;
  std::string password_hash;
  int session_timeout = 86400;         // seconds of idleness before a session ends
  int session_max_lifetime = 2592000;  // seconds after its login that a session ends
  std::string metrics_token;           // empty: GET /metrics takes only a session
};

auth_config auth_config_from_settings(const nlohmann::json& settings);
// The table of a configuration without sessions (at start, before the actor runs).
auth_view auth_view_of(const auth_config& config);

// Checker threads for this machine: one fewer than its cores (the scheduler workers and the
// io thread keep a core), at least one, at most login_limits::max_checkers.
std::size_t checker_pool_size();
// Checks that may wait: as many as `pool` checkers finish within the wait budget when one check
// takes `check_time`; at least two per checker, at most login_limits::max_waiting.
std::size_t waiting_capacity(std::size_t pool, std::chrono::steady_clock::duration check_time);

// A login waiting for its password check: what to check, whom to answer, where it counted.
struct pending_login {
  login_attempt req;
  caf::typed_response_promise<login_outcome> promise;
  auth::login_throttle::counted ticket;
};

struct auth_state {
  auth_config config;
  auth_view table;  // enabled, timeouts and the live sessions, as published
  std::shared_ptr<published<auth_view>> view;
  auth::login_throttle throttle{login_limits::max_attempts, login_limits::attempt_window,
                                login_limits::max_tracked_clients};
  std::size_t pool_size = checker_pool_size();
  auth::check_queue<pending_login> waiting{
      waiting_capacity(pool_size, login_limits::first_check_estimate)};
  std::vector<caf::actor> idle_checkers;
  std::size_t checkers = 0;  // spawned so far (on demand, up to pool_size)
  std::chrono::steady_clock::duration check_time = login_limits::first_check_estimate;
  settings_actor settings;         // where a password change is written
  bool changing_password = false;  // one at a time
  static inline const char* name = "auth";
};

auth_actor::behavior_type auth_behavior(auth_actor::stateful_pointer<auth_state> self,
                                        settings_actor settings, nlohmann::json initial_settings,
                                        std::shared_ptr<published<auth_view>> view);

// Its row of the capability table (actors/auth/auth_capability.cpp).
const capability& auth_capability();

}  // namespace mixerd
