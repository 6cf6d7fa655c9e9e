// Reading the auth capability's published session table (protocol/auth.hpp auth_view): the one
// session check, used by the auth actor and by the gateways on the io thread alike.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "protocol/auth.hpp"

namespace mixerd::auth {

// The table's key for a session id: its SHA-256, hex.
std::string session_digest(std::string_view session_id);

// Milliseconds of the steady clock (the unit of auth_session::last_seen_ms and login_ms).
std::int64_t steady_ms();

// Is login on, and is `session_id` a live session? A live session is touched (its idle time
// starts again). An expired one stays in the table until the actor sweeps it, refused.
auth_verdict check_session(const auth_view& view, std::string_view session_id);

// Has `session` ended at `now_ms` (steady_ms): idle longer than session_timeout, or logged in
// longer ago than session_max_lifetime?
bool expired(const auth_view& view, const auth_session& session, std::int64_t now_ms);

// The live sessions as GET /api/auth/sessions lists them, newest login first: {"id" (a handle:
// the first 16 hex digits of the table key, which opens nothing), "username", "address",
// "login", "last_seen" (local time), "current" (the session of `session_id`)}.
nlohmann::json sessions_json(const auth_view& view, std::string_view session_id,
                             std::int64_t now_ms);

}  // namespace mixerd::auth
