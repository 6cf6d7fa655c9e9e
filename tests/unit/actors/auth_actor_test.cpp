#include "actors/auth/auth_actor.hpp"

#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "actors/auth/password_hash.hpp"
#include "actors/auth/session_table.hpp"
#include "protocol/messages.hpp"
#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/text.hpp"
#include "tests/unit/support/wait.hpp"

using json = nlohmann::json;
namespace password_hash = mixerd::password_hash;
namespace auth = mixerd::auth;
using mixerd::auth_actor;
using mixerd::auth_behavior;
using mixerd::auth_check;
using mixerd::auth_config_from_settings;
using mixerd::auth_state;
using mixerd::auth_view;
using mixerd::auth_view_of;
using mixerd::login_attempt;
using mixerd::login_outcome;
using mixerd::logout_request;
using mixerd::published;
using mixerd::settings_actor;
using mixerd::settings_reloaded;
using mixerd::watch_atom;
using mixerd::test::eventually;
using mixerd::test::playing;
using mixerd::test::receive_within;
using result = login_outcome::result;

namespace {

constexpr int fast = 1000;  // PBKDF2 iterations: the check does not depend on them

json login_settings(const std::string& password, int session_timeout = 86400) {
  return {{"auth_enabled", true},
          {"auth_username", "admin"},
          {"auth_password_hash", password_hash::make(password, fast)},
          {"session_timeout", session_timeout}};
}

// The auth actor with a scoped actor playing the settings actor; what it publishes lands in
// `view`, as in the daemon.
struct auth_fixture : mixerd::test::actor_fixture {
  caf::scoped_actor settings{sys};
  caf::scoped_actor client{sys};
  std::shared_ptr<published<auth_view>> view;
  auth_actor auth;

  void start(const json& initial) {
    view = std::make_shared<published<auth_view>>(auth_view_of(auth_config_from_settings(initial)));
    auth = spawn(auth_behavior, playing<settings_actor>(settings), initial, view);
    caf::actor watcher;
    REQUIRE(receive_within(settings, [&](watch_atom, const caf::actor& a) { watcher = a; }));
    CHECK(watcher == caf::actor_cast<caf::actor>(auth));
  }

  login_outcome login(const std::string& username, const std::string& password,
                      const std::string& address = "192.0.2.1", bool remember = false) {
    return mixerd::test::ask<login_outcome>(client, auth,
                                            login_attempt{username, password, remember, address});
  }

  auth_state check(const std::string& session_id) {
    return mixerd::test::ask<auth_state>(client, auth, auth_check{session_id});
  }

  // The published table as it is now.
  std::shared_ptr<const auth_view> table() {
    auto latest = view->load();
    REQUIRE(latest != nullptr);
    return latest;
  }

  // A request that is answered only after everything sent before it was handled.
  void sync() { check(""); }
};

}  // namespace

TEST_CASE_FIXTURE(auth_fixture, "with login off every request is authenticated and login says so") {
  start(json{{"auth_enabled", false}});
  auto state = check("");
  CHECK_FALSE(state.enabled);
  CHECK(state.authenticated);
  CHECK(state.username.empty());
  CHECK(check("anything").authenticated);
  CHECK(login("admin", "secret").what == result::disabled);
  auto t = table();
  CHECK_FALSE(t->enabled);
  CHECK(t->sessions.empty());
  CHECK(auth::check_session(*t, "").authenticated);
  CHECK_FALSE(auth::check_session(*t, "").enabled);
}

TEST_CASE_FIXTURE(auth_fixture,
                  "a correct login creates a session that the published table accepts") {
  start(login_settings("secret"));
  auto before = table();
  CHECK(before->enabled);
  CHECK(before->session_timeout_ms == 86'400'000);
  CHECK(before->sessions.empty());
  CHECK_FALSE(auth::check_session(*before, "").authenticated);

  auto out = login("admin", "secret");
  REQUIRE(out.what == result::ok);
  CHECK(out.session_id.size() == 64);
  CHECK(mixerd::test::is_lower_hex(out.session_id));
  CHECK(out.max_age == 0);  // no "remember": a browser-session cookie

  // The session is in the table readers see, keyed by the digest of its id (never the id).
  auto after = table();
  REQUIRE(after->sessions.size() == 1);
  CHECK(after->sessions.count(auth::session_digest(out.session_id)) == 1);
  CHECK(after->sessions.count(out.session_id) == 0);
  auto seen = auth::check_session(*after, out.session_id);
  CHECK(seen.enabled);
  CHECK(seen.authenticated);
  CHECK(seen.username == "admin");
  CHECK_FALSE(auth::check_session(*after, out.session_id + "0").authenticated);
  CHECK_FALSE(auth::check_session(*after, "").authenticated);
  // The actor answers from the same table.
  auto state = check(out.session_id);
  CHECK(state.authenticated);
  CHECK(state.username == "admin");
  CHECK_FALSE(check("not-a-session").authenticated);

  // Every login is a new session; "remember" asks for a cookie as long as the timeout.
  auto second = login("admin", "secret", "192.0.2.1", true);
  REQUIRE(second.what == result::ok);
  CHECK(second.session_id != out.session_id);
  CHECK(second.max_age == 86400);
  CHECK(table()->sessions.size() == 2);
  CHECK(auth::check_session(*table(), out.session_id).authenticated);
}

TEST_CASE_FIXTURE(auth_fixture, "a wrong password or name is refused and makes no session") {
  start(login_settings("secret"));
  CHECK(login("admin", "Secret").what == result::invalid);
  CHECK(login("admin", "").what == result::invalid);
  CHECK(login("Admin", "secret").what == result::invalid);
  CHECK(login("", "secret").what == result::invalid);
  auto refused = login("root", "secret");
  CHECK(refused.what == result::invalid);
  CHECK(refused.session_id.empty());
  CHECK(table()->sessions.empty());
}

TEST_CASE_FIXTURE(auth_fixture,
                  "five failures in a row throttle the address, even the right password") {
  start(login_settings("secret"));
  for (int i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(login("admin", "wrong").what == result::invalid);
  }
  auto throttled = login("admin", "secret");
  CHECK(throttled.what == result::throttled);
  CHECK(throttled.retry_after >= 299);
  CHECK(throttled.retry_after <= 300);
  CHECK(throttled.session_id.empty());
  CHECK(table()->sessions.empty());
  // Another address is not held up.
  CHECK(login("admin", "secret", "192.0.2.2").what == result::ok);
  CHECK(login("admin", "secret").what == result::throttled);
}

TEST_CASE_FIXTURE(auth_fixture, "a successful login clears the address's failures") {
  start(login_settings("secret"));
  for (int i = 0; i < 4; ++i)
    CHECK(login("admin", "wrong").what == result::invalid);
  CHECK(login("admin", "secret").what == result::ok);
  for (int i = 0; i < 4; ++i)
    CHECK(login("admin", "wrong").what == result::invalid);
  CHECK(login("admin", "secret").what == result::ok);
}

TEST_CASE_FIXTURE(auth_fixture, "logout removes the session from the published table") {
  start(login_settings("secret"));
  auto a = login("admin", "secret");
  auto b = login("admin", "secret");
  REQUIRE(a.what == result::ok);
  REQUIRE(b.what == result::ok);
  client->send(auth, logout_request{a.session_id});
  client->send(auth, logout_request{""});         // no cookie: nothing happens
  client->send(auth, logout_request{"unknown"});  // not a session: nothing happens
  sync();
  auto t = table();
  CHECK(t->sessions.size() == 1);
  CHECK_FALSE(auth::check_session(*t, a.session_id).authenticated);
  CHECK(auth::check_session(*t, b.session_id).authenticated);
  CHECK_FALSE(check(a.session_id).authenticated);
  CHECK(check(b.session_id).authenticated);
}

TEST_CASE_FIXTURE(auth_fixture, "an idle session expires after session_timeout, a used one lives") {
  start(login_settings("secret", 1));
  CHECK(table()->session_timeout_ms == 1000);
  auto idle = login("admin", "secret");
  auto used = login("admin", "secret");
  REQUIRE(idle.what == result::ok);
  REQUIRE(used.what == result::ok);
  auto t = table();
  const auto& idle_seen = *t->sessions.at(auth::session_digest(idle.session_id)).last_seen_ms;
  const auto& used_seen = *t->sessions.at(auth::session_digest(used.session_id)).last_seen_ms;
  // Idle time is read from the shared clock stamp, without touching the session.
  auto idle_for = [](const std::atomic<std::int64_t>& seen) {
    return auth::steady_ms() - seen.load();
  };

  // `used` is checked each time it has been idle for 0.6 s: twice is longer than the timeout.
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    REQUIRE(eventually([&] { return idle_for(used_seen) >= 600; }));
    CHECK(auth::check_session(*t, used.session_id).authenticated);  // and touched
  }
  REQUIRE(eventually([&] { return idle_for(idle_seen) > 1000; }));
  CHECK_FALSE(auth::check_session(*t, idle.session_id).authenticated);
  CHECK_FALSE(check(idle.session_id).authenticated);
  CHECK(check(used.session_id).authenticated);

  // The next login sweeps the expired session out of the table.
  REQUIRE(login("admin", "secret").what == result::ok);
  auto swept = table();
  CHECK(swept->sessions.count(auth::session_digest(idle.session_id)) == 0);
  CHECK(swept->sessions.count(auth::session_digest(used.session_id)) == 1);
}

TEST_CASE_FIXTURE(auth_fixture, "a reload that changes the password hash ends every session") {
  const json initial = login_settings("secret");
  start(initial);
  auto out = login("admin", "secret");
  REQUIRE(out.what == result::ok);

  // A reload that leaves the login settings as they were keeps the sessions.
  json same = initial;
  same["controller_port"] = 5001;
  settings->send(auth, settings_reloaded{same});
  sync();
  CHECK(auth::check_session(*table(), out.session_id).authenticated);

  json changed = initial;
  changed["auth_password_hash"] = password_hash::make("other", fast);
  settings->send(auth, settings_reloaded{changed});
  sync();
  auto t = table();
  CHECK(t->enabled);
  CHECK(t->sessions.empty());
  CHECK_FALSE(auth::check_session(*t, out.session_id).authenticated);
  CHECK_FALSE(check(out.session_id).authenticated);
  // The new password is the one that counts.
  CHECK(login("admin", "secret").what == result::invalid);
  CHECK(login("admin", "other").what == result::ok);
}

TEST_CASE_FIXTURE(auth_fixture, "a reload that switches login off publishes it") {
  start(login_settings("secret"));
  REQUIRE(login("admin", "secret").what == result::ok);
  json off = login_settings("secret");
  off["auth_enabled"] = false;
  settings->send(auth, settings_reloaded{off});
  sync();
  auto t = table();
  CHECK_FALSE(t->enabled);
  CHECK(t->sessions.empty());
  CHECK(auth::check_session(*t, "").authenticated);
  CHECK(login("admin", "secret").what == result::disabled);
}
