// The auth capability: controller login. Its actor owns the configured user and password hash,
// the live sessions and the failed-login throttle. It publishes its session table, so that a
// request's session check costs no round trip (actors/auth/session_table.hpp reads it).
#pragma once

#include <atomic>
#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "protocol/profiles.hpp"
#include "protocol/settings.hpp"

namespace mixerd {

// -> auth_verdict. An empty id asks only whether login is on.
struct auth_check {
  std::string session_id;
};
struct auth_verdict {
  bool enabled = false;
  bool authenticated = false;  // always true while login is off
  std::string username;        // of the session; empty when none
};
// -> login_outcome
struct login_attempt {
  std::string username;
  std::string password;
  bool remember = false;
  std::string address;  // client IP, for throttling
  // Checks the password only (throttled and queued as a login, whether or not login is on) and
  // makes no session: the current password of a password change.
  bool check_only = false;
};
struct login_outcome {
  // busy: too many password checks wait already; the attempt was not checked and not counted.
  enum class result { ok, invalid, throttled, disabled, busy };
  result what = result::invalid;
  std::string session_id;  // ok: the new session's id (the cookie value)
  int max_age = 0;         // ok: cookie lifetime in seconds; 0 = until the browser closes
  int retry_after = 0;     // throttled, busy: seconds until trying again makes sense
};
// -> bool (a session ended). Answered once the session is gone from the published table, so a
// request sent after the logout's answer is refused.
struct logout_request {
  std::string session_id;
};

// -> password_outcome. Sets the login's password (and user name), turns login on and logs the
// caller in. While no password exists any caller may (the first password, as an onboarding
// page sets it); afterwards only a trusted caller, and `current_password` must be right (checked
// and throttled as a login). Written through the settings actor, so the history keeps it and the
// reload ends every other session.
struct password_change {
  std::string username;  // empty: the configured one, else "admin"
  std::string password;
  std::string current_password;
  std::string address;  // client IP, for throttling
  bool trusted = false;
  std::string source;  // for the history: "api" or "web"
};
struct password_outcome {
  int status = 200;  // 200, or 400 403 409 429 503 with `error`
  std::string error;
  std::string username;
  std::string session_id;  // 200: the caller's new session (the cookie value)
  int retry_after = 0;     // 429, 503
};
// -> nlohmann::json {"sessions": [...]} (docs/api/settings.md): the live sessions, the one of
// `session_id` marked current. Never an id: a handle that names a session without opening it.
struct sessions_request {
  std::string session_id;
};
// -> int, the sessions ended: every session, the caller's too ("log out everywhere").
struct logout_everywhere {};

// User names of the login: 1-64 characters without control characters. "" or the problem.
std::string username_problem(std::string_view name);
// Passwords set through the API: 8-1024 bytes. "" or the problem.
std::string password_problem(std::string_view password);

// One live session. `last_seen_ms` (steady clock, milliseconds) is shared by every snapshot of
// the table and by the actor: a reader that accepts the session touches it without a message.
// `login_ms` (same clock) never changes: the session ends session_max_lifetime after it.
struct auth_session {
  std::string username;
  std::shared_ptr<std::atomic<std::int64_t>> last_seen_ms;
  std::int64_t login_ms = 0;
  std::string address;            // of the login, for the sessions list
  std::int64_t login_wall_s = 0;  // the login's wall-clock time (Unix seconds), same
};

// What the auth actor publishes after every change of login settings or sessions. Sessions are
// keyed by the SHA-256 of their id: a lookup never compares the secret itself.
struct auth_view {
  bool enabled = false;
  bool password_set = false;  // a password exists (the first one may be set by anyone)
  std::int64_t session_timeout_ms = 86'400'000;
  std::int64_t session_max_lifetime_ms = 2'592'000'000;
  std::unordered_map<std::string, auth_session> sessions;
  // The setting metrics_token: GET /metrics also accepts it as a bearer token. Empty: not set.
  std::string metrics_token;
};

using auth_actor = caf::typed_actor<caf::replies_to<auth_check>::with<auth_verdict>,
                                    caf::replies_to<login_attempt>::with<login_outcome>,
                                    caf::replies_to<logout_request>::with<bool>,
                                    caf::replies_to<password_change>::with<password_outcome>,
                                    caf::replies_to<sessions_request>::with<nlohmann::json>,
                                    caf::replies_to<logout_everywhere>::with<int>,
                                    caf::reacts_to<settings_reloaded>>;

namespace settings_schema {
struct part;
}  // namespace settings_schema

// Its keys of settings.json: login on or off, the user, the password hash, the session times.
settings_schema::part auth_settings();

}  // namespace mixerd

// The auth capability's CAF type-ID block, chained after the profiles block (docs/architecture.md,
// "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::auth_check)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::auth_verdict)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::login_attempt)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::login_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::logout_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::password_change)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::password_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::sessions_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::logout_everywhere)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_auth, caf::id_block::mixerd_profiles::end)
CAF_ADD_TYPE_ID(mixerd_auth, (mixerd::auth_check))
CAF_ADD_TYPE_ID(mixerd_auth, (mixerd::auth_verdict))
CAF_ADD_TYPE_ID(mixerd_auth, (mixerd::login_attempt))
CAF_ADD_TYPE_ID(mixerd_auth, (mixerd::login_outcome))
CAF_ADD_TYPE_ID(mixerd_auth, (mixerd::logout_request))
CAF_ADD_TYPE_ID(mixerd_auth, (mixerd::password_change))
CAF_ADD_TYPE_ID(mixerd_auth, (mixerd::password_outcome))
CAF_ADD_TYPE_ID(mixerd_auth, (mixerd::sessions_request))
CAF_ADD_TYPE_ID(mixerd_auth, (mixerd::logout_everywhere))
CAF_END_TYPE_ID_BLOCK(mixerd_auth)
