#include "protocol/plugins.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "protocol/device_codec.hpp"
#include "protocol/json.hpp"

using namespace mixerd;
using json_value = nlohmann::json;

namespace {

json_value good_manifest() {
  return json_value::parse(R"({"id": "com.example.demo", "name": "Demo", "version": "1.2.0",
    "api_version": "1.0", "type": "executable", "entry_point": "main.py", "main_class": "Demo",
    "description": "d", "author": "a"})");
}

plugins::manifest_check check_of(const json_value& doc) {
  return plugins::parse_manifest(doc.dump(), "demo");
}

std::vector<plugins::hook_call> hooks(const event& e, plugins::hook_mapper& mapper) {
  return plugins::hooks_of(e, mapper);
}

event input(std::string_view line) {
  return device_input{protocol::parse_device_line(line)};
}

}  // namespace

TEST_CASE("a complete manifest may run") {
  auto c = check_of(good_manifest());
  CHECK(c.state == plugin_state::stopped);
  CHECK(c.reason.empty());
  CHECK(c.m.id == "com.example.demo");
  CHECK(c.m.name == "Demo");
  CHECK(c.m.entry_point == "main.py");
  CHECK(c.m.main_class == "Demo");
  CHECK(c.m.schema.empty());
}

TEST_CASE("a manifest that is not JSON, not an object or lacks a field is invalid, with why") {
  auto broken = plugins::parse_manifest("{\"id\": ", "folder");
  CHECK(broken.state == plugin_state::invalid);
  CHECK(broken.m.id == "folder");  // listed under its folder's name
  CHECK(broken.reason.rfind("manifest.json: not valid JSON", 0) == 0);
  CHECK(plugins::parse_manifest("[1]", "f").reason == "manifest.json: not a JSON object");
  for (const char* field :
       {"id", "name", "version", "api_version", "type", "entry_point", "main_class"}) {
    auto doc = good_manifest();
    doc.erase(field);
    auto c = check_of(doc);
    CHECK(c.state == plugin_state::invalid);
    CHECK(c.reason == std::string("manifest.json: `") + field + "` is missing");
  }
  auto doc = good_manifest();
  doc["version"] = 3;
  CHECK(check_of(doc).reason == "manifest.json: `version` must be a string, not integer");
  // What could be read is kept for the listing.
  CHECK(check_of(doc).m.name == "Demo");
}

TEST_CASE("the manifest's id, type, entry point and class are checked") {
  for (const char* id : {"com.example", "a.b.c", "io.x-y_z.Plugin9"})
    CHECK(plugins::valid_plugin_id(id));
  for (const char* id : {"", "single", "a..b", ".a.b", "a.b.", "a.b c", "a/b.c", "ä.b"})
    CHECK_FALSE(plugins::valid_plugin_id(id));
  CHECK(plugins::valid_plugin_id("a." + std::string(126, 'b')));
  CHECK_FALSE(plugins::valid_plugin_id("a." + std::string(127, 'b')));

  for (const char* name : {"main.py", "my_plugin.py", "x.y.py"})
    CHECK(plugins::valid_entry_point(name));
  for (const char* name :
       {"", ".py", "main", "main.pyc", "../main.py", "sub/main.py", "..", ".hidden.py", "a\nb.py"})
    CHECK_FALSE(plugins::valid_entry_point(name));

  for (const char* name : {"Demo", "_Private", "Plugin2"})
    CHECK(plugins::valid_class_name(name));
  for (const char* name : {"", "2Plugin", "my-plugin", "a.b", "Ünicode"})
    CHECK_FALSE(plugins::valid_class_name(name));

  auto doc = good_manifest();
  doc["type"] = "library";
  CHECK(check_of(doc).reason == "manifest.json: `type` must be \"executable\"");
  doc = good_manifest();
  doc["entry_point"] = "../../etc/x.py";
  CHECK(check_of(doc).state == plugin_state::invalid);
  doc = good_manifest();
  doc["id"] = "nodots";
  CHECK(check_of(doc).state == plugin_state::invalid);
  CHECK(check_of(doc).m.id == "demo");
}

TEST_CASE("an api_version of another major is incompatible, not invalid") {
  for (const char* v : {"1", "1.0", "1.7.3"}) {
    auto doc = good_manifest();
    doc["api_version"] = v;
    CHECK(check_of(doc).state == plugin_state::stopped);
  }
  for (const char* v : {"2.0", "0.9", "10", ""}) {
    auto doc = good_manifest();
    doc["api_version"] = v;
    auto c = check_of(doc);
    CHECK(c.state == plugin_state::incompatible);
    CHECK(c.reason.find("not supported") != std::string::npos);
  }
}

TEST_CASE("settings_schema is read with its types, defaults and bounds") {
  auto doc = good_manifest();
  doc["settings_schema"] = json_value::parse(R"({
    "threshold": {"type": "integer", "default": 90, "min": 1, "max": 100, "description": "t"},
    "ratio": {"type": "number", "min": 0.5},
    "label": {"type": "string", "default": "hi"},
    "on": {"type": "boolean", "default": true}})");
  auto c = check_of(doc);
  REQUIRE(c.state == plugin_state::stopped);
  REQUIRE(c.m.schema.size() == 4);
  CHECK(c.m.schema["threshold"].type == "integer");
  CHECK(c.m.schema["threshold"].default_value == 90);
  CHECK(*c.m.schema["threshold"].max == 100);
  CHECK(c.m.schema["ratio"].default_value.is_null());

  const char* bad[] = {
      R"([1])",
      R"({"x": 1})",
      R"({"x": {"type": "list"}})",
      R"({"x": {"type": "integer", "default": "9"}})",
      R"({"x": {"type": "integer", "default": 200, "max": 100}})",
      R"({"x": {"type": "string", "min": 1}})",
      R"({"x": {"type": "integer", "min": 5, "max": 1}})",
      R"({"bad key": {"type": "integer"}})",
  };
  for (const char* schema : bad) {
    doc["settings_schema"] = json_value::parse(schema);
    auto broken = check_of(doc);
    CHECK_MESSAGE(broken.state == plugin_state::invalid, schema);
    CHECK(broken.reason.find("settings_schema") != std::string::npos);
  }
}

TEST_CASE("check_setting holds a value to the schema: only its keys, type, min and max") {
  plugins::settings_schema schema;
  schema["threshold"] = {"integer", 90, "", 1.0, 100.0};
  schema["ratio"] = {"number", nullptr, "", 0.5, std::nullopt};
  schema["label"] = {"string", "x", "", std::nullopt, std::nullopt};
  schema["on"] = {"boolean", true, "", std::nullopt, std::nullopt};
  CHECK(plugins::check_setting(schema, "threshold", 50).empty());
  CHECK(plugins::check_setting(schema, "threshold", 100).empty());
  CHECK(plugins::check_setting(schema, "ratio", 0.75).empty());
  CHECK(plugins::check_setting(schema, "ratio", 3).empty());  // an integer is a number
  CHECK(plugins::check_setting(schema, "label", "text").empty());
  CHECK(plugins::check_setting(schema, "on", false).empty());
  CHECK(plugins::check_setting(schema, "threshold", 101) == "'threshold' must be at most 100");
  CHECK(plugins::check_setting(schema, "threshold", 0) == "'threshold' must be at least 1");
  CHECK(plugins::check_setting(schema, "threshold", 5.5) ==
        "'threshold' must be an integer, not number");
  CHECK(plugins::check_setting(schema, "ratio", 0.25) == "'ratio' must be at least 0.5");
  CHECK(plugins::check_setting(schema, "on", 1) == "'on' must be a boolean, not integer");
  CHECK(plugins::check_setting(schema, "label", nullptr) == "'label' must be a string, not null");
  CHECK(plugins::check_setting(schema, "other", 1) ==
        "'other' is not in the plugin's settings_schema");
  // Without a schema any key and (bounded) value goes.
  CHECK(plugins::check_setting({}, "anything", json_value{{"a", {1, 2}}}).empty());
  CHECK_FALSE(plugins::check_setting({}, "", 1).empty());
}

TEST_CASE("effective settings are the schema's defaults with the stored values over them") {
  plugins::settings_schema schema;
  schema["threshold"] = {"integer", 90, "", std::nullopt, std::nullopt};
  schema["label"] = {"string", nullptr, "", std::nullopt, std::nullopt};
  auto all = plugins::effective_settings(schema, json_value{{"threshold", 70}, {"extra", true}});
  CHECK(all == json_value{{"threshold", 70}, {"label", nullptr}, {"extra", true}});
  CHECK(plugins::effective_settings(schema, json_value::array()) ==
        json_value{{"threshold", 90}, {"label", nullptr}});
}

TEST_CASE(
    "the settings schema as GET /api/plugins shows it: every key with type, default and bounds") {
  plugins::settings_schema schema;
  schema["threshold"] = {"integer", 90, "the alert level", 1.0, 100.0};
  schema["ratio"] = {"number", nullptr, "", 0.5, std::nullopt};
  schema["label"] = {"string", "x", "", std::nullopt, std::nullopt};
  CHECK(plugins::schema_to_json(schema) ==
        json_value{{"threshold",
                    {{"type", "integer"},
                     {"default", 90},
                     {"description", "the alert level"},
                     {"min", 1},
                     {"max", 100}}},
                   {"ratio",
                    {{"type", "number"}, {"default", nullptr}, {"description", ""}, {"min", 0.5}}},
                   {"label", {{"type", "string"}, {"default", "x"}, {"description", ""}}}});
  CHECK(plugins::schema_to_json(schema)["threshold"]["min"].is_number_integer());
  CHECK(plugins::schema_to_json({}) == json_value::object());
}

TEST_CASE("plugin lines decode to their kind, anything unusable is a bad line") {
  auto ready =
      plugins::decode_plugin_line(R"({"type":"ready","hooks":["on_load","on_slider_change"]})");
  REQUIRE(std::holds_alternative<plugins::line_ready>(ready));
  CHECK(std::get<plugins::line_ready>(ready).hooks.size() == 2);

  auto fatal = plugins::decode_plugin_line(R"({"type":"fatal","error":"ImportError: x"})");
  REQUIRE(std::holds_alternative<plugins::line_fatal>(fatal));
  CHECK(std::get<plugins::line_fatal>(fatal).error == "ImportError: x");

  auto done = plugins::decode_plugin_line(R"({"type":"hook_done","id":7,"result":true})");
  REQUIRE(std::holds_alternative<plugins::line_hook_done>(done));
  CHECK(std::get<plugins::line_hook_done>(done).id == 7);
  CHECK(std::get<plugins::line_hook_done>(done).result == true);
  CHECK_FALSE(std::get<plugins::line_hook_done>(done).error);

  auto raised =
      plugins::decode_plugin_line(R"({"type":"hook_done","id":8,"error":"ValueError: v"})");
  REQUIRE(std::holds_alternative<plugins::line_hook_done>(raised));
  CHECK(*std::get<plugins::line_hook_done>(raised).error == "ValueError: v");

  auto call = plugins::decode_plugin_line(
      R"({"type":"call","id":3,"method":"send_serial","args":{"command":"X"}})");
  REQUIRE(std::holds_alternative<plugins::line_call>(call));
  CHECK(*std::get<plugins::line_call>(call).id == 3);
  CHECK(std::get<plugins::line_call>(call).method == "send_serial");
  CHECK(std::get<plugins::line_call>(call).args["command"] == "X");

  auto log =
      plugins::decode_plugin_line(R"({"type":"call","method":"log","args":{"message":"m"}})");
  REQUIRE(std::holds_alternative<plugins::line_call>(log));
  CHECK_FALSE(std::get<plugins::line_call>(log).id);

  for (const char* bad :
       {"", "not json", "[1,2]", "{}", R"({"type":5})", R"({"type":"hello"})",
        R"({"type":"ready"})", R"({"type":"ready","hooks":[1]})", R"({"type":"fatal"})",
        R"({"type":"hook_done"})", R"({"type":"hook_done","id":-1})",
        R"({"type":"hook_done","id":"1"})", R"({"type":"hook_done","id":1,"error":5})",
        R"({"type":"call","id":1})", R"({"type":"call","id":1.5,"method":"log"})",
        R"({"type":"call","method":"log","args":[1]})"})
    CHECK_MESSAGE(std::holds_alternative<plugins::line_bad>(plugins::decode_plugin_line(bad)), bad);
  // Deep nesting is refused while parsing, not by overflowing the stack.
  std::string deep = R"({"type":"call","method":"log","args":{"a":)" + std::string(100000, '[') +
                     std::string(100000, ']') + "}}";
  CHECK(std::holds_alternative<plugins::line_bad>(plugins::decode_plugin_line(deep)));
  CHECK(std::holds_alternative<plugins::line_bad>(
      plugins::decode_plugin_line(std::string(plugins::max_line_bytes + 1, ' '))));
}

TEST_CASE("host lines encode as the README shows them") {
  plugins::manifest m;
  m.id = "a.b";
  m.name = "N";
  m.version = "1";
  m.entry_point = "main.py";
  m.main_class = "P";
  CHECK(json_value::parse(plugins::encode_init(m, "/data/plugins/executable/b")) ==
        json_value::parse(R"({"type":"init","plugin":{"id":"a.b","name":"N","version":"1",
          "folder":"/data/plugins/executable/b"},"entry_point":"main.py","main_class":"P"})"));
  CHECK(plugins::encode_hook(4, "on_slider_change", json_value::array({1, 57})) ==
        R"({"args":[1,57],"hook":"on_slider_change","id":4,"type":"hook"})");
  CHECK(json_value::parse(plugins::encode_reply(9, true)) ==
        json_value{{"type", "reply"}, {"id", 9}, {"result", true}});
  CHECK(json_value::parse(plugins::encode_reply_error(9, "ValueError", "bad")) ==
        json_value::parse(
            R"({"type":"reply","id":9,"error":{"kind":"ValueError","message":"bad"}})"));
  // One line each, whatever the text holds; invalid UTF-8 does not throw.
  auto line = plugins::encode_reply(1, "a\nb\xff");
  CHECK(line.find('\n') == std::string::npos);
}

TEST_CASE("device lines map to the input hooks with the REST API's indices") {
  plugins::hook_mapper mapper;
  auto slider = hooks(input("SLIDER,0,57"), mapper);
  REQUIRE(slider.size() == 2);
  CHECK(slider[0].hook == "on_slider_change");
  CHECK(slider[0].args == json_value::array({1, 57}));
  CHECK(slider[1].hook == "on_serial_receive");
  CHECK(slider[1].args == json_value::array({"SLIDER,0,57"}));

  mapper.macro_page = 2;
  auto press = hooks(input("MACRO,4,PRESS"), mapper);
  REQUIRE(press.size() == 2);
  CHECK(press[0].hook == "on_macro_button");
  CHECK(press[0].args == json_value::array({4, 2}));
  CHECK(hooks(input("MACRO,4,RELEASE"), mapper).size() == 1);  // only on_serial_receive

  auto turn = hooks(input("ENCODER,-3"), mapper);
  CHECK(turn[0].hook == "on_encoder_turn");
  CHECK(turn[0].args == json_value::array({-3}));
  CHECK(hooks(input("ENCODER,PRESS"), mapper)[0].args == json_value::array({"press"}));
  CHECK(hooks(input("ENCODER,RELEASE"), mapper)[0].args == json_value::array({"release"}));

  auto page = hooks(input("PAGE,Mixer"), mapper);
  CHECK(page[0].hook == "on_page_change");
  CHECK(page[0].args == json_value::array({"Mixer"}));
}

TEST_CASE("on_serial_receive gets every device line but heartbeats and acknowledgements") {
  plugins::hook_mapper mapper;
  CHECK(hooks(input("PONG"), mapper).empty());
  CHECK(hooks(input("ACK,READY"), mapper).empty());
  auto raw = hooks(serial_raw{"BOOT,whatever"}, mapper);
  REQUIRE(raw.size() == 1);
  CHECK(raw[0].hook == "on_serial_receive");
  CHECK(raw[0].args == json_value::array({"BOOT,whatever"}));
  auto version = hooks(input("FW_VER,2.0.0"), mapper);
  REQUIRE(version.size() == 1);
  CHECK(version[0].args == json_value::array({"FW_VER,2.0.0"}));
}

TEST_CASE("a mute press fires on_mute_button once the mixer says the result") {
  plugins::hook_mapper mapper;
  CHECK(hooks(input("MUTE,1,PRESS"), mapper).size() == 1);  // on_serial_receive only
  // A mute change nobody pressed (REST) fires nothing.
  CHECK(hooks(mute_change{3, true}, mapper).empty());
  auto pressed = hooks(mute_change{2, true}, mapper);
  REQUIRE(pressed.size() == 1);
  CHECK(pressed[0].hook == "on_mute_button");
  CHECK(pressed[0].args == json_value::array({2, true}));
  CHECK(hooks(mute_change{2, false}, mapper).empty());  // answered once

  hooks(input("MUTE,MASTER,PRESS"), mapper);
  auto master = hooks(mute_change{protocol::master_index, false}, mapper);
  REQUIRE(master.size() == 1);
  CHECK(master[0].args == json_value::array({"master", false}));

  // Presses that never got an answer are bounded and forgotten at a disconnect.
  for (int i = 0; i < 100; ++i)
    hooks(input("MUTE,0,PRESS"), mapper);
  CHECK(mapper.pending_mutes.size() == plugins::max_pending_mutes);
  hooks(device_status{false, ""}, mapper);
  CHECK(mapper.pending_mutes.empty());
}

TEST_CASE("connects, macro pages, profiles and track changes map to their hooks") {
  plugins::hook_mapper mapper;
  auto connect = hooks(device_status{true, "/dev/ttyACM0"}, mapper);
  CHECK(connect[0].hook == "on_device_connect");
  CHECK(connect[0].args == json_value::array({"/dev/ttyACM0"}));
  auto gone = hooks(device_status{false, ""}, mapper);
  CHECK(gone[0].hook == "on_device_disconnect");
  CHECK(gone[0].args == json_value::array());

  auto page = hooks(macro_page_change{3}, mapper);
  CHECK(page[0].hook == "on_macro_page_change");
  CHECK(page[0].args == json_value::array({3}));
  CHECK(mapper.macro_page == 3);  // the page later button presses name
  CHECK(hooks(input("MACRO,0,PRESS"), mapper)[0].args == json_value::array({0, 3}));

  CHECK(hooks(profile_change{"Gaming"}, mapper)[0].args == json_value::array({"Gaming"}));

  now_playing song;
  song.player = "mpv";
  song.title = "One";
  song.artist = "A";
  song.status = "Playing";
  auto track = hooks(music_change{song}, mapper);
  REQUIRE(track.size() == 1);
  CHECK(track[0].hook == "on_music_track_change");
  CHECK(track[0].args[0]["title"] == "One");
  // A pause of the same track is no track change.
  song.status = "Paused";
  CHECK(hooks(music_change{song}, mapper).empty());
  song.title = "Two";
  CHECK(hooks(music_change{song}, mapper).size() == 1);
  CHECK(hooks(music_change{std::nullopt}, mapper).empty());
}

TEST_CASE("macro type names follow plugin_type's rule") {
  CHECK(plugins::valid_macro_type("toast_text"));
  CHECK(plugins::valid_macro_type("com.example.counter-2"));
  CHECK_FALSE(plugins::valid_macro_type(""));
  CHECK_FALSE(plugins::valid_macro_type("has space"));
  CHECK_FALSE(plugins::valid_macro_type(std::string(65, 'a')));
}
