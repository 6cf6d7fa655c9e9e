#include "protocol/auth.hpp"

#include <string_view>
#include <vector>

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

bool is_hex(std::string_view text) {
  return !text.empty() && text.size() % 2 == 0 &&
         text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// The stored form of protocol/README.md, "Password hash": pbkdf2_sha256$<iterations>$<salt
// hex>$<hash hex> (32 bytes). A password written here in clear would be refused by every login
// and lie on disk unprotected, so anything else is refused ("" means none).
std::optional<settings_schema::problem> check_password_hash(const json& s) {
  constexpr const char* key = "auth_password_hash";
  auto it = s.find(key);
  if (it == s.end()) return std::nullopt;
  if (!it->is_string()) return settings_schema::problem{key, "must be a string"};
  const auto& text = it->get_ref<const std::string&>();
  if (text.empty()) return std::nullopt;
  std::vector<std::string_view> fields;
  for (std::string_view rest = text;;) {
    const auto pos = rest.find('$');
    fields.push_back(rest.substr(0, pos));
    if (pos == std::string_view::npos) break;
    rest = rest.substr(pos + 1);
  }
  const bool ok = fields.size() == 4 && fields[0] == "pbkdf2_sha256" && !fields[1].empty() &&
                  fields[1].size() <= 9 && fields[1][0] != '0' &&
                  fields[1].find_first_not_of("0123456789") == std::string_view::npos &&
                  is_hex(fields[2]) && is_hex(fields[3]) && fields[3].size() == 64;
  if (ok) return std::nullopt;
  return settings_schema::problem{
      key,
      "must be a password hash (pbkdf2_sha256$<iterations>$<salt hex>$<hash hex>, as mixerd "
      "set-password and POST /api/auth/password write it), never the password itself"};
}

// Login on needs a password to log in with: set through the API, it would lock every browser
// out (a file may still say so: mixerd set-password is the way back in).
std::optional<settings_schema::problem> check_login_has_password(const json& s) {
  auto enabled = s.find("auth_enabled");
  if (enabled == s.end() || *enabled != true) return std::nullopt;
  auto hash = s.find("auth_password_hash");
  if (hash != s.end() && hash->is_string() && !hash->get_ref<const std::string&>().empty())
    return std::nullopt;
  return settings_schema::problem{"auth_enabled",
                                  "cannot be true before a password is set (POST "
                                  "/api/auth/password sets one and turns login on)"};
}

}  // namespace

std::string username_problem(std::string_view name) {
  if (name.empty() || name.size() > 64) return "must be 1-64 characters without control characters";
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return "must be 1-64 characters without control characters";
  return {};
}

std::string password_problem(std::string_view password) {
  if (password.size() < 8) return "must be at least 8 characters";
  if (password.size() > 1024) return "must be at most 1024 bytes";
  return {};
}

// Every key of the login is guarded: a reload of a file that leaves one out keeps it running
// (a lost auth_enabled would open the controller).
settings_schema::part auth_settings() {
  using settings_schema::boolean_schema;
  using settings_schema::guarded;
  using settings_schema::integer_schema;
  return {"auth",
          {
              guarded({"auth_enabled",
                       boolean_schema(false, "Login on: every controller request needs a session"),
                       nullptr, false, check_login_has_password}),
              guarded({"auth_username",
                       {{"type", "string"}, {"description", "The user name of the login"}}}),
              guarded({"auth_password_hash",
                       {{"type", "string"},
                        {"writeOnly", true},
                        {"pattern",
                         R"(^(pbkdf2_sha256\$[1-9][0-9]{0,8}\$([0-9a-f]{2})+\$[0-9a-f]{64})?$)"},
                        {"description",
                         "The password as a salted slow hash (mixerd set-password and POST "
                         "/api/auth/password write it)"}},
                       check_password_hash,
                       false,
                       check_login_has_password}),
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
