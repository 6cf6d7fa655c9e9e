#include "actors/auth/auth_actor.hpp"

#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "actors/auth/password_hash.hpp"
#include "actors/auth/session_table.hpp"
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
using mixerd::auth_verdict;
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

  auth_verdict check(const std::string& session_id) {
    return mixerd::test::ask<auth_verdict>(client, auth, auth_check{session_id});
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
  // Answered once the table readers see is without the session.
  CHECK(mixerd::test::ask<bool>(client, auth, logout_request{a.session_id}));
  CHECK_FALSE(auth::check_session(*table(), a.session_id).authenticated);
  // No cookie, or not a session: nothing happens.
  CHECK_FALSE(mixerd::test::ask<bool>(client, auth, logout_request{""}));
  CHECK_FALSE(mixerd::test::ask<bool>(client, auth, logout_request{"unknown"}));
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

TEST_CASE_FIXTURE(auth_fixture, "attempts sent at once count when they arrive: the sixth is 429") {
  start(login_settings("secret"));
  using handle = decltype(client->request(auth, caf::infinite, login_attempt{}));
  std::vector<handle> sent;
  for (int i = 0; i < 6; ++i)
    sent.push_back(
        client->request(auth, caf::infinite, login_attempt{"admin", "wrong", false, "192.0.2.1"}));
  int invalid = 0;
  int throttled = 0;
  for (auto& h : sent)
    h.receive(
        [&](const login_outcome& out) {
          invalid += out.what == result::invalid;
          throttled += out.what == result::throttled;
        },
        [](const caf::error&) { FAIL("login request failed"); });
  CHECK(invalid == 5);
  CHECK(throttled == 1);
}

TEST_CASE("the lifetime setting defaults to 30 days, and never below the idle timeout") {
  CHECK(auth_config_from_settings(json::object()).session_max_lifetime == 2'592'000);
  CHECK(auth_config_from_settings(json{{"session_timeout", 31'536'000}}).session_max_lifetime ==
        31'536'000);
  auto config =
      auth_config_from_settings(json{{"session_timeout", 60}, {"session_max_lifetime", 90}});
  CHECK(config.session_max_lifetime == 90);
  CHECK(auth_view_of(config).session_max_lifetime_ms == 90'000);
}

TEST_CASE("a session ends session_max_lifetime after its login, however recently it was used") {
  auth_view view;
  view.enabled = true;
  view.session_timeout_ms = 1000;
  view.session_max_lifetime_ms = 5000;
  const auto now = auth::steady_ms();
  auto session = [&](std::int64_t idle_ms, std::int64_t age_ms) {
    return mixerd::auth_session{"admin", std::make_shared<std::atomic<std::int64_t>>(now - idle_ms),
                                now - age_ms, "127.0.0.1", 0};
  };
  view.sessions[auth::session_digest("fresh")] = session(0, 0);
  view.sessions[auth::session_digest("old but used")] = session(0, 5001);
  view.sessions[auth::session_digest("idle")] = session(1001, 2000);
  view.sessions[auth::session_digest("at the limit")] = session(0, 4900);
  CHECK(auth::check_session(view, "fresh").authenticated);
  CHECK_FALSE(auth::check_session(view, "old but used").authenticated);
  CHECK_FALSE(auth::check_session(view, "idle").authenticated);
  CHECK(auth::check_session(view, "at the limit").authenticated);
  CHECK(auth::expired(view, view.sessions.at(auth::session_digest("old but used")), now));
  CHECK_FALSE(auth::expired(view, view.sessions.at(auth::session_digest("fresh")), now));
}

TEST_CASE_FIXTURE(auth_fixture, "a used session is refused after its lifetime and swept") {
  auto settings_now = login_settings("secret", 1);
  settings_now["session_max_lifetime"] = 2;
  start(settings_now);
  CHECK(table()->session_max_lifetime_ms == 2000);
  auto out = login("admin", "secret", "192.0.2.1", true);
  REQUIRE(out.what == result::ok);
  CHECK(out.max_age == 1);
  auto t = table();
  const auto login_ms = t->sessions.at(auth::session_digest(out.session_id)).login_ms;
  // Used every 0.5 s: never idle for the timeout, yet refused once 2 s have passed since login.
  while (auth::steady_ms() - login_ms < 1900) {
    CHECK(auth::check_session(*t, out.session_id).authenticated);
    const auto next = auth::steady_ms() + 500;
    REQUIRE(eventually([&] { return auth::steady_ms() >= next; }));
  }
  REQUIRE(eventually([&] { return auth::steady_ms() - login_ms > 2000; }));
  CHECK_FALSE(auth::check_session(*t, out.session_id).authenticated);
  CHECK_FALSE(check(out.session_id).authenticated);
  // The next login sweeps it out of the table.
  REQUIRE(login("admin", "secret").what == result::ok);
  CHECK(table()->sessions.count(auth::session_digest(out.session_id)) == 0);
}

TEST_CASE_FIXTURE(auth_fixture, "a reload that shortens the lifetime applies to live sessions") {
  const json initial = login_settings("secret");
  start(initial);
  auto out = login("admin", "secret");
  REQUIRE(out.what == result::ok);
  json shorter = initial;
  shorter["session_timeout"] = 1;
  shorter["session_max_lifetime"] = 2;
  settings->send(auth, settings_reloaded{shorter});
  sync();
  auto t = table();
  CHECK(t->session_timeout_ms == 1000);
  CHECK(t->session_max_lifetime_ms == 2000);
  const auto& live = t->sessions.at(auth::session_digest(out.session_id));
  // The session as it would be if used at `at`: it ends 2 s after its login.
  auto used_at = [&](std::int64_t at) {
    return mixerd::auth_session{live.username, std::make_shared<std::atomic<std::int64_t>>(at),
                                live.login_ms, live.address, live.login_wall_s};
  };
  CHECK_FALSE(auth::expired(*t, used_at(live.login_ms + 1999), live.login_ms + 1999));
  CHECK(auth::expired(*t, used_at(live.login_ms + 2001), live.login_ms + 2001));
}

TEST_CASE("one checker thread fewer than the cores, the queue holds what starts within 2 s") {
  using namespace std::chrono_literals;
  CHECK(mixerd::checker_pool_size() >= 1);
  CHECK(mixerd::checker_pool_size() <= mixerd::login_limits::max_checkers);
  CHECK(mixerd::waiting_capacity(1, 100ms) == 20);
  CHECK(mixerd::waiting_capacity(3, 1s) == 6);
  CHECK(mixerd::waiting_capacity(1, 5s) == 2);  // at least two per checker
  CHECK(mixerd::waiting_capacity(4, 1ms) == mixerd::login_limits::max_waiting);
}
