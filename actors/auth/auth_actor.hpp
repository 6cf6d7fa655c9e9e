// The auth actor owns controller login: the configured user and password hash (read from
// settings, refreshed on reload), the live sessions (server-side, idle expiry after
// session_timeout) and the per-address throttle of failed logins (contract.md: 5 failures in
// 5 minutes, then 429 until the window passes).
//
// Messages:
//   auth_check       -> auth_state     is login on, and is this session valid (touches it)
//   login_attempt    -> login_outcome  a new CSPRNG session id on every success; the password
//                                      is checked on a detached thread (PBKDF2 is slow)
//   logout_request   -> void           destroys the session
//   settings_reloaded                  new user/hash/timeout; a changed user or hash ends all
//                                      sessions
#pragma once

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <chrono>
#include <deque>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>

namespace mixerd {

struct auth_config {
  bool enabled = false;
  std::string username;
  std::string password_hash;
  int session_timeout = 86400;  // seconds of idleness before a session ends
};

auth_config auth_config_from_settings(const nlohmann::json& settings);

struct auth_session {
  std::string username;
  std::chrono::steady_clock::time_point last_seen;
};

struct auth_actor_state {
  auth_config config;
  // Keyed by the SHA-256 of the session id: lookups never compare the secret itself.
  std::unordered_map<std::string, auth_session> sessions;
  std::unordered_map<std::string, std::deque<std::chrono::steady_clock::time_point>> failures;
  caf::actor password_checker;  // detached, spawned on the first login
  static inline const char* name = "auth";
};

caf::behavior auth_actor(caf::stateful_actor<auth_actor_state>* self, caf::actor settings,
                         nlohmann::json initial_settings);

}  // namespace mixerd
