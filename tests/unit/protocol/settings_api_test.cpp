#include "protocol/settings_api.hpp"

#include <doctest/doctest.h>

#include "protocol/settings_schema.hpp"

using nlohmann::json;
using namespace mixerd;

namespace {

const json& schema() {
  static const json doc = settings_schema::document();
  return doc;
}

json patched(json target, const json& patch) {
  settings_api::merge_patch(target, patch, schema());
  return target;
}

}  // namespace

TEST_CASE("settings api: set secrets read as the mask, unset ones as empty, others as they are") {
  const json settings = {{"toast_api_key", std::string(64, 'k')},
                         {"metrics_token", ""},
                         {"mqtt", {{"url", "mqtt://broker"}, {"password", "pw"}}},
                         {"smarthome", {{"url", "http://ha:8123"}}},
                         {"master_volume", 40}};
  const auto shown = settings_api::redact(settings, schema());
  CHECK(shown["toast_api_key"] == "********");
  CHECK(shown["metrics_token"] == "");
  CHECK(shown["mqtt"]["password"] == "********");
  CHECK(shown["mqtt"]["url"] == "mqtt://broker");
  CHECK(shown["smarthome"]["url"] == "http://ha:8123");
  CHECK(shown["smarthome"]["token"] == "");  // a secret the object leaves out: not set
  CHECK(shown["master_volume"] == 40);
  // The text of no secret is anywhere in what is shown.
  const auto text = shown.dump();
  CHECK(text.find(std::string(64, 'k')) == std::string::npos);
  CHECK(text.find("\"pw\"") == std::string::npos);
}

TEST_CASE("settings api: a merge patch follows RFC 7396") {
  // The examples of RFC 7396, appendix A, on keys no schema knows.
  struct example {
    const char* target;
    const char* patch;
    const char* result;
  };
  for (const auto& e : std::initializer_list<example>{
           {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
           {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
           {R"({"a":"b"})", R"({"a":null})", R"({})"},
           {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
           {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
           {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
           {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
           {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
           {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
           {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
           {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
       }) {
    CAPTURE(e.patch);
    CHECK(patched(json::parse(e.target), json::parse(e.patch)) == json::parse(e.result));
  }
}

TEST_CASE("settings api: the mask written back leaves a secret as it is, anything else sets it") {
  const json settings = {{"toast_api_key", std::string(64, 'k')},
                         {"mqtt", {{"url", "mqtt://a"}, {"password", "old"}}}};
  // What GET showed, sent back whole with one change.
  auto shown = settings_api::redact(settings, schema());
  shown["mqtt"]["url"] = "mqtt://b";
  auto after = patched(settings, shown);
  CHECK(after["toast_api_key"] == std::string(64, 'k'));
  CHECK(after["mqtt"]["password"] == "old");
  CHECK(after["mqtt"]["url"] == "mqtt://b");
  CHECK(patched(settings, {{"mqtt", {{"password", "new"}}}})["mqtt"]["password"] == "new");
  // The mask is no value of a setting that is no secret.
  CHECK(patched(settings, {{"serial_port", "********"}})["serial_port"] == "********");
}

TEST_CASE("settings api: the changed keys and key paths") {
  const json before = {{"a", 1}, {"sliders", {{{"label", "A"}}, {{"label", "B"}}}}, {"gone", true}};
  const json after = {
      {"a", 1}, {"sliders", {{{"label", "A"}}, {{"label", "C"}}}}, {"new", {{"x", 1}}}};
  CHECK(settings_api::changed_keys(before, after) ==
        std::vector<std::string>{"gone", "new", "sliders"});
  CHECK(settings_api::changed_paths(before, after) ==
        std::vector<std::string>{"gone", "new", "sliders[1].label"});
  CHECK(settings_api::changed_paths(before, before).empty());
  // An array that changes length is named whole.
  CHECK(settings_api::changed_paths({{"l", {1, 2}}}, {{"l", {1}}}) ==
        std::vector<std::string>{"l"});
  CHECK(settings_api::summary({"a", "b", "c"}, 2) == "a, b and 1 more");
  CHECK(settings_api::summary({"a"}) == "a");
  // Members of one object read as one entry.
  CHECK(settings_api::summary({"macros.pages.0[1].name", "macros.pages.0[1].type", "smarthome.url",
                               "master_volume"}) ==
        "macros.pages.0[1] (name, type), smarthome.url, master_volume");
  CHECK(settings_api::summary({"s.a", "s.b", "t.c", "u.d"}, 2) == "s (a, b), t.c and 1 more");
}

TEST_CASE("settings api: keys holding secrets or access rules need a trusted caller") {
  CHECK(settings_api::first_guarded({"master_volume", "sliders"}).empty());
  CHECK(settings_api::first_guarded({"master_volume", "smarthome"}) == "smarthome");
  for (const char* key : {"auth_enabled", "auth_password_hash", "mqtt", "plugins", "stream",
                          "toast_api_key", "allowed_hosts", "http_macro_allow"}) {
    CAPTURE(key);
    CHECK(settings_api::first_guarded({key}) == key);
  }
  CHECK(settings_api::needs_trust_text("mqtt").find("needs login") != std::string::npos);
}

TEST_CASE("settings api: an export leaves every secret out and keeps the rest") {
  const json settings = {{"toast_api_key", std::string(64, 'k')},
                         {"mqtt", {{"url", "mqtt://a"}, {"username", "u"}, {"password", "pw"}}},
                         {"smarthome", {{"url", "http://ha"}}},
                         {"master_volume", 40}};
  const auto out = settings_api::without_secrets(settings, schema());
  CHECK(out == json{{"mqtt", {{"url", "mqtt://a"}, {"username", "u"}}},
                    {"smarthome", {{"url", "http://ha"}}},
                    {"master_volume", 40}});
}

TEST_CASE("settings api: an import keeps the running secrets it leaves out, never for a new URL") {
  const json running = {{"toast_api_key", std::string(64, 'k')},
                        {"mqtt", {{"url", "mqtt://a"}, {"username", "u"}, {"password", "pw"}}},
                        {"smarthome", {{"url", "http://ha"}, {"token", std::string(20, 't')}}}};
  json imported = {{"mqtt", {{"url", "mqtt://a"}, {"username", "u"}}},
                   {"smarthome", {{"url", "http://elsewhere"}}}};
  settings_api::carry_secrets(imported, running, schema());
  CHECK(imported["toast_api_key"] == std::string(64, 'k'));
  CHECK(imported["mqtt"]["password"] == "pw");           // the same broker: its password stays
  CHECK_FALSE(imported["smarthome"].contains("token"));  // another host: no token goes there
  // A secret the import holds is the import's.
  json with_key = {{"toast_api_key", std::string(64, 'n')}};
  settings_api::carry_secrets(with_key, running, schema());
  CHECK(with_key["toast_api_key"] == std::string(64, 'n'));
}

TEST_CASE("settings api: a restored version keeps the running live state") {
  const json running = {{"master_volume", 70},
                        {"mutes", {{"individual", {true, false, false, false}}, {"master", false}}},
                        {"macros", {{"current_page", 2}, {"page_names", {{"0", "Now"}}}}},
                        {"log_level", "debug"}};
  json restored = {{"master_volume", 20},
                   {"current_profile", "Old"},
                   {"macros", {{"current_page", 0}, {"page_names", {{"0", "Then"}}}}},
                   {"log_level", "info"}};
  settings_api::keep_live(restored, running, schema());
  CHECK(restored["master_volume"] == 70);
  CHECK(restored["mutes"] == running["mutes"]);
  CHECK_FALSE(restored.contains("current_profile"));  // running has none: its default applies
  CHECK(restored["macros"]["current_page"] == 2);
  CHECK(restored["macros"]["page_names"]["0"] == "Then");  // configuration is restored
  CHECK(restored["log_level"] == "info");
}
