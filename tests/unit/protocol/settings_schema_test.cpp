#include "protocol/settings_schema.hpp"
#include "tests/unit/support/declarations.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

using nlohmann::json;
using namespace mixerd;

namespace {

// The key `validate` blames for a settings object holding only `key: value` ("" when accepted).
std::string blamed(const json& settings) {
  auto problem = settings_schema::validate(settings);
  return problem ? problem->key : std::string();
}

std::string blamed(const std::string& key, const json& value) {
  return blamed(json{{key, value}});
}

void check_key(const std::string& key, const std::vector<json>& accepted,
               const std::vector<json>& rejected) {
  for (const json& value : accepted) {
    CAPTURE(key);
    CAPTURE(value.dump());
    CHECK(blamed(key, value).empty());
  }
  for (const json& value : rejected) {
    CAPTURE(key);
    CAPTURE(value.dump());
    CHECK(blamed(key, value) == key);
  }
}

json slider_with(const json& fields) {
  return json{{"sliders", json::array({fields})}};
}

}  // namespace

TEST_CASE("validate accepts an empty object and unknown keys") {
  CHECK_FALSE(settings_schema::validate(json::object()));
  CHECK_FALSE(settings_schema::validate(json{{"not_yet_invented", {1, 2, 3}}, {"other", nullptr}}));
}

TEST_CASE("validate refuses a top level that is not an object") {
  for (const json& value : {json::array({1}), json(5), json("text"), json(nullptr)}) {
    CAPTURE(value.dump());
    auto problem = settings_schema::validate(value);
    REQUIRE(problem);
    CHECK(problem->key == "(top level)");
    CHECK(problem->message == "must be a JSON object");
  }
}

TEST_CASE("validate refuses values nested deeper than 64 levels, unknown keys included") {
  // Found while fuzzing settings.json: nlohmann's copy and pretty dump recurse, and a deep
  // value made the daemon's first save run for ever (the indentation grows quadratically).
  auto nested = [](int levels) {
    json value = json::array();
    for (int i = 1; i < levels; ++i)
      value = json::array({std::move(value)});
    return value;
  };
  CHECK_FALSE(settings_schema::validate(json{{"future", nested(63)}}));  // 64 with the top
  auto problem = settings_schema::validate(json{{"future", nested(64)}});
  REQUIRE(problem);
  CHECK(problem->key == "future");
  CHECK(problem->message == "is nested deeper than 64 levels");
  // A deep value is refused before anything else in it is looked at.
  json settings = json::object();
  settings["sliders"] = nested(10000);  // moved in: a copy would recurse 10000 levels
  auto sliders = settings_schema::validate(settings);
  REQUIRE(sliders);
  CHECK(sliders->key == "sliders");
}

TEST_CASE("validate checks the secrets") {
  const std::string sixteen(16, 'a');
  // null clears a guarded key (a new one is made): accepted.
  check_key("toast_api_key", {sixteen, std::string(64, 'f'), nullptr},
            {std::string(15, 'a'), "", 12345678901234567});
  check_key("plant_store_token", {sixteen, std::string(64, '0')},
            {std::string(15, 'a'), json::array()});
  auto problem = settings_schema::validate(json{{"toast_api_key", "short"}});
  REQUIRE(problem);
  CHECK(problem->message == "must be a string of at least 16 characters");
}

TEST_CASE("validate checks the auth keys") {
  check_key("auth_enabled", {true, false, nullptr}, {"true", 1});
  check_key("auth_username", {"admin", ""}, {5, false, json::array()});
  const std::string hash64(64, 'a');
  check_key("auth_password_hash",
            {"", "pbkdf2_sha256$1$00$" + hash64, "pbkdf2_sha256$300000$0a1b$" + hash64},
            {json::array(), 1, "pbkdf2_sha256$1$00$00", "correct horse battery",
             "pbkdf2_sha256$0$00$" + hash64, "pbkdf2_sha256$300000$0$" + hash64,
             "pbkdf2_sha256$300000$00$" + hash64 + "$", "md5$1$00$" + hash64,
             "pbkdf2_sha256$300000$00$" + std::string(64, 'A')});
  check_key("session_timeout", {1, 60, 86400, 31'536'000}, {0, 31'536'001, 3.5, "86400", -1});
  check_key("session_max_lifetime", {86400, 2'592'000, 31'536'000},
            {0, 31'536'001, 3.5, "86400", -1, 3600});
}

TEST_CASE("a change may not turn login on without a password but a file may") {
  const json on_without = {{"auth_enabled", true}};
  CHECK_FALSE(settings_schema::validate(on_without));
  auto bad = settings_schema::validate_change(on_without, {"auth_enabled"});
  REQUIRE(bad);
  CHECK(bad->key == "auth_enabled");
  CHECK_FALSE(settings_schema::validate_change(on_without, {"master_volume"}));
  const json on_with = {{"auth_enabled", true},
                        {"auth_password_hash", "pbkdf2_sha256$1$00$" + std::string(64, 'a')}};
  CHECK_FALSE(settings_schema::validate_change(on_with, {"auth_enabled", "auth_password_hash"}));
  CHECK(settings_schema::validate_change({{"auth_enabled", true}}, {"auth_password_hash"}));
}

TEST_CASE("the session lifetime is at least the idle timeout") {
  using settings_schema::validate;
  CHECK_FALSE(validate(json{{"session_timeout", 60}, {"session_max_lifetime", 60}}));
  CHECK_FALSE(validate(json{{"session_timeout", 60}, {"session_max_lifetime", 61}}));
  auto shorter = validate(json{{"session_timeout", 60}, {"session_max_lifetime", 59}});
  REQUIRE(shorter);
  CHECK(shorter->key == "session_max_lifetime");
  CHECK(shorter->message == "must be at least session_timeout (60)");
  // Without session_timeout its default (86400) counts.
  auto below_default = validate(json{{"session_max_lifetime", 3600}});
  REQUIRE(below_default);
  CHECK(below_default->message == "must be at least session_timeout (86400)");
  // Without session_max_lifetime any valid timeout goes (the lifetime follows it).
  CHECK_FALSE(validate(json{{"session_timeout", 31'536'000}}));
  // A broken timeout is reported as such.
  auto broken = validate(json{{"session_timeout", "60"}, {"session_max_lifetime", 30}});
  REQUIRE(broken);
  CHECK(broken->key == "session_timeout");
}

TEST_CASE("validate checks the ports") {
  for (const char* key : {"controller_port", "toast_port", "plants_port"})
    check_key(key, {0, 5000, 65535}, {-1, 65536, "5000", 5000.5, true, nullptr});
  auto problem = settings_schema::validate(json{{"plants_port", 70000}});
  REQUIRE(problem);
  CHECK(problem->message == "must be an integer from 0 to 65535");
}

TEST_CASE("validate checks the serial port the bind address and the log level") {
  check_key("serial_port", {"auto", "none", "/dev/ttyACM0"}, {1, false, nullptr});
  check_key("bind_address", {"0.0.0.0", "127.0.0.1"},
            {false, 0, std::string("0.0.0.0\0junk", 12)});  // NUL: found by fuzzing
  check_key("log_level", {"trace", "debug", "info", "warn", "error"},
            {"verbose", "INFO", "", 1, nullptr});
}

TEST_CASE("validate checks the socket.io timings") {
  for (const char* key :
       {"socketio_ping_interval_ms", "socketio_ping_timeout_ms", "socketio_connect_timeout_ms"})
    check_key(key, {1000, 25000, 600'000}, {999, 600'001, "25000", 0});
}

TEST_CASE("validate checks the socket.io session caps") {
  for (const char* key : {"socketio_max_sessions", "socketio_max_sessions_per_address"})
    check_key(key, {1, 32, 2000, 100'000}, {0, -1, 100'001, "32", 32.5, true, nullptr});
}

TEST_CASE("validate checks the master volume") {
  check_key("master_volume", {0, 50, 100}, {-1, 101, 50.5, "50"});
}

TEST_CASE("validate checks the slider list") {
  CHECK(blamed("sliders", json::array()).empty());
  json four = json::array();
  for (int i = 0; i < 4; ++i)
    four.push_back({{"label", "S"}, {"assignment", {{"type", "unassigned"}}}});
  CHECK(blamed("sliders", four).empty());
  json five = four;
  five.push_back(json::object());
  CHECK(blamed("sliders", five) == "sliders");
  CHECK(blamed("sliders", json::object()) == "sliders");
  CHECK(blamed("sliders", "Music") == "sliders");
  CHECK(blamed(json{{"sliders", {json::object(), 3}}}) == "sliders[1]");
}

TEST_CASE("validate checks slider labels") {
  CHECK(blamed(slider_with({{"label", std::string(64, 'x')}})).empty());
  CHECK(blamed(slider_with({{"label", ""}})).empty());
  CHECK(blamed(slider_with({{"label", std::string(65, 'x')}})) == "sliders[0].label");
  CHECK(blamed(slider_with({{"label", 7}})) == "sliders[0].label");
  CHECK(blamed(slider_with({{"label", "tab\there"}})).empty());  // becomes a space on the device
  CHECK(blamed(slider_with({{"label", "esc\x1b[31m"}})) == "sliders[0].label");
  CHECK(blamed(slider_with({{"label", std::string("nul\0", 4)}})) == "sliders[0].label");
}

TEST_CASE("validate checks the slider enforce_volume flag") {
  CHECK(blamed(slider_with({{"enforce_volume", true}})).empty());
  CHECK(blamed(slider_with({{"enforce_volume", false}})).empty());
  CHECK(blamed(slider_with({{"enforce_volume", "yes"}})) == "sliders[0].enforce_volume");
  CHECK(blamed(slider_with({{"enforce_volume", 1}})) == "sliders[0].enforce_volume");
}

TEST_CASE("validate checks slider assignments") {
  const std::vector<json> accepted = {
      {{"type", "unassigned"}},
      {{"type", "system_default_output"}},
      {{"type", "system_default_input"}},
      {{"type", "app"}, {"names", {"firefox", "mpv"}}},
      {{"type", "specific_app"}, {"names", {"spotify"}}},
      {{"type", "app"}, {"names", json::array()}},
  };
  for (const json& a : accepted) {
    CAPTURE(a.dump());
    CHECK(blamed(slider_with({{"assignment", a}})).empty());
  }
  struct bad {
    json assignment;
    std::string key;
  };
  const std::vector<bad> rejected = {
      {"app", "sliders[0].assignment"},
      {json::object(), "sliders[0].assignment.type"},
      {{{"type", 3}}, "sliders[0].assignment.type"},
      {{{"type", "bogus"}}, "sliders[0].assignment.type"},
      {{{"type", "app"}}, "sliders[0].assignment.names"},
      {{{"type", "app"}, {"names", "firefox"}}, "sliders[0].assignment.names"},
      {{{"type", "app"}, {"names", {""}}}, "sliders[0].assignment.names"},
      {{{"type", "app"}, {"names", {1}}}, "sliders[0].assignment.names"},
  };
  for (const bad& b : rejected) {
    CAPTURE(b.assignment.dump());
    auto problem = settings_schema::validate(slider_with({{"assignment", b.assignment}}));
    REQUIRE(problem);
    CHECK(problem->key == b.key);
    CHECK((problem->message.rfind("must", 0) == 0 || problem->message == "is missing"));
  }
}

TEST_CASE("validate checks the mutes") {
  CHECK(blamed("mutes", json::object()).empty());
  CHECK(blamed("mutes", {{"individual", {true, false, false, true}}, {"master", true}}).empty());
  CHECK(blamed("mutes", json::array()) == "mutes");
  CHECK(blamed("mutes", true) == "mutes");
  CHECK(blamed("mutes", {{"individual", {true, false, false}}}) == "mutes.individual");
  CHECK(blamed("mutes", {{"individual", {true, false, false, true, false}}}) == "mutes.individual");
  CHECK(blamed("mutes", {{"individual", {true, false, 0, true}}}) == "mutes.individual");
  CHECK(blamed("mutes", {{"individual", "none"}}) == "mutes.individual");
  CHECK(blamed("mutes", {{"master", "yes"}}) == "mutes.master");
}

TEST_CASE("locate_key finds top-level and nested keys") {
  const std::string text =
      "{\n"
      "  \"controller_port\": 5000,\n"
      "  \"mutes\": {\n"
      "    \"master\": false,\n"
      "    \"individual\": [true]\n"
      "  },\n"
      "  \"sliders\": [\n"
      "    {\"label\": \"A\", \"assignment\": {\"type\": \"x\"}}\n"
      "  ]\n"
      "}\n";
  CHECK(settings_schema::locate_key(text, "controller_port") == 2);
  CHECK(settings_schema::locate_key(text, "mutes") == 3);
  CHECK(settings_schema::locate_key(text, "mutes.individual") == 5);
  CHECK(settings_schema::locate_key(text, "mutes.master") == 4);
  CHECK(settings_schema::locate_key(text, "sliders[0].assignment.type") == 8);
  CHECK(settings_schema::locate_key(text, "sliders") == 7);
  CHECK(settings_schema::locate_key("{\"a\": 1}", "a") == 1);
}

TEST_CASE("locate_key returns 0 when the key is not in the text") {
  CHECK(settings_schema::locate_key("{\n  \"a\": 1\n}\n", "b") == 0);
  CHECK(settings_schema::locate_key("[1, 2]", "(top level)") == 0);
  CHECK(settings_schema::locate_key("", "controller_port") == 0);
}

TEST_CASE("locate_key finds a key inside the second element of an array") {
  const std::string text =
      "{\n"
      "  \"sliders\": [\n"
      "    {\"label\": \"A\"},\n"
      "    {\"label\": 5}\n"
      "  ]\n"
      "}\n";
  // Regression: the "[1]" part used to be ignored, pointing at the first slider (line 3).
  CHECK(settings_schema::locate_key(text, "sliders[1].label") == 4);
}

TEST_CASE("allowed_hosts is a list of at most 64 host names or *.names") {
  check_key("allowed_hosts",
            {json::array(), json{"mixer.example.com"}, json{"*.example.com", "studio", "pi.lan."},
             json(std::vector<std::string>(64, "a.example"))},
            {json("mixer.example.com"), json(5), json::object(),
             json(std::vector<std::string>(65, "a.example"))});
  for (const json& entry : {json(""), json("*"), json("a b"), json("a:5000"), json(nullptr)}) {
    CAPTURE(entry.dump());
    auto problem = settings_schema::validate(json{{"allowed_hosts", {"ok.example", entry}}});
    REQUIRE(problem);
    CHECK(problem->key == "allowed_hosts[1]");
    CHECK(problem->message ==
          "must be a host name such as \"mixer.example.com\" or \"*.example.com\"");
  }
}

TEST_CASE("validate checks the plugins key: switches and own settings per plugin id") {
  using settings_schema::validate;
  CHECK_FALSE(validate(json{{"plugins", json::object()}}));
  CHECK_FALSE(validate(
      json::parse(R"({"plugins": {"a.b": {"enabled": false, "settings": {"x": 1}}, "c.d": {}}})")));
  auto not_object = validate(json{{"plugins", json::array()}});
  REQUIRE(not_object);
  CHECK(not_object->key == "plugins");
  auto entry = validate(json::parse(R"({"plugins": {"a.b": true}})"));
  REQUIRE(entry);
  CHECK(entry->key == "plugins.a.b");
  auto enabled = validate(json::parse(R"({"plugins": {"a.b": {"enabled": "yes"}}})"));
  REQUIRE(enabled);
  CHECK(enabled->key == "plugins.a.b.enabled");
  CHECK(enabled->message == "must be true or false");
  auto settings = validate(json::parse(R"({"plugins": {"a.b": {"settings": [1]}}})"));
  REQUIRE(settings);
  CHECK(settings->key == "plugins.a.b.settings");
}

TEST_CASE("validate checks the metrics token and mdns") {
  check_key("metrics_token",
            {std::string(16, 'a'), "abc-DEF_012.~+/xyz==", std::string(1024, 'z'), nullptr},
            {std::string(15, 'a'), "sixteen chars with spaces", "0123456789abcdef\n",
             std::string(1025, 'z'), 12345678901234567});
  check_key("mdns", {true, false}, {"true", 1, nullptr});
}

TEST_CASE("the schema document has every installed key, each typed and described") {
  const auto doc = settings_schema::document();
  CHECK(doc["$schema"] == "https://json-schema.org/draft/2020-12/schema");
  const auto& properties = doc["properties"];
  // The daemon's own keys and one of each capability's parts.
  for (const char* key : {"controller_port", "log_level", "serial_port", "sliders", "macros",
                          "auth_enabled", "toast_api_key", "allowed_hosts", "plant_store_token",
                          "stream", "smarthome", "current_profile", "mqtt", "plugins", "mdns"}) {
    CAPTURE(key);
    CHECK(properties.contains(key));
  }
  for (const auto& [key, schema] : properties.items()) {
    CAPTURE(key);
    CHECK(schema.contains("type"));
    CHECK(schema.value("description", "") != "");
    CHECK(schema.value("x-owner", "") != "");
  }
  // Secrets are never sent back: marked writeOnly.
  for (const char* secret :
       {"toast_api_key", "plant_store_token", "auth_password_hash", "metrics_token"})
    CHECK(properties[secret]["writeOnly"] == true);
  CHECK(properties["mqtt"]["properties"]["password"]["writeOnly"] == true);
  CHECK(properties["controller_port"]["default"] == settings_schema::default_controller_port);
}

TEST_CASE("a key of a capability this build leaves out is kept without a check") {
  // The parts installed for this test binary are a full build's; without the mixer's part, its
  // keys are unknown keys: allowed and kept.
  CHECK(blamed("master_volume", 500) == "master_volume");
  settings_schema::install_parts({});
  CHECK(blamed("master_volume", 500).empty());
  CHECK(blamed("controller_port", 70000) == "controller_port");  // the daemon's own part stays
  mixerd::test::install_every_declaration();
  CHECK(blamed("master_volume", 500) == "master_volume");
}

// ---- Guarded keys: secrets and access rules ----------------------------------------------------

TEST_CASE("every key holding a secret or an access rule is guarded, and only those") {
  const auto keys = settings_schema::guarded_keys();
  const std::set<std::string> guarded(keys.begin(), keys.end());
  CHECK(guarded == std::set<std::string>{"metrics_token", "auth_enabled", "auth_username",
                                         "auth_password_hash", "session_timeout", "bind_address",
                                         "session_max_lifetime", "toast_api_key", "allowed_hosts",
                                         "http_macro_allow", "plant_store_token", "stream",
                                         "smarthome", "mqtt", "plugins"});
  // Every secret (a writeOnly value, at the top or inside an object) is among them.
  const auto doc = settings_schema::document();
  for (const auto& [key, schema] : doc["properties"].items()) {
    CAPTURE(key);
    bool secret = schema.value("writeOnly", false);
    if (auto inner = schema.find("properties"); inner != schema.end())
      for (const auto& [_, property] : inner->items())
        secret = secret || property.value("writeOnly", false);
    if (secret) CHECK(guarded.count(key) == 1);
    CHECK(schema.value("x-kept-on-reload", false) == (guarded.count(key) == 1));
  }
}

TEST_CASE("null clears a guarded key only: any other key stays checked") {
  CHECK_FALSE(settings_schema::validate(json{{"mqtt", nullptr}, {"auth_password_hash", nullptr}}));
  CHECK(blamed("master_volume", nullptr) == "master_volume");
  CHECK(blamed("mdns", nullptr) == "mdns");
  // A cleared session_timeout counts as absent (its default) for session_max_lifetime's check.
  CHECK(blamed(json{{"session_timeout", nullptr}, {"session_max_lifetime", 3600}}) ==
        "session_max_lifetime");
  CHECK(blamed(json{{"session_timeout", nullptr}, {"session_max_lifetime", 86400}}).empty());
}

TEST_CASE("a file that leaves a guarded key out keeps its running value, null clears it") {
  const json running = {{"toast_api_key", std::string(64, 'a')},
                        {"auth_enabled", true},
                        {"auth_password_hash", "pbkdf2_sha256$1$00$00"},
                        {"metrics_token", std::string(20, 'm')},
                        {"mqtt", {{"url", "mqtt://b"}, {"username", "u"}, {"password", "pw"}}},
                        {"master_volume", 30}};
  // An empty object: every guarded key of the running settings comes back, nothing else.
  json fresh = json::object();
  auto kept = settings_schema::keep_guarded(running, fresh);
  CHECK(std::set<std::string>(kept.begin(), kept.end()) ==
        std::set<std::string>{"toast_api_key", "auth_enabled", "auth_password_hash",
                              "metrics_token", "mqtt"});
  CHECK_FALSE(fresh.contains("master_volume"));
  CHECK(fresh["mqtt"]["password"] == "pw");

  // What the file says wins: a value (false turns the login off), or null (cleared).
  fresh = {{"auth_enabled", false}, {"metrics_token", nullptr}, {"mqtt", json::object()}};
  kept = settings_schema::keep_guarded(running, fresh);
  CHECK(std::set<std::string>(kept.begin(), kept.end()) ==
        std::set<std::string>{"toast_api_key", "auth_password_hash"});
  CHECK(fresh["auth_enabled"] == false);
  CHECK(fresh["mqtt"] == json::object());  // an object is taken whole: no password added
  const auto cleared = settings_schema::take_cleared(fresh);
  CHECK(cleared == std::vector<std::string>{"metrics_token"});
  CHECK_FALSE(fresh.contains("metrics_token"));

  // A key the running settings do not have stays absent; an unguarded null stays as it is.
  json other = {{"x", nullptr}, {"mdns", nullptr}};
  CHECK(settings_schema::keep_guarded(json::object(), other).empty());
  CHECK(settings_schema::take_cleared(other).empty());
  CHECK(other.size() == 2);
}
