#include "actors/settings/settings_actor.hpp"

#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>

#include "actors/support/settings_file.hpp"
#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/files.hpp"

using json = nlohmann::json;
namespace settings_file = mixerd::settings_file;
using mixerd::reload_atom_v;
using mixerd::settings_actor;
using mixerd::settings_behavior;
using mixerd::settings_impl;
using mixerd::settings_reloaded;
using mixerd::settings_state;
using mixerd::watch_atom_v;
using mixerd::test::actor_fixture;
using mixerd::test::file_mode;
using mixerd::test::read_file;
using mixerd::test::receive_within;
using mixerd::test::state_of;
using mixerd::test::temp_dir;
using mixerd::test::write_file;

namespace {

const std::string broken_text = "{\n  \"controller_port\": 5000,\n  \"oops\": \n";

struct settings_fixture : actor_fixture {
  temp_dir dir;
  settings_file::paths paths{dir.path(), dir.file("settings.json")};
  caf::scoped_actor self{sys};

  // Writes `initial` to the file (unless told not to) and spawns the actor with it.
  settings_impl start(const json& initial, bool write_it = true) {
    if (write_it) write_file(paths.settings, settings_file::serialize(initial));
    return spawn(settings_behavior, paths, initial);
  }

  json get(const settings_actor& settings) {
    return mixerd::test::ask<json>(self, settings, caf::get_atom_v);
  }

  void put(const settings_actor& settings, const std::string& key, json value) {
    self->send(settings, caf::put_atom_v, key, std::move(value));
  }

  bool flush(const settings_actor& settings) {
    return mixerd::test::ask<bool>(self, settings, caf::flush_atom_v);
  }
  bool reload(const settings_actor& settings) {
    return mixerd::test::ask<bool>(self, settings, reload_atom_v);
  }

  json on_disk() { return json::parse(read_file(paths.settings)); }

  mixerd::settings_change_result change(const settings_actor& settings, json patch,
                                        bool trusted = true) {
    return mixerd::test::ask<mixerd::settings_change_result>(
        self, settings, mixerd::settings_change{std::move(patch), "api", trusted});
  }
};

json next_reload(caf::scoped_actor& watcher) {
  json out;
  REQUIRE_MESSAGE(receive_within(watcher, [&](const settings_reloaded& r) { out = r.settings; }),
                  "watcher got no settings_reloaded within 2 s");
  return out;
}

}  // namespace

TEST_CASE_FIXTURE(settings_fixture, "settings actor get returns the initial settings") {
  const json initial = {{"controller_port", 5001}, {"auth_enabled", false}, {"custom", {1, 2}}};
  auto settings = start(initial);
  CHECK(get(settings) == initial);
}

TEST_CASE_FIXTURE(settings_fixture, "settings actor put then flush writes the key with mode 0600") {
  auto settings = start({{"controller_port", 5000}, {"toast_port", 8889}});
  put(settings, "controller_port", 5002);
  CHECK(get(settings)["controller_port"] == 5002);
  CHECK(flush(settings));
  const json disk = on_disk();
  CHECK(disk["controller_port"] == 5002);
  CHECK(disk["toast_port"] == 8889);
  CHECK(file_mode(paths.settings) == 0600);
  CHECK(read_file(paths.settings) == settings_file::serialize(disk));
}

TEST_CASE_FIXTURE(settings_fixture, "settings actor creates the file on the first flush") {
  auto settings = start(json::object(), false);
  put(settings, "master_volume", 30);
  CHECK(flush(settings));
  CHECK(on_disk() == json{{"master_volume", 30}});
  CHECK(file_mode(paths.settings) == 0600);
}

TEST_CASE_FIXTURE(settings_fixture, "settings actor keeps keys another writer added between puts") {
  auto settings = start({{"controller_port", 5000}});
  put(settings, "master_volume", 40);
  CHECK(flush(settings));

  // set-password runs meanwhile: it adds keys under the lock.
  json changed = on_disk();
  changed["auth_enabled"] = true;
  changed["auth_username"] = "admin";
  REQUIRE_FALSE(settings_file::write_atomically(paths.settings, settings_file::serialize(changed)));

  put(settings, "master_volume", 42);
  CHECK(flush(settings));
  const json disk = on_disk();
  CHECK(disk["master_volume"] == 42);
  CHECK(disk["auth_enabled"] == true);
  CHECK(disk["auth_username"] == "admin");
  CHECK(disk["controller_port"] == 5000);
  // The actor's view now includes the other writer's keys too.
  CHECK(get(settings)["auth_username"] == "admin");
}

TEST_CASE_FIXTURE(settings_fixture, "settings actor ignores a put of an unchanged value") {
  auto settings = start({{"controller_port", 5000}, {"mutes", {{"master", false}}}}, false);
  put(settings, "controller_port", 5000);
  put(settings, "mutes", {{"master", false}});
  CHECK(flush(settings));
  // Nothing was pending, so nothing was written.
  CHECK_FALSE(std::filesystem::exists(paths.settings));
}

TEST_CASE_FIXTURE(settings_fixture, "settings actor saves by itself and keeps running") {
  auto settings = start(json::object());
  self->monitor(settings);
  put(settings, "master_volume", 12);
  // The coalescing timer (limits::settings_flush_delay) saves without an explicit flush.
  const auto deadline = std::chrono::steady_clock::now() + mixerd::test::wait_limit;
  while (on_disk().value("master_volume", -1) != 12 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // no event to await
  REQUIRE(on_disk()["master_volume"] == 12);

  // Whatever the timed save left in the actor's mailbox is handled before the third answer:
  // the first get is queued behind the save's result, the second behind anything that result
  // made the actor send itself, the third behind anything after that.
  for (int i = 0; i < 3; ++i) {
    CAPTURE(i);
    bool answered = false;
    caf::error failure;
    self->request(settings, mixerd::test::wait_limit, caf::get_atom_v)
        .receive([&](const json&) { answered = true; }, [&](caf::error& e) { failure = e; });
    // Regression: a self-sent flush request used to return its reply to the actor itself,
    // which then terminated with unexpected_message 250 ms after the first change.
    CHECK_MESSAGE(answered, "settings actor gone after its timed save: ", sys.render(failure));
  }
  std::string down_reason;
  self->receive([&](const caf::down_msg& d) { down_reason = "down: " + sys.render(d.reason); },
                caf::after(std::chrono::milliseconds(0)) >> [] {});
  CHECK_MESSAGE(down_reason.empty(), down_reason);
}

TEST_CASE_FIXTURE(settings_fixture, "settings actor reload tells watchers the new settings") {
  auto settings = start({{"controller_port", 5000}});
  caf::scoped_actor watcher{sys};
  self->send(settings, watch_atom_v, caf::actor{watcher});

  json edited = {{"controller_port", 5000},
                 {"sliders", {{{"label", "Music"}, {"assignment", {{"type", "unassigned"}}}}}}};
  write_file(paths.settings, edited.dump(2));
  CHECK(reload(settings));
  const json seen = next_reload(watcher);
  CHECK(seen == edited);
  CHECK(get(settings) == edited);
}

TEST_CASE_FIXTURE(settings_fixture, "settings actor reload keeps changes not yet saved") {
  auto settings = start({{"controller_port", 5000}});
  caf::scoped_actor watcher{sys};
  self->send(settings, watch_atom_v, caf::actor{watcher});
  write_file(paths.settings, R"({"controller_port": 5000, "toast_port": 9000})");
  put(settings, "master_volume", 77);
  CHECK(reload(settings));
  const json seen = next_reload(watcher);
  CHECK(seen["toast_port"] == 9000);
  CHECK(seen["master_volume"] == 77);
}

TEST_CASE_FIXTURE(settings_fixture, "settings actor reload of a broken file keeps everything") {
  const json initial = {{"controller_port", 5000}, {"master_volume", 20}};
  auto settings = start(initial);
  caf::scoped_actor watcher{sys};
  self->send(settings, watch_atom_v, caf::actor{watcher});

  write_file(paths.settings, broken_text);
  CHECK_FALSE(reload(settings));
  CHECK(get(settings) == initial);
  CHECK(read_file(paths.settings) == broken_text);

  // The watcher was told nothing: the first notification it gets is the next good reload.
  write_file(paths.settings, R"({"controller_port": 5003})");
  CHECK(reload(settings));
  CHECK(next_reload(watcher) == json{{"controller_port", 5003}});
}

TEST_CASE_FIXTURE(settings_fixture, "settings actor reload of an invalid value keeps everything") {
  const json initial = {{"controller_port", 5000}};
  auto settings = start(initial);
  const std::string invalid = R"({"controller_port": "five thousand"})";
  write_file(paths.settings, invalid);
  CHECK_FALSE(reload(settings));
  CHECK(get(settings) == initial);
  CHECK(read_file(paths.settings) == invalid);
}

TEST_CASE_FIXTURE(settings_fixture, "settings actor flush never overwrites a broken file") {
  auto settings = start({{"controller_port", 5000}});
  write_file(paths.settings, broken_text);
  put(settings, "master_volume", 33);
  CHECK_FALSE(flush(settings));
  CHECK(read_file(paths.settings) == broken_text);
  CHECK(get(settings)["master_volume"] == 33);

  // Once the user repairs the file, the pending change is saved on top of it.
  write_file(paths.settings, R"({"controller_port": 5004})");
  CHECK(flush(settings));
  CHECK(on_disk() == json{{"controller_port", 5004}, {"master_volume", 33}});
}

TEST_CASE_FIXTURE(settings_fixture, "settings actor drops a watcher that exits") {
  auto settings = start({{"controller_port", 5000}});
  caf::scoped_actor stays{sys};
  self->send(settings, watch_atom_v, caf::actor{stays});
  {
    caf::scoped_actor leaves{sys};
    self->send(settings, watch_atom_v, caf::actor{leaves});
  }
  CHECK(reload(settings));
  CHECK(next_reload(stays) == json{{"controller_port", 5000}});
  // The monitor on `leaves` was set before that reload was answered; if `leaves` was gone by
  // then, its down message was queued behind the reload. One more round trip handles it.
  CHECK(reload(settings));
  CHECK(next_reload(stays) == json{{"controller_port", 5000}});
  CHECK(state_of<settings_state>(settings).watchers.size() == 1);
}

// ---- Guarded keys (secrets and access rules) on reload and save --------------------------------

namespace {

const std::string api_key(64, 'a');
const std::string token(64, 'b');
const std::string hash =
    "pbkdf2_sha256$300000$00112233445566778899aabbccddeeff$" + std::string(64, 'c');

json running_settings() {
  return {{"toast_api_key", api_key},
          {"plant_store_token", token},
          {"auth_enabled", true},
          {"auth_username", "admin"},
          {"auth_password_hash", hash},
          {"metrics_token", std::string(20, 'm')},
          {"stream", {{"url", "ws://127.0.0.1:4455"}, {"password", "obs-secret"}}},
          {"master_volume", 20}};
}

}  // namespace

TEST_CASE_FIXTURE(settings_fixture, "settings actor reload of an empty file keeps everything") {
  const json initial = running_settings();
  auto settings = start(initial);
  for (const std::string text : {"", " \n\t\r\n"}) {
    CAPTURE(text);
    write_file(paths.settings, text);
    CHECK_FALSE(reload(settings));
    CHECK(get(settings) == initial);
    // A save meanwhile does not write over it either.
    put(settings, "master_volume", 21);
    CHECK_FALSE(flush(settings));
    CHECK(read_file(paths.settings) == text);
    put(settings, "master_volume", 20);
  }
}

TEST_CASE_FIXTURE(settings_fixture,
                  "settings actor reload keeps the guarded keys a file leaves out and writes them "
                  "back") {
  auto settings = start(running_settings());
  caf::scoped_actor watcher{sys};
  self->send(settings, watch_atom_v, caf::actor{watcher});

  write_file(paths.settings, R"({"master_volume": 70})");
  CHECK(reload(settings));
  json seen = next_reload(watcher);
  CHECK(seen["master_volume"] == 70);  // an ordinary key: the file's
  const json running = running_settings();
  for (const auto& [key, value] : running.items()) {
    if (key == "master_volume") continue;
    CAPTURE(key);
    CHECK(seen[key] == value);
    CHECK(on_disk()[key] == value);  // written back at once, not only at the next change
  }
  CHECK(file_mode(paths.settings) == 0600);
}

TEST_CASE_FIXTURE(settings_fixture, "settings actor reload applies what the file says explicitly") {
  auto settings = start(running_settings());
  caf::scoped_actor watcher{sys};
  self->send(settings, watch_atom_v, caf::actor{watcher});
  json edited = running_settings();
  edited["auth_enabled"] = false;                      // a value: taken
  edited["metrics_token"] = nullptr;                   // null: cleared
  edited["toast_api_key"] = nullptr;                   // null: a new key is made
  edited["stream"] = {{"url", "ws://10.0.0.2:4455"}};  // an object is taken whole
  write_file(paths.settings, edited.dump(2));
  CHECK(reload(settings));
  json seen = next_reload(watcher);
  CHECK(seen["auth_enabled"] == false);
  CHECK_FALSE(seen.contains("metrics_token"));
  CHECK(seen["stream"] == json{{"url", "ws://10.0.0.2:4455"}});
  REQUIRE(seen["toast_api_key"].is_string());
  const auto fresh_key = seen["toast_api_key"].get<std::string>();
  CHECK(fresh_key.size() == 64);
  CHECK(fresh_key != api_key);
  CHECK(seen["auth_password_hash"] == hash);
  // The new key is on disk; the cleared token stays cleared (null) there.
  const json disk = on_disk();
  CHECK(disk["toast_api_key"] == fresh_key);
  CHECK(disk["metrics_token"].is_null());
  CHECK(get(settings) == seen);
}

TEST_CASE_FIXTURE(settings_fixture, "settings actor save writes back a guarded key the file lost") {
  // The file lost keys while the daemon ran (no SIGHUP yet): the next save keeps the running
  // secrets instead of dropping them.
  auto settings = start(running_settings());
  write_file(paths.settings, R"({"custom": 1, "metrics_token": null})");
  put(settings, "master_volume", 33);
  CHECK(flush(settings));
  const json disk = on_disk();
  CHECK(disk["custom"] == 1);
  CHECK(disk["master_volume"] == 33);
  CHECK(disk["toast_api_key"] == api_key);
  CHECK(disk["auth_password_hash"] == hash);
  CHECK(disk["auth_enabled"] == true);
  CHECK(disk["stream"]["password"] == "obs-secret");
  CHECK(disk["metrics_token"].is_null());  // the user's clear waits for the reload
}

TEST_CASE_FIXTURE(settings_fixture, "a change is saved at once, told to watchers, and answered") {
  auto settings = start({{"master_volume", 50}, {"custom", 1}});
  caf::scoped_actor watcher{sys};
  self->send(settings, watch_atom_v, caf::actor_cast<caf::actor>(watcher));
  // A pending key of an actor is saved with it, first.
  put(settings, "mutes", {{"individual", {true, false, false, false}}, {"master", false}});
  auto out = change(settings, {{"master_volume", 70}, {"log_level", "debug"}});
  CHECK(out.status == 200);
  CHECK(out.settings["master_volume"] == 70);
  CHECK(on_disk()["master_volume"] == 70);
  CHECK(on_disk()["log_level"] == "debug");
  CHECK(on_disk()["mutes"]["individual"][0] == true);
  CHECK(on_disk()["custom"] == 1);
  CHECK(next_reload(watcher)["master_volume"] == 70);
  // null removes a key that is no secret: its default applies.
  CHECK(change(settings, {{"log_level", nullptr}}).status == 200);
  CHECK_FALSE(on_disk().contains("log_level"));
  CHECK_FALSE(next_reload(watcher).contains("log_level"));
}

TEST_CASE_FIXTURE(settings_fixture, "a refused change changes nothing, in memory or on disk") {
  const json initial = {{"master_volume", 50}};
  auto settings = start(initial);
  const auto before = read_file(paths.settings);
  auto bad = change(settings, {{"master_volume", 150}, {"log_level", "debug"}});
  CHECK(bad.status == 400);
  CHECK(bad.error == "master_volume must be an integer from 0 to 100");
  CHECK(change(settings, {{"nonsense", 1}}).error == "nonsense is no setting of this mixerd");
  CHECK(change(settings, json::array()).status == 400);
  auto untrusted = change(settings, {{"mqtt", {{"url", "mqtt://x"}}}}, false);
  CHECK(untrusted.status == 403);
  CHECK(untrusted.error.rfind("mqtt holds a secret or an access rule", 0) == 0);
  CHECK(read_file(paths.settings) == before);
  CHECK(get(settings) == initial);
  // The same change from a trusted caller is taken; a key that is no secret needs no trust.
  CHECK(change(settings, {{"mqtt", {{"url", "mqtt://x"}}}}).status == 200);
  CHECK(change(settings, {{"master_volume", 10}}, false).status == 200);
}

TEST_CASE_FIXTURE(settings_fixture, "a change is refused with 409 while the file is broken") {
  auto settings = start({{"master_volume", 50}});
  write_file(paths.settings, broken_text);
  auto out = change(settings, {{"master_volume", 60}});
  CHECK(out.status == 409);
  CHECK(out.error.find("broken") != std::string::npos);
  CHECK(read_file(paths.settings) == broken_text);
  CHECK(get(settings)["master_volume"] == 50);
  // Once the file is mended, nothing of the refused change comes back with the next save.
  write_file(paths.settings, settings_file::serialize({{"master_volume", 50}}));
  put(settings, "log_level", "warn");
  CHECK(flush(settings));
  CHECK(on_disk()["master_volume"] == 50);
}

TEST_CASE_FIXTURE(settings_fixture, "null on a guarded key writes null: a reload clears it too") {
  auto settings = start({{"mqtt", {{"url", "mqtt://x"}}}});
  CHECK(change(settings, {{"mqtt", nullptr}}).status == 200);
  CHECK(on_disk()["mqtt"].is_null());
  CHECK_FALSE(get(settings).contains("mqtt"));
  CHECK(reload(settings));
  CHECK_FALSE(get(settings).contains("mqtt"));
}

TEST_CASE_FIXTURE(settings_fixture, "every change of configuration keeps the version before it") {
  auto settings = start({{"master_volume", 50}, {"log_level", "info"}});
  auto history = [&] {
    return mixerd::test::ask<json>(self, settings, mixerd::settings_history_request{})["history"];
  };
  CHECK(history().empty());
  // Live state alone (the master volume, the mutes) keeps no version.
  CHECK(change(settings, {{"master_volume", 60}}).status == 200);
  put(settings, "mutes", {{"individual", {true, false, false, false}}, {"master", false}});
  CHECK(flush(settings));
  CHECK(history().empty());
  CHECK(change(settings, {{"log_level", "debug"}}).status == 200);
  auto list = history();
  REQUIRE(list.size() == 1);
  CHECK(list[0]["source"] == "api");
  CHECK(list[0]["summary"] == "log_level");
  // A reload that changes configuration is a change of the file's.
  auto edited = on_disk();
  edited["log_level"] = "warn";
  write_file(paths.settings, settings_file::serialize(edited));
  CHECK(reload(settings));
  list = history();
  REQUIRE(list.size() == 2);
  CHECK(list[0]["source"] == "file");

  // Back to before the API's change: log_level info again; the rollback is an entry itself.
  const auto id = list[1]["id"].get<std::string>();
  auto out = mixerd::test::ask<mixerd::settings_change_result>(self, settings,
                                                               mixerd::settings_rollback{id, true});
  CHECK(out.status == 200);
  CHECK(on_disk()["log_level"] == "info");
  CHECK(get(settings)["log_level"] == "info");
  list = history();
  REQUIRE(list.size() == 3);
  CHECK(list[0]["source"] == "rollback");
  CHECK(list[0]["summary"] == "log_level");
  // ... which can be undone in turn.
  out = mixerd::test::ask<mixerd::settings_change_result>(
      self, settings, mixerd::settings_rollback{list[0]["id"].get<std::string>(), true});
  CHECK(out.status == 200);
  CHECK(on_disk()["log_level"] == "warn");
  CHECK(mixerd::test::ask<mixerd::settings_change_result>(self, settings,
                                                          mixerd::settings_rollback{"999", true})
            .status == 404);
}

TEST_CASE_FIXTURE(settings_fixture, "a rollback that restores a secret needs a trusted caller") {
  auto settings = start({{"mqtt", {{"url", "mqtt://a"}}}});
  CHECK(change(settings, {{"mqtt", {{"url", "mqtt://b"}}}}).status == 200);
  const auto id = mixerd::test::ask<json>(self, settings,
                                          mixerd::settings_history_request{})["history"][0]["id"]
                      .get<std::string>();
  auto out = mixerd::test::ask<mixerd::settings_change_result>(
      self, settings, mixerd::settings_rollback{id, false});
  CHECK(out.status == 403);
  CHECK(on_disk()["mqtt"]["url"] == "mqtt://b");
}
