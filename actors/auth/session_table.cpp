#include "actors/auth/session_table.hpp"

#include <openssl/evp.h>

#include <chrono>

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

}  // namespace mixerd::auth
