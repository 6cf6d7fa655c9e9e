#include "actors/plants/plants_actor.hpp"

#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <filesystem>
#include <string>

#include "protocol/plants.hpp"
#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/files.hpp"

using json = nlohmann::json;
namespace plants = mixerd::plants;
using mixerd::plant_delete;
using mixerd::plant_delete_outcome;
using mixerd::plants_actor;
using mixerd::plants_behavior;
using mixerd::settings_actor;
using mixerd::settings_reloaded;
using mixerd::watch_atom;
using mixerd::test::actor_fixture;
using mixerd::test::file_mode;
using mixerd::test::read_file;
using mixerd::test::temp_dir;
using mixerd::test::write_file;
using result = plant_delete_outcome::result;

namespace {

const std::string token = std::string(64, 'a');

struct plants_fixture : actor_fixture {
  temp_dir dir;
  std::string path = dir.file("plants.json");
  caf::scoped_actor self{sys};

  // `settings` may be invalid: the store then watches nothing.
  plants_actor start(const settings_actor& settings = {}) {
    return spawn(plants_behavior, path, settings, json{{"plant_store_token", token}});
  }

  plant_delete_outcome ask(const plants_actor& store, std::optional<std::int64_t> id,
                           const std::string& bearer = token) {
    return mixerd::test::ask<plant_delete_outcome>(self, store, plant_delete{bearer, id});
  }

  json on_disk() { return json::parse(read_file(path)); }
};

json ids(const json& list) {
  auto out = json::array();
  for (const auto& p : list)
    out.push_back(p["id"]);
  return out;
}

}  // namespace

TEST_CASE_FIXTURE(plants_fixture, "plant store writes the sample plants on first start") {
  auto store = start();
  CHECK(ask(store, 1).what == result::deleted);  // answers only after loading
  auto disk = on_disk();
  CHECK(disk.size() == plants::sample_plants().size() - 1);
  CHECK(file_mode(path) == 0600);
  CHECK(read_file(path) == plants::serialize(disk));
}

TEST_CASE_FIXTURE(plants_fixture, "plant store deletes once, then says unknown id") {
  write_file(path, plants::serialize(json::array({{{"id", 4}, {"name", "a"}, {"note", "kept"}},
                                                  {{"id", 9}, {"name", "b"}}})));
  auto store = start();
  CHECK(ask(store, 4).what == result::deleted);
  CHECK(on_disk() == json::array({{{"id", 9}, {"name", "b"}}}));
  CHECK(ask(store, 4).what == result::unknown_id);
  CHECK(ask(store, 123).what == result::unknown_id);
  CHECK(ask(store, 9).what == result::deleted);
  CHECK(on_disk() == json::array());
}

TEST_CASE_FIXTURE(plants_fixture, "plant store checks the token before the id") {
  auto store = start();
  CHECK(ask(store, 1, "wrong").what == result::unauthorized);
  CHECK(ask(store, std::nullopt, "wrong").what == result::unauthorized);
  CHECK(ask(store, 1, token + "a").what == result::unauthorized);
  CHECK(ask(store, 1, "").what == result::unauthorized);
  CHECK(ask(store, std::nullopt).what == result::bad_id);
  CHECK(ids(on_disk()) == ids(plants::sample_plants()));
}

TEST_CASE_FIXTURE(plants_fixture, "plant store never writes a broken plants.json") {
  const std::string broken = "[{\"id\": 1, \"name\": \"a\"},\n";
  write_file(path, broken);
  auto store = start();
  CHECK(ask(store, 1, "wrong").what == result::unauthorized);
  auto out = ask(store, 1);
  CHECK(out.what == result::unavailable);
  CHECK(out.detail.find("not valid JSON") != std::string::npos);
  CHECK(read_file(path) == broken);
}

TEST_CASE_FIXTURE(plants_fixture, "plant store re-reads plants.json and the token on reload") {
  write_file(path, "[{\"id\": 1, \"name\": \"a\", \"name\": 2}]");
  caf::scoped_actor settings{sys};
  auto store = start(mixerd::test::playing<settings_actor>(settings));
  caf::actor watcher;
  REQUIRE(mixerd::test::receive_within(settings, [&](watch_atom, caf::actor& a) { watcher = a; }));
  CHECK(watcher == caf::actor_cast<caf::actor>(store));
  CHECK(ask(store, 1).what == result::unavailable);

  write_file(path, plants::serialize(json::array({{{"id", 1}, {"name", "a"}}})));
  const std::string fresh = std::string(64, 'b');
  self->send(store, settings_reloaded{json{{"plant_store_token", fresh}}});
  CHECK(ask(store, 1).what == result::unauthorized);  // the old token is refused
  CHECK(ask(store, 1, fresh).what == result::deleted);
  CHECK(on_disk() == json::array());
}

TEST_CASE_FIXTURE(plants_fixture, "plant store keeps the plant when the write fails") {
  auto store = start();
  REQUIRE(ask(store, 1).what == result::deleted);  // loaded before the file is replaced
  // A folder in the file's place: the rename fails, even for root.
  std::filesystem::remove(path);
  std::filesystem::create_directories(path + "/inside");
  auto out = ask(store, 2);
  CHECK(out.what == result::write_failed);
  CHECK_FALSE(out.detail.empty());
  std::filesystem::remove_all(path);
  CHECK(ask(store, 2).what == result::deleted);
  auto disk = on_disk();
  CHECK_FALSE(plants::find(disk, 2));
  CHECK(disk.size() == plants::sample_plants().size() - 2);
}

TEST_CASE_FIXTURE(plants_fixture, "plant store removes temporary files a kill left behind") {
  write_file(dir.file(".plants.json.Ab12Cd"), "[");
  write_file(dir.file(".plants.json.keep"), "x");
  write_file(dir.file(".settings.json.Ab12Cd"), "{");
  auto store = start();
  CHECK(ask(store, 1).what == result::deleted);
  auto left = mixerd::test::folder_entries(dir.path());
  CHECK(left.count(".plants.json.Ab12Cd") == 0);
  CHECK(left.count(".plants.json.keep") == 1);
  CHECK(left.count(".settings.json.Ab12Cd") == 1);
  CHECK(left.count("plants.json") == 1);
}
