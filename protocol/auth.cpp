#include "protocol/auth.hpp"

#include "protocol/settings_schema.hpp"

namespace mixerd {

// ---- Settings: login ---------------------------------------------------------------------------

namespace {

using json = nlohmann::json;

bool is_int_in(const json& v, long long lo, long long hi) {
  return v.is_number_integer() && v.get<long long>() >= lo && v.get<long long>() <= hi;
}

// A session ends session_max_lifetime after its login, so the lifetime is at least the idle
// timeout. Without the key the lifetime is the longer of its default and the timeout.
std::optional<settings_schema::problem> check_session_max_lifetime(const json& s) {
  constexpr const char* key = "session_max_lifetime";
  if (auto it = s.find(key); it != s.end() && !is_int_in(*it, 1, 31'536'000))
    return settings_schema::problem{key, settings_schema::range_text(1, 31'536'000)};
  auto lifetime = s.find(key);
  if (lifetime == s.end()) return std::nullopt;
  auto timeout = s.find("session_timeout");
  if (timeout != s.end() && !is_int_in(*timeout, 1, 31'536'000)) return std::nullopt;
  const long long timeout_s =
      timeout == s.end() ? settings_schema::default_session_timeout : timeout->get<long long>();
  if (lifetime->get<long long>() >= timeout_s) return std::nullopt;
  return settings_schema::problem{
      key, "must be at least session_timeout (" + std::to_string(timeout_s) + ")"};
}

}  // namespace

// Every key of the login is guarded: a reload of a file that leaves one out keeps it running
// (a lost auth_enabled would open the controller).
settings_schema::part auth_settings() {
  using settings_schema::boolean_schema;
  using settings_schema::guarded;
  using settings_schema::integer_schema;
  return {
      "auth",
      {
          guarded({"auth_enabled",
                   boolean_schema(false, "Login on: every controller request needs a session")}),
          guarded({"auth_username",
                   {{"type", "string"}, {"description", "The user name of the login"}}}),
          guarded({"auth_password_hash",
                   {{"type", "string"},
                    {"writeOnly", true},
                    {"description",
                     "The password as a salted slow hash (mixerd set-password writes it)"}}}),
          guarded({"session_timeout",
                   integer_schema(1, 31'536'000, settings_schema::default_session_timeout,
                                  "Seconds a session may stay unused")}),
          guarded({"session_max_lifetime",
                   integer_schema(1, 31'536'000, settings_schema::default_session_max_lifetime,
                                  "Seconds a session lasts after its login at most (at least "
                                  "session_timeout)"),
                   check_session_max_lifetime}),
      }};
}

}  // namespace mixerd
