#include "protocol/stream.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "protocol/settings_schema.hpp"

namespace stream = mixerd::stream;
using nlohmann::json;

TEST_CASE("the authentication string follows obs-websocket 5's algorithm") {
  // The example values of obs-websocket's protocol.md; the expected strings come from
  // base64(sha256(base64(sha256(password + salt)) + challenge)) computed with Python's hashlib.
  const std::string password = "supersecretpassword";
  const std::string salt = "lM1GncleQOaCu9lT1yeUZhFYnqhsLLP1G5lAGo3ixaI=";
  const std::string challenge = "+IxH4CnCiqpX1rM9scsNynZzbOe4KhDeYcTNS3PDaeY=";
  CHECK(stream::auth_string(password, salt, challenge) ==
        "1Ct943GAT+6YQUUX47Ia/ncufilbe6+oD6lY+5kaCu4=");
  CHECK(stream::auth_string("other", salt, challenge) !=
        "1Ct943GAT+6YQUUX47Ia/ncufilbe6+oD6lY+5kaCu4=");
}

TEST_CASE("Identify carries the authentication only when Hello asks for it") {
  std::string error;
  auto hello = stream::parse_message(
      R"({"op":0,"d":{"obsWebSocketVersion":"5.1.0","rpcVersion":1,"authentication":)"
      R"({"challenge":"+IxH4CnCiqpX1rM9scsNynZzbOe4KhDeYcTNS3PDaeY=",)"
      R"("salt":"lM1GncleQOaCu9lT1yeUZhFYnqhsLLP1G5lAGo3ixaI="}}})",
      error);
  REQUIRE(hello);
  auto identify =
      json::parse(stream::identify_message(std::get<stream::hello>(*hello), "supersecretpassword"));
  CHECK(identify["op"] == 1);
  CHECK(identify["d"]["rpcVersion"] == 1);
  CHECK(identify["d"]["authentication"] == "1Ct943GAT+6YQUUX47Ia/ncufilbe6+oD6lY+5kaCu4=");
  CHECK(identify["d"]["eventSubscriptions"] == ((1 << 2) | (1 << 3) | (1 << 6) | (1 << 7)));

  auto open = stream::parse_message(R"({"op":0,"d":{"rpcVersion":1}})", error);
  REQUIRE(open);
  auto plain = json::parse(stream::identify_message(std::get<stream::hello>(*open), "x"));
  CHECK_FALSE(plain["d"].contains("authentication"));
}

TEST_CASE("messages: events, responses, and what is refused") {
  std::string error;
  auto e = stream::parse_message(
      R"({"op":5,"d":{"eventType":"CurrentProgramSceneChanged","eventIntent":4,)"
      R"("eventData":{"sceneName":"Live"}}})",
      error);
  REQUIRE(e);
  CHECK(std::get<stream::event>(*e).type == "CurrentProgramSceneChanged");
  CHECK(stream::string_of(std::get<stream::event>(*e).data, "sceneName") == "Live");

  auto r = stream::parse_message(
      R"({"op":7,"d":{"requestType":"SetCurrentProgramScene","requestId":"7",)"
      R"("requestStatus":{"result":false,"code":600,"comment":"No source was found"}}})",
      error);
  REQUIRE(r);
  const auto& resp = std::get<stream::response>(*r);
  CHECK(resp.id == "7");
  CHECK_FALSE(resp.ok);
  CHECK(resp.code == stream::code_not_found);
  CHECK(resp.data == json::object());

  for (const char* bad : {"", "[]", "{}", R"({"op":"0","d":{}})", R"({"op":0,"d":[]})",
                          R"({"op":0,"d":{}})", R"({"op":9,"d":{}})",
                          R"({"op":7,"d":{"requestType":"X","requestId":1,)"
                          R"("requestStatus":{"result":true,"code":100}}})",
                          R"({"op":0,"d":{"rpcVersion":1,"authentication":{"salt":"s"}}})"}) {
    CAPTURE(bad);
    CHECK_FALSE(stream::parse_message(bad, error));
    CHECK_FALSE(error.empty());
  }
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  CHECK_FALSE(stream::parse_message(deep, error));
}

TEST_CASE("scene and item lists come out in the order OBS's lists show them") {
  // As OBS 29 answers for the UI list Intro, Live, Outro (GetSceneList is bottom first).
  auto list = stream::scene_list_of(
      json::parse(R"({"currentPreviewSceneName":null,"currentProgramSceneName":"Intro","scenes":[)"
                  R"({"sceneIndex":0,"sceneName":"Outro"},{"sceneIndex":1,"sceneName":"Live"},)"
                  R"({"sceneIndex":2,"sceneName":"Intro"}]})"));
  REQUIRE(list);
  CHECK(list->scenes == std::vector<std::string>{"Intro", "Live", "Outro"});
  CHECK(list->current == "Intro");
  CHECK_FALSE(stream::scene_list_of(json::parse(R"({"scenes":[{"sceneName":"A"}]})")));
  CHECK_FALSE(
      stream::scene_list_of(json::parse(R"({"currentProgramSceneName":null,"scenes":[]})")));

  // Item index 0 is the bottom of the sources list.
  auto items = stream::scene_items_of(json::parse(
      R"({"sceneItems":[{"sourceName":"Backdrop","sceneItemId":1,"sceneItemIndex":0,)"
      R"("sceneItemEnabled":true},{"sourceName":"Banner","sceneItemId":2,"sceneItemIndex":1,)"
      R"("sceneItemEnabled":false}]})"));
  REQUIRE(items);
  REQUIRE(items->size() == 2);
  CHECK((*items)[0].name == "Banner");
  CHECK((*items)[0].id == 2);
  CHECK_FALSE((*items)[0].enabled);
  CHECK((*items)[1].name == "Backdrop");
  CHECK_FALSE(stream::scene_items_of(json::parse(R"({"sceneItems":[{"sourceName":"A"}]})")));
}

TEST_CASE("settings: defaults, URLs, and the password never in an error") {
  std::string key;
  std::string error;
  auto defaults = stream::settings_from(json::object(), key, error);
  REQUIRE(defaults);
  CHECK(defaults->url == "ws://127.0.0.1:4455");
  CHECK(defaults->endpoint.port == 4455);
  CHECK(defaults->password.empty());

  auto set = stream::settings_from(
      json{{"stream", {{"url", "wss://obs.example:4456/"}, {"password", "p4ss"}}}}, key, error);
  REQUIRE(set);
  CHECK(set->endpoint.tls);
  CHECK(set->password == "p4ss");

  CHECK_FALSE(stream::settings_from(json{{"stream", {{"url", "http://x:1"}}}}, key, error));
  CHECK(key == "stream.url");
  CHECK_FALSE(stream::settings_from(json{{"stream", "ws://x"}}, key, error));
  CHECK(key == "stream");
  CHECK_FALSE(stream::settings_from(json{{"stream", {{"password", 5}}}}, key, error));
  CHECK(key == "stream.password");
  const std::string long_secret = "secret" + std::string(300, 'x');
  CHECK_FALSE(stream::settings_from(json{{"stream", {{"password", long_secret}}}}, key, error));
  CHECK(key == "stream.password");
  CHECK(error.find("secret") == std::string::npos);

  auto problem = mixerd::settings_schema::validate(json{{"stream", {{"url", "ws://"}}}});
  REQUIRE(problem);
  CHECK(problem->key == "stream.url");
  CHECK_FALSE(mixerd::settings_schema::validate(json{{"stream", {{"password", "secret"}}}}));
}

TEST_CASE("API bodies and toasts") {
  mixerd::stream_view view;
  CHECK(stream::to_json(view) == json::parse(R"({"connected":false,"streaming":false,)"
                                             R"("recording":false,"scenes":[],"current":null,)"
                                             R"("sources":[]})"));
  view.connected = true;
  view.scenes = {"A", "B"};
  view.current = "B";
  view.sources = {{"Cam", 3, true}, {"Bg", 1, false}};
  CHECK(stream::scenes_to_json(view) == json::parse(R"({"scenes":["A","B"],"current":"B"})"));
  CHECK(stream::sources_to_json(view) == json::parse(R"({"sources":["Cam","Bg"]})"));
  CHECK(stream::to_json(view)["current"] == "B");

  auto t = stream::scene_toast("A scene with a name far too long\nfor the screen");
  CHECK(t.message == "A scene with a name far too lo");
  CHECK(t.subtitle == "Scene switched");
  CHECK(stream::scene_toast("Ünïcödé\tx").message == "Ünïcödé x");
  CHECK(stream::output_toast(true, true).message == "Recording started");
  CHECK(stream::output_toast(false, false).message == "Stream stopped");
}
