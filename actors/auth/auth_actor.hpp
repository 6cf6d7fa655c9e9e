// The auth actor owns controller login: the configured user and password hash (read from
// settings, refreshed on reload), the live sessions (server-side, idle expiry after
// session_timeout) and the per-address throttle of failed logins (5 failures in 5 minutes, then
// 429 until the window passes). It publishes its session table as an auth_view after every
// change, so that checking a request's session costs no message (actors/auth/session_table.hpp).
// Passwords are checked on a detached helper actor (PBKDF2 is slow). Interface:
// protocol/auth.hpp.
#pragma once

#include <caf/actor.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>

#include "protocol/auth.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"

namespace mixerd {

struct auth_config {
  bool enabled = false;
  std::string username;
  std::string password_hash;
  int session_timeout = 86400;  // seconds of idleness before a session ends
};

auth_config auth_config_from_settings(const nlohmann::json& settings);
// The table of a configuration without sessions (at start, before the actor runs).
auth_view auth_view_of(const auth_config& config);

struct auth_actor_state {
  auth_config config;
  auth_view table;  // enabled, timeout and the live sessions, as published
  std::shared_ptr<published<auth_view>> view;
  std::unordered_map<std::string, std::deque<std::chrono::steady_clock::time_point>> failures;
  caf::actor password_checker;  // detached, spawned on the first login
  static inline const char* name = "auth";
};

auth_actor::behavior_type auth_behavior(auth_actor::stateful_pointer<auth_actor_state> self,
                                        settings_actor settings, nlohmann::json initial_settings,
                                        std::shared_ptr<published<auth_view>> view);

}  // namespace mixerd
