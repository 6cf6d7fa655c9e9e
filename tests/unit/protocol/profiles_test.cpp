#include "protocol/profiles.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "protocol/json.hpp"

using json = nlohmann::json;
namespace profiles = mixerd::profiles;
using profiles::file_name_of;
using profiles::name_of_file;
using profiles::name_problem;

// ---- Names and file names
// ------------------------------------------------------------------------

TEST_CASE("profile file names: plain bytes stay, every other byte is %XX") {
  CHECK(file_name_of("Default") == "Default.json");
  CHECK(file_name_of("my-profile_2") == "my-profile_2.json");
  CHECK(file_name_of("Late night") == "Late%20night.json");
  CHECK(file_name_of("a.b") == "a%2Eb.json");
  CHECK(file_name_of("100%") == "100%25.json");
  CHECK(file_name_of("\xE2\x9C\xBF") == "%E2%9C%BF.json");
}

TEST_CASE("profile names that would leave the folder are encoded into one file name inside it") {
  for (const std::string name : {"../x", "a/b", "..", ".", "/etc/passwd", "..\\x", ".hidden"}) {
    CAPTURE(name);
    REQUIRE(name_problem(name).empty());
    const auto file = file_name_of(name);
    CHECK(file.find('/') == std::string::npos);
    CHECK(file.find('\\') == std::string::npos);
    CHECK(file.front() != '.');  // never "..", never a hidden file (a temporary's form)
    CHECK(file.find('.') == file.size() - 5);  // the only dot is that of ".json"
    CHECK(name_of_file(file) == name);
  }
  CHECK(file_name_of("../x") == "%2E%2E%2Fx.json");
  CHECK(file_name_of("a/b") == "a%2Fb.json");
}

TEST_CASE("profile names: NUL and other control characters are refused, not encoded") {
  CHECK(name_problem(std::string("a\0b", 3)) == "name must not contain control characters");
  CHECK(name_problem("a\nb") == "name must not contain control characters");
  CHECK(name_problem("tab\there") == "name must not contain control characters");
  CHECK(name_problem("del\x7F") == "name must not contain control characters");
  CHECK(name_problem("c1 \xC2\x85") == "name must not contain control characters");  // U+0085
  // A file name that decodes to one is no profile's file.
  CHECK_FALSE(name_of_file("a%00b.json"));
  CHECK_FALSE(name_of_file("a%0Ab.json"));
}

TEST_CASE("profile names: 1 to 64 bytes of valid UTF-8, the field named") {
  CHECK(name_problem("x").empty());
  CHECK(name_problem(std::string(64, 'a')).empty());
  CHECK(name_problem("") == "name must be 1 to 64 bytes");
  CHECK(name_problem(std::string(65, 'a')) == "name must be 1 to 64 bytes");
  CHECK(name_problem(std::string(65, 'a'), "new_name") == "new_name must be 1 to 64 bytes");
  // 21 three-byte characters are 63 bytes; one more is 66.
  std::string stars;
  for (int i = 0; i < 21; ++i)
    stars += "\xE2\x9C\xBF";
  CHECK(name_problem(stars).empty());
  CHECK_FALSE(name_problem(stars + "\xE2\x9C\xBF").empty());
  // The longest name gives a file name well under the usual 255-byte limit.
  CHECK(file_name_of(std::string(64, ' ')).size() == 64 * 3 + 5);
  for (const char* bad :
       {"\xFF", "\xC0\xAF", "\xE2\x9C", "\xED\xA0\x80", "\xF4\x90\x80\x80", "a\x80"}) {
    CAPTURE(bad);
    CHECK(name_problem(bad) == "name must be valid UTF-8");
  }
  CHECK(name_problem("emoji \xF0\x9F\x8E\xAE").empty());
}

TEST_CASE("profile file names round trip, and only canonical ones decode") {
  const std::vector<std::string> names = {"Default", "Late night", "a/b",
                                          "../x",    "100%",       "\xE2\x9C\xBF Stars",
                                          "current", "-_",         std::string(64, '~')};
  for (const auto& name : names) {
    CAPTURE(name);
    CHECK(name_of_file(file_name_of(name)) == name);
  }
  // Not ".json", empty stem, lower-case hex, an encoded plain byte, a raw byte that should be
  // encoded, truncated escapes: none names a profile.
  for (const char* file :
       {"Default", "Default.JSON", ".json", "a%2fb.json", "%41.json", "a b.json", "a.b.json",
        "a%2.json", "a%.json", "a%ZZ.json", ".Default.json.Ab12Cd", "%FF.json"}) {
    CAPTURE(file);
    CHECK_FALSE(name_of_file(file));
  }
  CHECK_FALSE(name_of_file(std::string(65, 'a') + ".json"));
}

// ---- The profile file
// ----------------------------------------------------------------------------

namespace {

profiles::profile_file sample() {
  profiles::profile_file file;
  file.name = "Late night";
  file.icon = "moon";
  file.created = "2026-11-24T12:20:29";
  file.updated = "2026-11-24T13:00:00";
  auto& mix = file.content.mix;
  for (int i = 0; i < 4; ++i) {
    mix.sliders[i].label = "Slider " + std::to_string(i + 1);
    mix.sliders[i].value = 10 * (i + 1);
  }
  mix.sliders[1].assigned = {mixerd::assignment_type::app, {"spotify", "Spotify.exe"}};
  mix.sliders[2].enforce_volume = false;
  mix.mutes.individual = {false, true, false, false};
  mix.sliders[1].muted = true;
  mix.mutes.master = true;
  mix.master_volume = 33;
  file.content.macros.page_names = {"Work", "Page 2", "Stream", "Page 4"};
  std::string error;
  auto cmd = mixerd::macros::parse_macro(
      {{"type", "command"}, {"name", "Backup"}, {"icon", "disk"}, {"argv", {"/bin/true", "-x"}}},
      mixerd::macros::origin::settings, error);
  REQUIRE_MESSAGE(cmd, error);
  file.content.macros.pages[2][4] = *cmd;
  return file;
}

std::string problem_of(const std::string& text) {
  auto parsed = profiles::parse_profile(text);
  CHECK_FALSE(parsed.file);
  return parsed.error;
}

// The sample's text with one change.
std::string with(const std::function<void(json&)>& change) {
  auto j = json::parse(profiles::serialize(sample()));
  change(j);
  return j.dump();
}

}  // namespace

TEST_CASE("a profile file round trips through serialize and parse") {
  const auto file = sample();
  const auto text = profiles::serialize(file);
  CHECK(text.back() == '\n');
  auto parsed = profiles::parse_profile(text);
  REQUIRE_MESSAGE(parsed.file, parsed.error);
  CHECK(profiles::serialize(*parsed.file) == text);
  const auto& back = *parsed.file;
  CHECK(back.name == "Late night");
  CHECK(back.icon == "moon");
  CHECK(back.created == "2026-11-24T12:20:29");
  CHECK(back.updated == "2026-11-24T13:00:00");
  CHECK(back.content.mix.sliders[1].assigned == file.content.mix.sliders[1].assigned);
  CHECK(back.content.mix.sliders[1].muted);  // mirrors mutes.individual
  CHECK_FALSE(back.content.mix.sliders[2].enforce_volume);
  CHECK(back.content.mix.sliders[3].value == 40);
  CHECK(back.content.mix.master_volume == 33);
  CHECK(back.content.mix.mutes.master);
  CHECK(back.content.macros.page_names[2] == "Stream");
  CHECK(back.content.macros.pages[2][4].type() == "command");
  CHECK(back.content.macros.pages[2][4].fields["argv"] == json{"/bin/true", "-x"});

  const auto j = json::parse(text);
  CHECK(j["sliders"][1] ==
        json{{"label", "Slider 2"},
             {"assignment", {{"type", "app"}, {"names", {"spotify", "Spotify.exe"}}}},
             {"value", 20},
             {"enforce_volume", true}});
  CHECK(j["mutes"] == json{{"individual", {false, true, false, false}}, {"master", true}});
  CHECK(j["volume"] == 33);
  CHECK(j["macros"]["page_names"]["0"] == "Work");
  CHECK(j["macros"]["pages"]["2"].size() == 9);
  CHECK_FALSE(j["macros"].contains("current_page"));
}

TEST_CASE("a profile file without icon and timestamps (written by hand) is fine") {
  auto parsed = profiles::parse_profile(with([](json& j) {
    j.erase("icon");
    j.erase("created");
    j.erase("updated");
  }));
  REQUIRE_MESSAGE(parsed.file, parsed.error);
  CHECK(parsed.file->icon.empty());
  CHECK(parsed.file->created.empty());
}

TEST_CASE("a broken profile file is refused with the key and the problem") {
  CHECK(problem_of("") == "empty; expected a JSON object");
  CHECK(problem_of("  \n") == "empty; expected a JSON object");
  CHECK(problem_of("{\"name\": ").rfind("not valid JSON: ", 0) == 0);
  CHECK(problem_of("{\"name\": \"x\", \"volume\": 1e400}").rfind("not valid JSON: ", 0) == 0);
  CHECK(problem_of("[]") == "must be a JSON object");
  CHECK(problem_of(std::string(20, '[') + std::string(20, ']')) == "nested deeper than 16 levels");
  CHECK(problem_of(std::string(profiles::max_file_bytes + 1, ' ')) == "larger than 4194304 bytes");
  CHECK(problem_of(with([](json& j) { j.erase("name"); })) == "name is missing");
  CHECK(problem_of(with([](json& j) { j["name"] = 7; })) == "name must be a string");
  CHECK(problem_of(with([](json& j) { j["name"] = ""; })) == "name must be 1 to 64 bytes");
  CHECK(problem_of(with([](json& j) { j["icon"] = "a\nb"; })) ==
        "icon must not contain control characters");
  CHECK(problem_of(with([](json& j) { j["created"] = std::string(40, '1'); })) ==
        "created must be at most 32 bytes");
  CHECK(problem_of(with([](json& j) { j["sliders"].erase(3); })) ==
        "sliders must be an array of 4 slider objects");
  CHECK(problem_of(with([](json& j) { j["sliders"][2] = 5; })) == "sliders[2] must be an object");
  CHECK(problem_of(with([](json& j) { j["sliders"][0].erase("label"); })) ==
        "sliders[0].label is missing");
  CHECK(problem_of(with([](json& j) { j["sliders"][0]["label"] = "a\x01"; })) ==
        "sliders[0].label must not contain control characters");
  CHECK(problem_of(with([](json& j) { j["sliders"][0]["label"] = std::string(65, 'x'); })) ==
        "sliders[0].label must be at most 64 bytes");
  CHECK(problem_of(with([](json& j) {
          j["sliders"][1]["assignment"] = {{"type", "radio"}};
        })).rfind("sliders[1].assignment: type must be one of", 0) == 0);
  CHECK(problem_of(with([](json& j) { j["sliders"][3]["value"] = 101; })) ==
        "sliders[3].value must be an integer from 0 to 100");
  CHECK(problem_of(with([](json& j) { j["sliders"][3]["value"] = 5.0; })) ==
        "sliders[3].value must be an integer from 0 to 100");
  CHECK(problem_of(with([](json& j) { j["sliders"][3]["enforce_volume"] = "yes"; })) ==
        "sliders[3].enforce_volume must be true or false");
  CHECK(problem_of(with([](json& j) { j["mutes"]["individual"] = {true}; })) ==
        "mutes.individual must be an array of 4 booleans");
  CHECK(problem_of(with([](json& j) { j["mutes"].erase("master"); })) ==
        "mutes.master must be true or false");
  CHECK(problem_of(with([](json& j) { j.erase("mutes"); })) == "mutes is missing");
  CHECK(problem_of(with([](json& j) { j["volume"] = -1; })) ==
        "volume must be an integer from 0 to 100");
  CHECK(problem_of(with([](json& j) { j.erase("macros"); })) == "macros is missing");
  CHECK(problem_of(with([](json& j) {
          j["macros"]["pages"]["7"] = json::array();
        })).rfind("macros: ", 0) == 0);
  CHECK(problem_of(with([](json& j) {
          j["macros"]["pages"]["0"][0] = {{"type", "warp"}};
        })).rfind("macros: ", 0) == 0);
}

TEST_CASE("Profile JSON: the list, one summary, and one profile with its content") {
  mixerd::profiles_view view;
  view.current = "b";
  view.profiles = {{"a", "", "2026-01-01T00:00:00", "2026-01-02T00:00:00", ""},
                   {"b", "star", "t1", "t2", ""},
                   {"c", "", "", "", "not valid JSON: ..."}};
  CHECK(profiles::to_json(view) == json{{"current", "b"},
                                        {"profiles",
                                         {{{"name", "a"},
                                           {"icon", ""},
                                           {"created", "2026-01-01T00:00:00"},
                                           {"updated", "2026-01-02T00:00:00"},
                                           {"is_current", false}},
                                          {{"name", "b"},
                                           {"icon", "star"},
                                           {"created", "t1"},
                                           {"updated", "t2"},
                                           {"is_current", true}},
                                          {{"name", "c"},
                                           {"icon", ""},
                                           {"created", ""},
                                           {"updated", ""},
                                           {"is_current", false},
                                           {"error", "not valid JSON: ..."}}}}});
  const auto one = profiles::profile_to_json(sample(), true);
  CHECK(one["name"] == "Late night");
  CHECK(one["is_current"] == true);
  CHECK(one["volume"] == 33);
  CHECK(one["sliders"].size() == 4);
  CHECK(one["macros"]["page_names"]["2"] == "Stream");
  CHECK_FALSE(one.contains("error"));
}

TEST_CASE("the content of a state leaves the current macro page out") {
  mixerd::mixer_snapshot mix;
  mix.master_volume = 12;
  auto pages = mixerd::macros::default_pages();
  pages.current_page = 3;
  pages.page_names[1] = "Games";
  const auto content = profiles::content_of(mix, pages);
  CHECK(content.mix.master_volume == 12);
  CHECK(content.macros.page_names[1] == "Games");
  CHECK_FALSE(profiles::content_to_json(content)["macros"].contains("current_page"));
}
