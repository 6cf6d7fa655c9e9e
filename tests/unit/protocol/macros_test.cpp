#include "protocol/macros.hpp"

#include <doctest/doctest.h>

#include "protocol/settings_schema.hpp"

using json = nlohmann::json;
using mixerd::macro;
using mixerd::macro_pages;
namespace macros = mixerd::macros;
namespace settings_schema = mixerd::settings_schema;

namespace {

std::optional<macro> parse(const json& j, std::string& error,
                           macros::origin from = macros::origin::api) {
  return macros::parse_macro(j, from, error);
}

// The error of a refused macro ("" when it was accepted).
std::string refusal(const json& j, macros::origin from = macros::origin::api) {
  std::string error;
  return parse(j, error, from) ? "" : error;
}

}  // namespace

TEST_CASE("every kind is read into its stored form, with defaults filled in") {
  std::string error;
  auto hotkey = parse({{"type", "hotkey"}, {"name", "Mute"}, {"key", "Shift+CTRL+M"}}, error);
  REQUIRE(hotkey);
  CHECK(hotkey->type() == "hotkey");
  CHECK(hotkey->fields ==
        json{{"type", "hotkey"}, {"name", "Mute"}, {"icon", ""}, {"key", "ctrl+shift+m"}});
  CHECK(hotkey->name() == "Mute");

  auto http =
      parse({{"type", "http"}, {"url", "https://hub.local:8123/api/x?y=1"}, {"extra", 1}}, error);
  REQUIRE(http);
  CHECK(http->fields["method"] == "POST");
  CHECK_FALSE(http->fields.contains("extra"));  // fields a kind does not have are dropped

  auto get = parse({{"type", "http"}, {"url", "http://[::1]:9/"}, {"method", "get"}}, error);
  REQUIRE(get);
  CHECK(get->fields["method"] == "GET");

  CHECK(parse({{"type", "media"}, {"action", "next"}}, error));
  CHECK(parse({{"type", "mute"}, {"target", "master"}}, error));
  CHECK(parse({{"type", "volume"}, {"target", 4}, {"step", -100}}, error));
  CHECK(parse({{"type", "volume"}, {"target", 1}, {"value", 0}}, error));
  CHECK(parse({{"type", "profile"}, {"profile", "Gaming"}}, error));
  CHECK(parse({{"type", "stream_scene"}, {"scene_name", "BRB"}}, error));
  auto source = parse({{"type", "stream_source"}, {"source_name", "Cam"}}, error);
  REQUIRE(source);
  CHECK(source->fields["visible"] == "toggle");
  CHECK(parse({{"type", "smarthome"},
               {"entity_id", "light.desk_lamp"},
               {"action", "turn_on"},
               {"brightness", 40}},
              error));

  json steps = json::array({{{"type", "mute"}, {"target", 2}},
                            {{"type", "delay"}, {"ms", 60000}},
                            {{"type", "hotkey"}, {"key", "alt+f4"}}});
  auto sequence = parse({{"type", "sequence"}, {"name", "Go"}, {"steps", steps}}, error);
  REQUIRE(sequence);
  CHECK(sequence->fields["steps"].size() == 3);
  CHECK(sequence->fields["steps"][1] == json{{"type", "delay"}, {"ms", 60000}});

  // A plugin type's own fields survive a round trip.
  json plugin = {{"type", "plugin"}, {"plugin_type", "obs.replay"}, {"clip", {{"seconds", 30}}}};
  auto p = parse(plugin, error);
  REQUIRE(p);
  CHECK(p->fields["clip"] == json{{"seconds", 30}});
  CHECK(p->fields["plugin_type"] == "obs.replay");

  auto none = parse({{"type", "none"}, {"name", "ignored"}}, error);
  REQUIRE(none);
  CHECK(none->type() == "none");
  CHECK(none->fields == json{{"type", "none"}, {"name", ""}, {"icon", ""}});
}

TEST_CASE("a refused macro is answered with a sentence naming the field") {
  CHECK(refusal(json::array()) == "must be an object with a type");
  CHECK(refusal({{"name", "x"}}) == "Missing field: type");
  CHECK(refusal({{"type", "launch"}}).rfind("type must be one of none, hotkey, command", 0) == 0);
  CHECK(refusal({{"type", "mute"}, {"target", 5}}) == "target must be 1-4 or \"master\"");
  CHECK(refusal({{"type", "mute"}, {"target", "1"}}) == "target must be 1-4 or \"master\"");
  CHECK(refusal({{"type", "mute"}}) == "Missing field: target");
  CHECK(refusal({{"type", "http"}, {"url", "ftp://x/"}}) ==
        "url must be an http or https URL of at most 2048 bytes");
  CHECK(refusal({{"type", "http"}, {"url", "http://u:p@x/"}}).rfind("url must", 0) == 0);
  CHECK(refusal({{"type", "http"}, {"url", "http://x/"}, {"method", "PATCH"}}) ==
        "method must be one of GET, POST, PUT, DELETE");
  CHECK(refusal({{"type", "http"}, {"url", "http://x/"}, {"headers", {{"X-A", "a\r\nB: c"}}}}) ==
        "headers.X-A must not contain control characters");
  CHECK(refusal({{"type", "http"}, {"url", "http://x/"}, {"headers", {{"Content-Length", "1"}}}}) ==
        "headers.Content-Length is set by mixerd itself");
  CHECK(refusal({{"type", "http"}, {"url", "http://x/"}, {"body", std::string(16385, 'a')}}) ==
        "body must be at most 16384 bytes");
  CHECK(refusal({{"type", "hotkey"}, {"key", "ctrl+foo"}}).rfind("key has the unknown key", 0) ==
        0);
  CHECK(refusal({{"type", "volume"}, {"target", 1}}) == "value or step is required");
  CHECK(refusal({{"type", "volume"}, {"target", 1}, {"step", 1}, {"value", 2}}) ==
        "step and value cannot both be given");
  CHECK(refusal({{"type", "volume"}, {"target", 1}, {"step", 101}}) ==
        "step must be an integer from -100 to 100");
  CHECK(refusal({{"type", "media"}, {"action", "rewind"}}) ==
        "action must be one of play_pause, play, pause, next, previous, stop");
  CHECK(refusal({{"type", "smarthome"}, {"entity_id", "desk"}, {"action", "toggle"}}) ==
        "entity_id must be an entity id such as light.desk");
  CHECK(refusal({{"type", "stream_source"}, {"source_name", "a"}, {"visible", "yes"}}) ==
        "visible must be true, false or \"toggle\"");
  CHECK(refusal({{"type", "mute"}, {"target", 1}, {"name", std::string(65, 'n')}}) ==
        "name must be at most 64 bytes");
  CHECK(refusal({{"type", "mute"}, {"target", 1}, {"name", std::string("a\x01")}}) ==
        "name must not contain control characters");
  CHECK(refusal({{"type", "plugin"}}) == "Missing field: plugin_type");

  json bad_delay = {{"type", "sequence"},
                    {"steps", json::array({{{"type", "mute"}, {"target", 1}},
                                           {{"type", "mute"}, {"target", 1}},
                                           {{"type", "mute"}, {"target", 1}},
                                           {{"type", "delay"}, {"ms", 60001}}})}};
  CHECK(refusal(bad_delay) == "steps[3].ms must be an integer from 0 to 60000");
  CHECK(refusal({{"type", "sequence"}, {"steps", json::array({{{"type", "http"}, {"url", "x"}}})}})
            .rfind("steps[0].url must be an http or https URL", 0) == 0);
  CHECK(refusal({{"type", "sequence"}, {"steps", json::array()}}) ==
        "steps must be an array of 1 to 32 steps");
  CHECK(refusal({{"type", "sequence"}, {"steps", json::array({json::object()})}}) ==
        "Missing field: steps[0].type");
  // No sequence in a sequence, no plugin step.
  json inner = {{"type", "sequence"}, {"steps", json::array({{{"type", "mute"}, {"target", 1}}})}};
  CHECK(refusal({{"type", "sequence"}, {"steps", json::array({inner})}})
            .rfind("steps[0].type must be one of delay, hotkey", 0) == 0);
  CHECK(refusal({{"type", "sequence"}, {"steps", json(33, {{"type", "delay"}, {"ms", 1}})}}) ==
        "steps must be an array of 1 to 32 steps");
}

TEST_CASE("command macros come only from settings.json: the API's are forbidden, not invalid") {
  json command = {{"type", "command"}, {"argv", {"/usr/bin/touch", "/tmp/x"}}};
  std::string error;
  bool forbidden = false;
  CHECK_FALSE(macros::parse_macro(command, macros::origin::api, error, &forbidden));
  CHECK(forbidden);
  CHECK(error == "command macros can only be set in settings.json");

  json sequence = {{"type", "sequence"},
                   {"steps", json::array({{{"type", "delay"}, {"ms", 5}}, command})}};
  forbidden = false;
  CHECK_FALSE(macros::parse_macro(sequence, macros::origin::api, error, &forbidden));
  CHECK(forbidden);
  CHECK(error == "steps[1] is a command macro: command macros can only be set in settings.json");

  // An invalid body is a 400 however it also names a command.
  forbidden = false;
  CHECK_FALSE(macros::parse_macro({{"type", "mute"}}, macros::origin::api, error, &forbidden));
  CHECK_FALSE(forbidden);

  auto from_settings = macros::parse_macro(sequence, macros::origin::settings, error);
  REQUIRE(from_settings);
  CHECK(from_settings->fields["steps"][1]["argv"] == command["argv"]);
  CHECK(macros::parse_macro({{"type", "command"}, {"argv", {"touch", "a b"}}},
                            macros::origin::settings, error));
  CHECK(refusal({{"type", "command"}, {"argv", {"bin/touch"}}}, macros::origin::settings) ==
        "argv[0] must be an absolute path or a program name found in PATH");
  CHECK(refusal({{"type", "command"}, {"argv", json::array()}}, macros::origin::settings)
            .rfind("argv must be an array of 1 to 64 strings", 0) == 0);
  CHECK(refusal({{"type", "command"}, {"argv", {"/bin/echo", 3}}}, macros::origin::settings) ==
        "argv[1] must be a string");
}

TEST_CASE("the page set in settings.json: defaults, short pages, and the key of a problem") {
  auto defaults = macros::pages_from_settings(json::object());
  CHECK(defaults.current_page == 0);
  CHECK(defaults.page_names[3] == "Page 4");
  CHECK(defaults.pages[2][8].type() == "none");

  json settings = {{"macros",
                    {{"current_page", 2},
                     {"page_names", {{"1", "Stream"}}},
                     {"pages",
                      {{"2", json::array({json::object({{"type", "none"}}),
                                          {{"type", "mute"}, {"target", 3}}})}}}}}};
  auto set = macros::pages_from_settings(settings);
  CHECK(set.current_page == 2);
  CHECK(set.page_names[1] == "Stream");
  CHECK(set.page_names[0] == "Page 1");
  CHECK(set.pages[2][1].type() == "mute");
  CHECK(set.pages[2][8].type() == "none");  // padded to 9

  auto j = macros::to_json(set);
  CHECK(j["current_page"] == 2);
  for (const char* p : {"0", "1", "2", "3"})
    CHECK(j["pages"][p].size() == 9);
  CHECK(j["pages"]["0"][0] == json{{"type", "none"}, {"name", ""}, {"icon", ""}});
  CHECK(macros::pages_to_json(set) ==
        json{{"current", 2},
             {"names", {{"0", "Page 1"}, {"1", "Stream"}, {"2", "Page 3"}, {"3", "Page 4"}}}});
  // The set reads back as it was written.
  CHECK(macros::to_json(macros::pages_from_settings({{"macros", j}})) == j);

  std::string key;
  std::string error;
  json broken = {{"pages", {{"1", json(5, {{"type", "none"}})}}}};
  broken["pages"]["1"][4] = {{"type", "command"}, {"argv", "touch"}};
  CHECK_FALSE(macros::validate_settings(broken, key, error));
  CHECK(key == "macros.pages.1[4].argv");
  CHECK(error.rfind("must be an array of 1 to 64 strings", 0) == 0);
  CHECK_FALSE(macros::validate_settings({{"current_page", 4}}, key, error));
  CHECK(key == "macros.current_page");
  CHECK_FALSE(macros::validate_settings({{"page_names", {{"0", ""}}}}, key, error));
  CHECK(key == "macros.page_names.0");
  CHECK_FALSE(macros::validate_settings({{"pages", {{"4", json::array()}}}}, key, error));
  CHECK(key == "macros.pages.4");
  CHECK_FALSE(
      macros::validate_settings({{"pages", {{"0", json(10, json::object())}}}}, key, error));
  CHECK(key == "macros.pages.0");
  CHECK_FALSE(macros::validate_settings(json::array(), key, error));
  CHECK(key == "macros");

  // settings.json as a whole: the broken macros key stops start-up like any other key.
  auto problem = settings_schema::validate({{"macros", broken}});
  REQUIRE(problem);
  CHECK(problem->key == "macros.pages.1[4].argv");
  CHECK_FALSE(settings_schema::validate({{"macros", j}}));
}

TEST_CASE("a profile's macros: command macros allowed, the current page not part of it") {
  macro_pages set = macros::default_pages();
  set.current_page = 3;
  set.page_names[0] = "Main";
  std::string error;
  set.pages[1][0] = *macros::parse_macro({{"type", "command"}, {"argv", {"/bin/true"}}},
                                         macros::origin::settings, error);
  auto j = macros::profile_macros_to_json(set);
  CHECK_FALSE(j.contains("current_page"));
  auto back = macros::parse_profile_macros(j, error);
  REQUIRE(back);
  CHECK(back->page_names[0] == "Main");
  CHECK(back->pages[1][0].type() == "command");
  CHECK_FALSE(
      macros::parse_profile_macros({{"pages", {{"0", json::array({{{"type", "x"}}})}}}}, error));
  CHECK(error.rfind("pages.0[0].type must be one of", 0) == 0);
}

TEST_CASE("a macro takes at most 32 KiB as JSON, the 36 of a set at most 1 MiB") {
  // Two http steps of 16 KiB bodies: each field within its bound, the macro past its own.
  const json step = {
      {"type", "http"}, {"url", "http://127.0.0.1:9/"}, {"body", std::string(16 * 1024, 'x')}};
  const json two = {{"type", "sequence"}, {"steps", {step, step}}};
  const auto error = refusal(two);
  CHECK(error.rfind("macro must be at most 32768 bytes as JSON (it is ", 0) == 0);
  CHECK(refusal({{"type", "sequence"}, {"steps", {step}}}).empty());
  CHECK(refusal(two, macros::origin::settings) == error);

  std::string key;
  std::string why;
  CHECK_FALSE(macros::validate_settings({{"pages", {{"2", json::array({two})}}}}, key, why));
  CHECK(key == "macros.pages.2[0]");
  CHECK(why.rfind("must be at most 32768 bytes as JSON", 0) == 0);

  // 36 macros of about 30 KiB: each fits, together they pass 1 MiB (in settings.json and in a
  // profile alike).
  const json smaller = {
      {"type", "http"}, {"url", "http://127.0.0.1:9/"}, {"body", std::string(15 * 1024, 'x')}};
  const json one = {{"type", "sequence"}, {"steps", {smaller, smaller}}};
  CHECK(refusal(one).empty());
  json pages = json::object();
  for (const char* p : {"0", "1", "2", "3"})
    pages[p] = json(9, one);
  CHECK_FALSE(macros::validate_settings({{"pages", pages}}, key, why));
  CHECK(key == "macros.pages");
  CHECK(why.find("at most 1048576 fit") != std::string::npos);
  CHECK_FALSE(macros::parse_profile_macros({{"pages", pages}}, why));
  CHECK(why.rfind("pages hold ", 0) == 0);
  pages["3"] = json::array();
  CHECK(macros::validate_settings({{"pages", pages}}, key, why));

  auto set = macros::pages_from_settings({{"macros", {{"pages", pages}}}});
  std::size_t sum = 0;
  for (const auto& page : set.pages)
    for (const auto& m : page)
      sum += m.fields.dump().size();
  CHECK(macros::set_bytes(set.pages) == sum);
  CHECK(macros::macro_bytes(set.pages[3][0]) == macro{}.fields.dump().size());
}
