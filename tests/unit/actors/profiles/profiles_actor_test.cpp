#include "actors/profiles/profiles_actor.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <caf/all.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "actors/mixer/mixer_actor.hpp"
#include "actors/profiles/profile_folder.hpp"
#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/files.hpp"

using json = nlohmann::json;
using mixerd::profile_outcome;
using mixerd::profiles_view;
using mixerd::test::playing;
using mixerd::test::receive_within;
using result = mixerd::profile_outcome::result;
namespace fs = std::filesystem;
namespace profiles = mixerd::profiles;

namespace {

// The profile actor over a temporary folder, with scoped actors playing the mixer, the macro
// actor, the hub and the settings actor, and views of the mixer and macro state to save from.
struct profiles_fixture : mixerd::test::actor_fixture {
  mixerd::test::temp_dir data;
  std::string folder = data.file("profiles");
  caf::scoped_actor mixer{sys};
  caf::scoped_actor macros{sys};
  caf::scoped_actor hub{sys};
  caf::scoped_actor settings{sys};
  caf::scoped_actor client{sys};
  std::shared_ptr<mixerd::published<mixerd::mixer_view>> mixer_state =
      std::make_shared<mixerd::published<mixerd::mixer_view>>(
          mixerd::mixer_view_of(mixerd::mixer_snapshot{}));
  std::shared_ptr<mixerd::published<mixerd::macros_view>> macros_state;
  std::shared_ptr<mixerd::published<profiles_view>> view;
  mixerd::profiles_actor actor;

  profiles_fixture() {
    mixerd::macros_view pages;
    pages.set = mixerd::macros::default_pages();
    macros_state = std::make_shared<mixerd::published<mixerd::macros_view>>(std::move(pages));
  }

  void set_volume(int volume) {
    auto mix = mixer_state->load()->mix;
    mix.master_volume = volume;
    mixer_state->store(mixerd::mixer_view_of(mix));
  }

  // Opens the folder as the capability table does, spawns the actor and takes its watch message.
  void start(const json& initial_settings = json::object(), bool with_macros = true) {
    mixerd::profiles_wiring wiring{
        folder,
        playing<mixerd::mixer_actor>(mixer),
        with_macros ? playing<mixerd::macros_actor>(macros) : mixerd::macros_actor{},
        playing<mixerd::hub_actor>(hub),
        playing<mixerd::settings_actor>(settings),
        mixer_state,
        macros_state};
    auto opened = mixerd::open_profiles(folder, initial_settings, current_content(wiring));
    view = std::make_shared<mixerd::published<profiles_view>>(
        profiles_view{opened.profiles, opened.current});
    actor = spawn<caf::detached>(mixerd::profiles_behavior, wiring, opened, view);
    REQUIRE(receive_within(settings, [&](mixerd::watch_atom, const caf::actor&) {}));
  }

  template <class Request>
  profile_outcome ask(Request req) {
    return mixerd::test::ask<profile_outcome>(client, actor, std::move(req));
  }

  // The next settings put of current_profile.
  std::string next_current_put() {
    std::string out;
    REQUIRE(receive_within(settings, [&](caf::put_atom, const std::string& key, const json& v) {
      CHECK(key == "current_profile");
      out = v.get<std::string>();
    }));
    return out;
  }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& p : view->load()->profiles)
      out.push_back(p.name);
    return out;
  }

  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(folder))
      out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  std::string current() const { return view->load()->current; }
};

}  // namespace

TEST_CASE_FIXTURE(profiles_fixture, "first start: Default from the initial state is current") {
  set_volume(37);
  start();
  CHECK(next_current_put() == "Default");
  CHECK(names() == std::vector<std::string>{"Default"});
  CHECK(current() == "Default");
  CHECK(mixerd::test::file_mode(folder) == 0700);
  CHECK(mixerd::test::file_mode(folder + "/Default.json") == 0600);
  auto read = mixerd::profile_folder::read(folder, "Default");
  REQUIRE_MESSAGE(read.file, read.error);
  CHECK(read.file->content.mix.master_volume == 37);
  CHECK(read.file->created.size() == 19);  // 2026-11-24T12:20:29
  CHECK(read.file->created[10] == 'T');
}

TEST_CASE_FIXTURE(profiles_fixture, "a load applies the mixer part, then the macros, then tells") {
  mixerd::profile_folder::ensure(folder);
  profiles::profile_file game;
  game.name = "Game";
  game.content.mix.master_volume = 12;
  game.content.macros.page_names = {"A", "B", "C", "D"};
  REQUIRE_FALSE(mixerd::profile_folder::write(folder, game));
  start({{"current_profile", "Game"}});
  client->send(actor, mixerd::profile_load{"Game"});
  REQUIRE(receive_within(mixer, [&](const mixerd::mixer_apply& req) {
    CHECK(req.mix.master_volume == 12);
    return true;
  }));
  // Nothing is told before the macros are applied too.
  hub->receive([](caf::publish_atom, const mixerd::event&) { FAIL("published too early"); },
               caf::after(std::chrono::milliseconds(50)) >> [] {});
  REQUIRE(receive_within(macros, [&](const mixerd::macro_replace& req) {
    CHECK(req.page_names[3] == "D");
    return true;
  }));
  auto told = mixerd::test::as<mixerd::profile_change>(mixerd::test::next_published(hub));
  CHECK(told.profile == "Game");
  CHECK(next_current_put() == "Game");
  profile_outcome out;
  REQUIRE(receive_within(client, [&](const profile_outcome& o) { out = o; }));
  CHECK(out.what == result::ok);
  CHECK(out.body ==
        json{{"success", true}, {"profile", "Game"}, {"message", "Profile load requested"}});
  CHECK(current() == "Game");
}

TEST_CASE_FIXTURE(profiles_fixture, "a load without a macro actor applies the mixer part") {
  start({}, false);
  next_current_put();
  client->send(actor, mixerd::profile_load{"Default"});
  REQUIRE(receive_within(mixer, [&](const mixerd::mixer_apply&) { return true; }));
  CHECK(mixerd::test::as<mixerd::profile_change>(mixerd::test::next_published(hub)).profile ==
        "Default");
}

TEST_CASE_FIXTURE(profiles_fixture, "an unknown profile is not found, naming it") {
  start();
  next_current_put();
  auto out = ask(mixerd::profile_load{"Nope"});
  CHECK(out.what == result::not_found);
  CHECK(out.error == "Profile 'Nope' not found");
  CHECK(ask(mixerd::profile_get{"Nope"}).what == result::not_found);
  CHECK(ask(mixerd::profile_delete{"Nope"}).what == result::not_found);
  CHECK(ask(mixerd::profile_save{"Nope", std::nullopt, std::nullopt}).what == result::not_found);
}

TEST_CASE_FIXTURE(profiles_fixture, "create, save, rename and delete write the folder") {
  start();
  next_current_put();
  set_volume(64);
  auto made = ask(mixerd::profile_create{"a/b", "star"});
  REQUIRE(made.what == result::ok);
  CHECK(made.body["profile"]["name"] == "a/b");
  CHECK(made.body["profile"]["icon"] == "star");
  CHECK(made.body["profile"]["is_current"] == false);
  CHECK(files() == std::vector<std::string>{"Default.json", "a%2Fb.json"});
  CHECK(ask(mixerd::profile_create{"a/b", ""}).what == result::exists);
  CHECK(ask(mixerd::profile_create{std::string("x\0y", 3), ""}).what == result::invalid);

  auto one = ask(mixerd::profile_get{"a/b"});
  REQUIRE(one.what == result::ok);
  CHECK(one.body["volume"] == 64);

  // Save the current state into it, with a new name; Default is the current one.
  set_volume(10);
  auto saved = ask(mixerd::profile_save{"a/b", std::nullopt, "../x"});
  REQUIRE(saved.what == result::ok);
  CHECK(saved.body["profile"]["icon"] == "star");
  CHECK(files() == std::vector<std::string>{"%2E%2E%2Fx.json", "Default.json"});
  CHECK(ask(mixerd::profile_get{"../x"}).body["volume"] == 10);
  CHECK(ask(mixerd::profile_save{"../x", std::nullopt, "Default"}).what == result::exists);

  // Renaming the current profile keeps it current.
  auto renamed = ask(mixerd::profile_save{"Default", "home", "Home"});
  REQUIRE(renamed.what == result::ok);
  CHECK(renamed.body["profile"]["is_current"] == true);
  CHECK(next_current_put() == "Home");
  CHECK(current() == "Home");
  CHECK(names() == std::vector<std::string>{"../x", "Home"});

  auto refused = ask(mixerd::profile_delete{"Home"});
  CHECK(refused.what == result::is_current);
  CHECK(refused.error == "Profile 'Home' is the current profile; load another one first");
  CHECK(ask(mixerd::profile_delete{"../x"}).what == result::ok);
  CHECK(files() == std::vector<std::string>{"Home.json"});
  CHECK(names() == std::vector<std::string>{"Home"});
}

TEST_CASE_FIXTURE(profiles_fixture, "a broken file is listed with its error and never written") {
  mixerd::profile_folder::ensure(folder);
  const std::string broken = "{\"name\": \"Bad\", \"sliders\": 3}\n";
  mixerd::test::write_file(folder + "/Bad.json", broken);
  mixerd::test::write_file(folder + "/.Bad.json.a1B2c3", "{\"half");  // a cut write
  mixerd::test::write_file(folder + "/notes.txt", "kept");
  start({{"current_profile", "Bad"}});
  // Bad is the only profile and unusable: Default is made, but Bad stays current as asked.
  CHECK(names() == std::vector<std::string>{"Bad", "Default"});
  CHECK(current() == "Bad");
  CHECK(files() == std::vector<std::string>{"Bad.json", "Default.json", "notes.txt"});
  CHECK(view->load()->profiles[0].error == "sliders must be an array of 4 slider objects");

  auto load = ask(mixerd::profile_load{"Bad"});
  CHECK(load.what == result::broken);
  CHECK(load.error.find("sliders must be an array") != std::string::npos);
  CHECK(ask(mixerd::profile_save{"Bad", "x", std::nullopt}).what == result::broken);
  CHECK(ask(mixerd::profile_save{"Default", std::nullopt, "Bad"}).what == result::exists);
  CHECK(ask(mixerd::profile_create{"Bad", ""}).what == result::exists);
  CHECK(mixerd::test::read_file(folder + "/Bad.json") == broken);

  // Fixed by hand, it loads.
  profiles::profile_file fixed;
  fixed.name = "Bad";
  fixed.content.macros.page_names = mixerd::macros::default_pages().page_names;
  REQUIRE_FALSE(mixerd::profile_folder::write(folder, fixed));
  client->send(actor, mixerd::profile_load{"Bad"});
  REQUIRE(receive_within(mixer, [&](const mixerd::mixer_apply&) { return true; }));
  REQUIRE(receive_within(macros, [&](const mixerd::macro_replace&) { return true; }));
  CHECK(mixerd::test::as<mixerd::profile_change>(mixerd::test::next_published(hub)).profile ==
        "Bad");
  CHECK(view->load()->profiles[0].error.empty());
}

TEST_CASE_FIXTURE(profiles_fixture, "a current_profile naming no profile falls back to Default") {
  start({{"current_profile", "Gone"}});
  CHECK(current() == "Default");
  CHECK(next_current_put() == "Default");
  // Saved when it already is what settings.json says: no put.
  mixerd::profiles_opened again =
      mixerd::open_profiles(folder, {{"current_profile", "Default"}}, {});
  CHECK_FALSE(again.current_changed);
  CHECK(again.profiles.size() == 1);
}

namespace {

// A macro set of about `kib` KiB (the view is what the macro actor published; not validated here).
mixerd::macros_view macros_of_kib(std::size_t kib) {
  mixerd::macros_view pages;
  pages.set = mixerd::macros::default_pages();
  const std::size_t per_slot = kib * 1024 / 36;
  for (auto& page : pages.set.pages)
    for (auto& slot : page)
      slot.fields = {{"type", "http"},   {"name", "Hook"},
                     {"icon", ""},       {"url", "http://127.0.0.1:9/"},
                     {"method", "POST"}, {"body", std::string(per_slot, 'x')}};
  return pages;
}

}  // namespace

TEST_CASE_FIXTURE(profiles_fixture, "at most 100 profiles: a create past them is refused, 507") {
  start();
  for (int i = 1; i < 100; ++i)
    REQUIRE(ask(mixerd::profile_create{"P" + std::to_string(i), ""}).what == result::ok);
  auto refused = ask(mixerd::profile_create{"One more", ""});
  CHECK(refused.what == result::too_many);
  CHECK(profiles::status_of(refused.what) == 507);
  CHECK(refused.error == "There are 100 profiles; at most 100 are kept: delete one first");
  CHECK(names().size() == 100);
  // A save or a rename needs no room; a delete makes some.
  CHECK(ask(mixerd::profile_save{"P1", std::nullopt, "P1 renamed"}).what == result::ok);
  CHECK(ask(mixerd::profile_delete{"P2"}).what == result::ok);
  CHECK(ask(mixerd::profile_create{"One more", ""}).what == result::ok);
}

TEST_CASE_FIXTURE(profiles_fixture,
                  "a profile past 2 MiB is refused, 507, and nothing is written") {
  start();
  macros_state->store(macros_of_kib(2100));
  auto refused = ask(mixerd::profile_create{"Huge", ""});
  CHECK(refused.what == result::too_large);
  CHECK(profiles::status_of(refused.what) == 507);
  CHECK(refused.error.rfind("Profile 'Huge' would take ", 0) == 0);
  CHECK(ask(mixerd::profile_save{"Default", std::nullopt, std::nullopt}).what == result::too_large);
  CHECK(files() == std::vector<std::string>{"Default.json"});
}

TEST_CASE_FIXTURE(profiles_fixture, "writes past 16 MiB a minute are refused, 429, with a wait") {
  start();
  macros_state->store(macros_of_kib(1000));  // about 1 MiB a file
  int written = 0;
  profile_outcome out;
  for (; written < 40; ++written) {
    out = ask(mixerd::profile_create{"P" + std::to_string(written), ""});
    if (out.what != result::ok) break;
  }
  CHECK(out.what == result::too_fast);
  CHECK(profiles::status_of(out.what) == 429);
  // 16 MiB of files of about 1 MiB (Default was made at start, outside the budget).
  CHECK(written >= 15);
  CHECK(written <= 17);
  // The first of them leaves the window a minute after it was written.
  CHECK(out.retry_after >= 30);
  CHECK(out.retry_after <= 60);
  CHECK(out.error.find("at most 16 MiB of profile files a minute") != std::string::npos);
  // A refused write wrote nothing.
  CHECK(names().size() == static_cast<std::size_t>(written) + 1);
  CHECK(files().size() == static_cast<std::size_t>(written) + 1);
}

TEST_CASE_FIXTURE(profiles_fixture,
                  "saves close together are written once, with the latest state") {
  start();
  REQUIRE(ask(mixerd::profile_create{"Live", ""}).what == result::ok);
  // Written a moment ago: the saves below wait for the next tick and are answered together.
  std::vector<decltype(client->request(actor, std::chrono::seconds(5), mixerd::profile_save{}))>
      asked;
  for (int volume = 1; volume <= 5; ++volume) {
    set_volume(volume * 10);
    asked.push_back(client->request(actor, std::chrono::seconds(5),
                                    mixerd::profile_save{"Live", std::nullopt, std::nullopt}));
  }
  std::vector<json> answers;
  for (auto& handle : asked)
    handle.receive([&](const profile_outcome& out) { answers.push_back(out.body); },
                   [&](caf::error& e) { FAIL(caf::to_string(e)); });
  REQUIRE(answers.size() == 5);
  for (const auto& body : answers)
    CHECK(body == answers.back());  // one write: every answer names the same file
  CHECK(ask(mixerd::profile_get{"Live"}).body["volume"] == 50);
  // A request of another kind sees the held saves written first.
  set_volume(70);
  client->send(actor, mixerd::profile_save{"Live", std::nullopt, std::nullopt});
  CHECK(ask(mixerd::profile_get{"Live"}).body["volume"] == 70);
  REQUIRE(
      receive_within(client, [&](const profile_outcome& out) { CHECK(out.what == result::ok); }));
}
