#include "protocol/smarthome.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "protocol/json.hpp"
#include "protocol/settings_schema.hpp"

using json = nlohmann::json;
namespace smarthome = mixerd::smarthome;

namespace {

std::string problem_key(const json& settings) {
  auto problem = smarthome::check_settings(settings);
  return problem ? problem->key : "";
}

json light(const json& attributes, const std::string& state = "on") {
  return {{"entity_id", "light.desk"}, {"state", state}, {"attributes", attributes}};
}

}  // namespace

// ---- Settings ----------------------------------------------------------------------------------

TEST_CASE("smarthome settings: absent or an empty url is not configured") {
  CHECK_FALSE(smarthome::check_settings(json::object()));
  CHECK_FALSE(smarthome::settings_from(json::object()));
  const json off{{"smarthome", {{"url", ""}, {"token", ""}}}};
  CHECK_FALSE(smarthome::check_settings(off));
  CHECK_FALSE(smarthome::settings_from(off));
}

TEST_CASE("smarthome settings: the WebSocket is <url path>/api/websocket, tls from the scheme") {
  auto plain = smarthome::settings_from(
      {{"smarthome", {{"url", "http://ha.local:8123"}, {"token", "secret-token"}}}});
  REQUIRE(plain);
  CHECK_FALSE(plain->websocket.tls);
  CHECK(plain->websocket.host == "ha.local");
  CHECK(plain->websocket.port == 8123);
  CHECK(plain->websocket.target == "/api/websocket");
  CHECK(plain->token == "secret-token");
  CHECK(plain->entities.empty());
  CHECK(plain->verify_tls);

  auto proxied = smarthome::settings_from({{"smarthome",
                                            {{"url", "https://example.com/home/"},
                                             {"token", "t"},
                                             {"entities", {"light.a", "switch.b"}},
                                             {"verify_tls", false}}}});
  REQUIRE(proxied);
  CHECK(proxied->websocket.tls);
  CHECK(proxied->websocket.port == 443);
  CHECK(proxied->websocket.target == "/home/api/websocket");
  CHECK(proxied->entities == std::vector<std::string>{"light.a", "switch.b"});
  CHECK_FALSE(proxied->verify_tls);
}

TEST_CASE("smarthome settings: each bad value names its key and never quotes the token") {
  const std::string token = "super-secret-token";
  auto with = [&](json fields) { return json{{"smarthome", std::move(fields)}}; };
  CHECK(problem_key({{"smarthome", "http://ha"}}) == "smarthome");
  CHECK(problem_key(with({{"token", token}})) == "smarthome.url");
  CHECK(problem_key(with({{"url", "ws://ha.local"}, {"token", token}})) == "smarthome.url");
  CHECK(problem_key(with({{"url", "http://ha.local/?x=1"}, {"token", token}})) == "smarthome.url");
  CHECK(problem_key(with({{"url", 8123}, {"token", token}})) == "smarthome.url");
  CHECK(problem_key(with({{"url", "http://ha.local"}})) == "smarthome.token");
  CHECK(problem_key(with({{"url", "http://ha.local"}, {"token", ""}})) == "smarthome.token");
  CHECK(problem_key(with({{"url", "http://ha.local"}, {"token", 5}})) == "smarthome.token");
  CHECK(problem_key(with({{"url", "http://ha.local"}, {"token", token + "\n"}})) ==
        "smarthome.token");
  CHECK(problem_key(with({{"url", "http://ha.local"}, {"token", std::string(4097, 'x')}})) ==
        "smarthome.token");
  CHECK(
      problem_key(with({{"url", "http://ha.local"}, {"token", token}, {"entities", "light.a"}})) ==
      "smarthome.entities");
  CHECK(problem_key(with({{"url", "http://ha.local"},
                          {"token", token},
                          {"entities", {"light.a", "Light.B"}}})) == "smarthome.entities[1]");
  CHECK(problem_key(with({{"url", "http://ha.local"}, {"token", token}, {"verify_tls", 1}})) ==
        "smarthome.verify_tls");
  // The whole file's validation includes the key.
  auto whole = mixerd::settings_schema::validate(
      with({{"url", "http://ha.local"}, {"token", token + "\x01"}}));
  REQUIRE(whole);
  CHECK(whole->key == "smarthome.token");
  CHECK(whole->message.find(token) == std::string::npos);
}

TEST_CASE("entity ids and the listed domains") {
  CHECK(smarthome::valid_entity_id("light.desk"));
  CHECK(smarthome::valid_entity_id("input_boolean.guest_mode_2"));
  for (const char* bad : {"light", ".desk", "light.", "Light.desk", "light.desk lamp", "a.b.c",
                          "light.d\xC3\xA9sk", ""})
    CHECK_MESSAGE(!smarthome::valid_entity_id(bad), bad);
  CHECK_FALSE(smarthome::valid_entity_id("a." + std::string(254, 'x')));
  CHECK(smarthome::domain_of("switch.fan") == "switch");

  for (const char* id : {"light.a", "switch.a", "fan.a", "input_boolean.a"})
    CHECK(smarthome::listed(id, {}));
  CHECK_FALSE(smarthome::listed("sensor.temperature", {}));
  CHECK(smarthome::listed("sensor.temperature", {"sensor.temperature"}));
  CHECK_FALSE(smarthome::listed("light.a", {"sensor.temperature"}));
}

// ---- Home Assistant's messages -----------------------------------------------------------------

TEST_CASE("the auth messages") {
  CHECK(smarthome::parse(R"({"type":"auth_required","ha_version":"2023.8.4"})")->type ==
        smarthome::incoming::kind::auth_required);
  CHECK(smarthome::parse(R"({"type":"auth_ok","ha_version":"2023.8.4"})")->type ==
        smarthome::incoming::kind::auth_ok);
  auto invalid = smarthome::parse(R"({"type":"auth_invalid","message":"Invalid password"})");
  CHECK(invalid->type == smarthome::incoming::kind::auth_invalid);
  CHECK(invalid->error == "Invalid password");
  CHECK(json::parse(smarthome::auth_message("tok")) ==
        json{{"type", "auth"}, {"access_token", "tok"}});
}

TEST_CASE("result frames: success with its result, failure with code and message") {
  auto ok = smarthome::parse(R"({"id":2,"type":"result","success":true,"result":[1,2]})");
  REQUIRE(ok);
  CHECK(ok->type == smarthome::incoming::kind::result);
  CHECK(ok->id == 2);
  CHECK(ok->success);
  CHECK(ok->result == json{1, 2});
  auto failed = smarthome::parse(
      R"({"id":7,"type":"result","success":false,"error":{"code":"not_found","message":"Service light.x not found."}})");
  REQUIRE(failed);
  CHECK_FALSE(failed->success);
  CHECK(failed->error == "not_found: Service light.x not found.");
  // A success that is not a boolean true is a failure.
  CHECK_FALSE(smarthome::parse(R"({"id":1,"type":"result","success":"yes"})")->success);
  // Ids are integers only.
  CHECK_FALSE(smarthome::parse(R"({"id":"1","type":"result","success":true})")->id);
  CHECK_FALSE(smarthome::parse(R"({"id":1.5,"type":"result","success":true})")->id);
}

TEST_CASE("event frames: state_changed gives the entity and its new state") {
  auto msg = smarthome::parse(R"({"id":1,"type":"event","event":{"event_type":"state_changed",
      "data":{"entity_id":"light.desk","old_state":null,
              "new_state":{"entity_id":"light.desk","state":"off","attributes":{}}}}})");
  REQUIRE(msg);
  CHECK(msg->type == smarthome::incoming::kind::event);
  CHECK(msg->changed_entity == "light.desk");
  CHECK(msg->new_state["state"] == "off");
  auto removed = smarthome::parse(R"({"id":1,"type":"event","event":{"event_type":"state_changed",
      "data":{"entity_id":"light.desk","old_state":{},"new_state":null}}})");
  CHECK(removed->changed_entity == "light.desk");
  CHECK(removed->new_state.is_null());
  auto other = smarthome::parse(
      R"({"id":1,"type":"event","event":{"event_type":"call_service","data":{"entity_id":"x.y"}}})");
  CHECK(other->changed_entity.empty());
  CHECK(smarthome::parse(R"({"id":3,"type":"pong"})")->type == smarthome::incoming::kind::pong);
}

TEST_CASE("messages that are not JSON objects with a type are not messages") {
  for (const char* bad :
       {"", "null", "[]", "{}", R"({"type":1})", "{\"type\":\"auth_ok\"", "\"auth_ok\""})
    CHECK_MESSAGE(!smarthome::parse(bad), bad);
  std::string deep =
      R"({"type":"result","result":)" + std::string(100, '[') + std::string(100, ']') + "}";
  CHECK_FALSE(smarthome::parse(deep));
  CHECK(smarthome::parse(R"({"type":"something_new"})")->type == smarthome::incoming::kind::other);
}

TEST_CASE("outgoing messages carry their id and what Home Assistant documents") {
  CHECK(json::parse(smarthome::subscribe_state_changed(1)) ==
        json{{"id", 1}, {"type", "subscribe_events"}, {"event_type", "state_changed"}});
  CHECK(json::parse(smarthome::get_states(2)) == json{{"id", 2}, {"type", "get_states"}});
  CHECK(json::parse(smarthome::ping(3)) == json{{"id", 3}, {"type", "ping"}});
  CHECK(json::parse(smarthome::call_service(4, "light", "toggle", "light.desk", std::nullopt)) ==
        json{{"id", 4},
             {"type", "call_service"},
             {"domain", "light"},
             {"service", "toggle"},
             {"target", {{"entity_id", "light.desk"}}}});
  CHECK(json::parse(smarthome::call_service(5, "light", "turn_on", "light.desk",
                                            30))["service_data"] == json{{"brightness_pct", 30}});
}

// ---- Devices -----------------------------------------------------------------------------------

TEST_CASE("brightness 0-255 is 0-100, rounded half up and clamped") {
  CHECK(smarthome::brightness_percent(0) == 0);
  CHECK(smarthome::brightness_percent(255) == 100);
  CHECK(smarthome::brightness_percent(128) == 50);  // 50.196
  CHECK(smarthome::brightness_percent(180) == 71);  // 70.588
  CHECK(smarthome::brightness_percent(1) == 0);     // 0.39
  CHECK(smarthome::brightness_percent(2) == 1);     // 0.78
  CHECK(smarthome::brightness_percent(77) == 30);   // 30.196
  CHECK(smarthome::brightness_percent(-5) == 0);
  CHECK(smarthome::brightness_percent(1e300) == 100);
  CHECK(smarthome::brightness_percent(std::nan("")) == 0);
}

TEST_CASE("a state object as a Smart-home device") {
  auto d = smarthome::device_of(light({{"friendly_name", "Desk lamp"}, {"brightness", 180}}));
  REQUIRE(d);
  CHECK(mixerd::json::to_json(*d) == json{{"entity_id", "light.desk"},
                                          {"friendly_name", "Desk lamp"},
                                          {"state", "on"},
                                          {"brightness", 71},
                                          {"domain", "light"}});
  // No friendly name: the entity id; brightness null (a light that is off) or not a number.
  auto off = smarthome::device_of(light({{"brightness", nullptr}}, "off"));
  CHECK(off->friendly_name == "light.desk");
  CHECK_FALSE(off->brightness);
  CHECK_FALSE(smarthome::device_of(light({{"brightness", "high"}}))->brightness);
  CHECK(smarthome::device_of({{"entity_id", "switch.a"}, {"state", "unavailable"}})->state ==
        "unavailable");
  // Text from Home Assistant reaches the device and logs: no control bytes, bounded.
  auto odd = smarthome::device_of(light({{"friendly_name", "A\nB\x01" + std::string(300, 'x')}}));
  CHECK(odd->friendly_name.substr(0, 4) == "A B ");
  CHECK(odd->friendly_name.size() == smarthome::max_friendly_name_bytes);
  // Cut at a character boundary: 254 bytes and a 2-byte character make 254 bytes.
  auto multibyte =
      smarthome::device_of(light({{"friendly_name", std::string(254, 'x') + "\xC3\xA9"}}));
  CHECK(multibyte->friendly_name == std::string(254, 'x'));
  for (const json& bad : {json{{"state", "on"}}, json{{"entity_id", "light.desk"}},
                          json{{"entity_id", "Light.Desk"}, {"state", "on"}},
                          json{{"entity_id", "light.desk"}, {"state", 1}}, json::array()})
    CHECK_FALSE(smarthome::device_of(bad));
}

TEST_CASE("the API body and the toast of a toggle") {
  mixerd::smarthome_view view{true, {*smarthome::device_of(light({{"friendly_name", "Desk"}}))}};
  CHECK(smarthome::to_json(view) == json{{"connected", true},
                                         {"devices",
                                          {{{"entity_id", "light.desk"},
                                            {"friendly_name", "Desk"},
                                            {"state", "on"},
                                            {"brightness", nullptr},
                                            {"domain", "light"}}}}});
  CHECK(smarthome::to_json({}) == json{{"connected", false}, {"devices", json::array()}});
  mixerd::smarthome_device d;
  d.friendly_name = "A very long friendly name \xE2\x98\x86 of a lamp";
  d.state = "off";
  auto toast = smarthome::toggle_toast(d);
  CHECK(toast.message == "A very long friendly name \xE2\x98\x86 of");  // 30 characters
  CHECK(toast.subtitle == "Now off");
}
