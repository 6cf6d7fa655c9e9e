#include "actors/auth/session_table.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <utility>
#include <vector>

#include "actors/support/local_time.hpp"
#include "protocol/secret.hpp"

namespace mixerd::auth {

std::string session_digest(std::string_view session_id) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(session_id.data(), session_id.size(), digest, &size, EVP_sha256(), nullptr);
  return secret::to_hex(digest, size);
}

std::int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

auth_verdict check_session(const auth_view& view, std::string_view session_id) {
  if (!view.enabled) return {false, true, {}};
  if (session_id.empty()) return {true, false, {}};
  auto it = view.sessions.find(session_digest(session_id));
  if (it == view.sessions.end()) return {true, false, {}};
  const auto now = steady_ms();
  if (expired(view, it->second, now)) return {true, false, {}};
  it->second.last_seen_ms->store(now, std::memory_order_relaxed);
  return {true, true, it->second.username};
}

bool expired(const auth_view& view, const auth_session& session, std::int64_t now_ms) {
  return now_ms - session.last_seen_ms->load(std::memory_order_relaxed) > view.session_timeout_ms ||
         now_ms - session.login_ms > view.session_max_lifetime_ms;
}

nlohmann::json sessions_json(const auth_view& view, std::string_view session_id,
                             std::int64_t now_ms) {
  const auto current = session_id.empty() ? std::string() : session_digest(session_id);
  const std::time_t now_wall = std::time(nullptr);
  std::vector<std::pair<const std::string*, const auth_session*>> live;
  for (const auto& [key, session] : view.sessions)
    if (!expired(view, session, now_ms)) live.emplace_back(&key, &session);
  std::sort(live.begin(), live.end(),
            [](const auto& a, const auto& b) { return a.second->login_ms > b.second->login_ms; });
  auto sessions = nlohmann::json::array();
  for (const auto& [key, session] : live) {
    // The steady clock dates the last request; the wall clock is read once for all.
    const auto idle_s = (now_ms - session->last_seen_ms->load(std::memory_order_relaxed)) / 1000;
    sessions.push_back({{"id", key->substr(0, 16)},
                        {"username", session->username},
                        {"address", session->address},
                        {"login", local_timestamp(static_cast<std::time_t>(session->login_wall_s))},
                        {"last_seen", local_timestamp(now_wall - static_cast<std::time_t>(idle_s))},
                        {"current", *key == current}});
  }
  return {{"sessions", std::move(sessions)}};
}

}  // namespace mixerd::auth
