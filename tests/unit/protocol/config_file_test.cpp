#include "protocol/config_file.hpp"

#include <doctest/doctest.h>

#include <string>

#include "protocol/macros.hpp"

using nlohmann::json;
using namespace mixerd;

namespace {

// A valid profile: the content of a fresh state.
json profile(const std::string& name) {
  auto j =
      profiles::content_to_json(profiles::content_of(mixer_snapshot{}, macros::default_pages()));
  j["name"] = name;
  j["icon"] = "";
  return j;
}

// The key the check blames ("" when the file is taken).
std::string blamed(const json& file) {
  auto read = config_file::read(file);
  if (const auto* bad = std::get_if<settings_schema::problem>(&read)) return bad->key;
  return "";
}

}  // namespace

TEST_CASE("config file: a file of the export is read whole") {
  json file = {{"mixerd_config", 1},
               {"settings", {{"master_volume", 30}}},
               {"profiles", {profile("Default"), profile("Night")}}};
  auto read = config_file::read(file);
  REQUIRE(std::holds_alternative<config_file::contents>(read));
  const auto& contents = std::get<config_file::contents>(read);
  CHECK(contents.settings == json{{"master_volume", 30}});
  CHECK(contents.has_profiles);
  REQUIRE(contents.profiles.size() == 2);
  CHECK(contents.profiles[1].name == "Night");
  // Without "profiles" the folder is left alone.
  file.erase("profiles");
  CHECK_FALSE(std::get<config_file::contents>(config_file::read(file)).has_profiles);
}

TEST_CASE("config file: the first bad key is named") {
  const json good = {{"mixerd_config", 1}, {"settings", json::object()}};
  CHECK(blamed(good).empty());
  CHECK(blamed(json::array()) == "(top level)");
  CHECK(blamed({{"settings", json::object()}}) == "mixerd_config");
  CHECK(blamed({{"mixerd_config", 2}, {"settings", json::object()}}) == "mixerd_config");
  CHECK(blamed({{"mixerd_config", 1}}) == "settings");
  CHECK(blamed({{"mixerd_config", 1}, {"settings", {{"master_volume", 500}}}}) ==
        "settings.master_volume");
  auto with = [&](json profiles) {
    json f = good;
    f["profiles"] = std::move(profiles);
    return blamed(f);
  };
  CHECK(with(json::object()) == "profiles");
  CHECK(with({profile("A"), profile("A")}) == "profiles[1].name");
  CHECK(with({profile("A"), json{{"name", 5}}}) == "profiles[1].name");
  auto no_sliders = profile("B");
  no_sliders.erase("sliders");
  CHECK(with({no_sliders}) == "profiles[0].sliders");
  CHECK(with({json::array()}) == "profiles[0]");
  json deep = json::array();
  json* at = &deep;
  for (int i = 0; i < 100; ++i) {
    at->push_back(json::array());
    at = &(*at)[0];
  }
  json p = profile("Deep");
  p["extra"] = deep;
  CHECK(with({p}) == "profiles[0]");
  json many = json::array();
  for (int i = 0; i <= 100; ++i)
    many.push_back(profile("P" + std::to_string(i)));
  CHECK(with(many) == "profiles");
}
