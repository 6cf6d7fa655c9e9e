#include "actors/settings/config_history.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "tests/unit/support/files.hpp"

using json = nlohmann::json;
using mixerd::config_history;
using mixerd::test::file_mode;
using mixerd::test::temp_dir;
using mixerd::test::write_file;

TEST_CASE("config history: entries are listed newest first and give back their version") {
  temp_dir dir;
  config_history history(dir.file("history"), 50);
  CHECK(history.list().empty());
  CHECK_FALSE(history.record({{"master_volume", 1}}, "api", "master_volume"));
  CHECK_FALSE(history.record({{"master_volume", 2}}, "web", "sliders[0].label"));
  auto list = history.list();
  REQUIRE(list.size() == 2);
  CHECK(list[0].id == "2");
  CHECK(list[0].source == "web");
  CHECK(list[0].summary == "sliders[0].label");
  CHECK(list[0].time.size() == 19);  // 2026-11-28T06:41:16
  CHECK(list[1].id == "1");
  CHECK(history.version_before("1") == json{{"master_volume", 1}});
  CHECK_FALSE(history.version_before("3"));
  CHECK_FALSE(history.version_before("../settings"));
  CHECK_FALSE(history.version_before("01"));
  // It holds secrets: private to the user.
  CHECK(file_mode(dir.file("history/1.json")) == 0600);
  CHECK(file_mode(dir.file("history")) == 0700);
}

TEST_CASE("config history: at most `keep` entries, ids never reused, also after a restart") {
  temp_dir dir;
  {
    config_history history(dir.file("history"), 3);
    for (int i = 1; i <= 5; ++i)
      CHECK_FALSE(history.record({{"n", i}}, "api", "n"));
    auto list = history.list();
    REQUIRE(list.size() == 3);
    CHECK(list.front().id == "5");
    CHECK(list.back().id == "3");
    CHECK_FALSE(history.version_before("2"));
  }
  // A kill between an entry's rename and the pruning: one too many until the next open.
  write_file(dir.file("history/2.json"), R"({"id": "2", "settings": {"n": 2}})");
  config_history reopened(dir.file("history"), 3);
  CHECK(reopened.list().size() == 3);
  CHECK_FALSE(std::filesystem::exists(dir.file("history/2.json")));
  CHECK_FALSE(reopened.record({{"n", 6}}, "file", "n"));
  CHECK(reopened.list().front().id == "6");
  CHECK(reopened.list().size() == 3);
}

TEST_CASE("config history: a write cut short leaves the history as it was") {
  temp_dir dir;
  {
    config_history history(dir.file("history"), 50);
    CHECK_FALSE(history.record({{"n", 1}}, "api", "n"));
  }
  // What a kill during write_atomically leaves: the temporary file, never a half entry; and a
  // file someone broke by hand.
  write_file(dir.file("history/.2.json.Ab12Cd"), "{\"id\": \"2\", \"sett");
  write_file(dir.file("history/7.json"), "{ broken");
  config_history history(dir.file("history"), 50);
  CHECK_FALSE(std::filesystem::exists(dir.file("history/.2.json.Ab12Cd")));
  auto list = history.list();
  REQUIRE(list.size() == 1);  // the broken one is left out, and left alone
  CHECK(list[0].id == "1");
  CHECK(std::filesystem::exists(dir.file("history/7.json")));
  CHECK_FALSE(history.record({{"n", 2}}, "api", "n"));
  CHECK(history.list().front().id == "8");
}
