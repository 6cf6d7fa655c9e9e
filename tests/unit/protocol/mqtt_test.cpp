#include "protocol/mqtt.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "protocol/settings_schema.hpp"

namespace mqtt = mixerd::mqtt;
using nlohmann::json;

namespace {

mqtt::settings parsed(const json& all, std::string_view host = "pi") {
  std::string key;
  std::string error;
  auto s = mqtt::settings_from(all, host, key, error);
  REQUIRE_MESSAGE(s, key, " ", error);
  return *s;
}

std::string refused_key(const json& all) {
  std::string key;
  std::string error;
  auto s = mqtt::settings_from(all, "pi", key, error);
  CHECK_FALSE(s);
  CHECK_FALSE(error.empty());
  return key;
}

mqtt::settings node(std::string id) {
  return parsed({{"mqtt", {{"url", "mqtt://broker"}, {"node_id", std::move(id)}}}});
}

}  // namespace

TEST_CASE("MQTT is off without the key or without a url") {
  CHECK_FALSE(parsed(json::object()).enabled);
  CHECK_FALSE(parsed({{"mqtt", json::object()}}).enabled);
  auto s = parsed({{"mqtt", {{"url", "mqtt://broker.lan"}}}}, "living-room.local");
  CHECK(s.enabled);
  CHECK(s.host == "broker.lan");
  CHECK(s.port == 1883);
  CHECK_FALSE(s.tls);
  CHECK(s.node_id == "living-room_local");
  CHECK(s.discovery_prefix == "homeassistant");
}

TEST_CASE("broker URLs: schemes, default ports, explicit ports, IPv6") {
  auto tls = parsed({{"mqtt", {{"url", "mqtts://broker"}}}});
  CHECK(tls.tls);
  CHECK(tls.port == 8883);
  CHECK(parsed({{"mqtt", {{"url", "mqtt://127.0.0.1:18830"}}}}).port == 18830);
  auto v6 = parsed({{"mqtt", {{"url", "mqtt://[::1]:1884/"}}}});
  CHECK(v6.host == "::1");
  CHECK(v6.port == 1884);
  for (const char* bad : {"http://broker", "mqtt://", "mqtt://broker:0", "mqtt://broker:65536",
                          "mqtt://broker:", "mqtt://user:pw@broker", "mqtt://broker/topic",
                          "mqtt://bro ker", "mqtt://[::1"}) {
    CAPTURE(bad);
    CHECK(refused_key({{"mqtt", {{"url", bad}}}}) == "mqtt.url");
  }
  CHECK(refused_key({{"mqtt", {{"url", 1883}}}}) == "mqtt.url");
}

TEST_CASE("node ids: the host name reduced, or a valid setting") {
  CHECK(mqtt::node_id_from_host("mixer.local") == "mixer_local");
  CHECK(mqtt::node_id_from_host("") == "mixerd");
  CHECK(mqtt::node_id_from_host(std::string(100, 'a')).size() == 64);
  CHECK(node("desk-2_A").node_id == "desk-2_A");
  for (const char* bad : {"", "a/b", "a+b", "a#", "a b", "zwölf"}) {
    CAPTURE(bad);
    CHECK(refused_key({{"mqtt", {{"url", "mqtt://b"}, {"node_id", bad}}}}) == "mqtt.node_id");
  }
  CHECK(refused_key({{"mqtt", {{"node_id", std::string(65, 'a')}}}}) == "mqtt.node_id");
}

TEST_CASE("other keys: credentials, prefix, unknown keys, the password never in the error") {
  auto s = parsed({{"mqtt",
                    {{"url", "mqtt://b"},
                     {"username", "ha"},
                     {"password", "s3cret"},
                     {"discovery_prefix", "ha/disc"}}}});
  CHECK(s.username == "ha");
  CHECK(s.password == "s3cret");
  CHECK(s.discovery_prefix == "ha/disc");
  CHECK(refused_key({{"mqtt", {{"password", "s3cret"}}}}) == "mqtt.password");
  CHECK(refused_key({{"mqtt", {{"username", 5}}}}) == "mqtt.username");
  CHECK(refused_key({{"mqtt", {{"password", std::string(257, 'x')}, {"username", "u"}}}}) ==
        "mqtt.password");
  for (const char* bad : {"", "/ha", "ha/", "ha//x", "ha/+", "ha/#"}) {
    CAPTURE(bad);
    CHECK(refused_key({{"mqtt", {{"discovery_prefix", bad}}}}) == "mqtt.discovery_prefix");
  }
  CHECK(refused_key({{"mqtt", {{"urll", "mqtt://b"}}}}) == "mqtt");
  CHECK(refused_key({{"mqtt", "mqtt://b"}}) == "mqtt");

  std::string key;
  std::string error;
  CHECK_FALSE(mqtt::settings_from({{"mqtt", {{"password", "hunter2hunter2"}}}}, "pi", key, error));
  CHECK(error.find("hunter2") == std::string::npos);
}

TEST_CASE("the settings schema names the mqtt key") {
  auto p = mixerd::settings_schema::validate({{"mqtt", {{"url", "ws://b"}}}});
  REQUIRE(p);
  CHECK(p->key == "mqtt.url");
  CHECK_FALSE(mixerd::settings_schema::validate({{"mqtt", {{"url", "mqtt://b"}}}}));
}

TEST_CASE("topics live under mixerd/<node_id> and discovery under the prefix") {
  auto s = node("desk");
  mqtt::entity slider{mqtt::entity_kind::slider, 2};
  CHECK(mqtt::state_topic("desk", slider) == "mixerd/desk/slider/2/state");
  CHECK(mqtt::command_topic("desk", slider) == "mixerd/desk/slider/2/set");
  CHECK(mqtt::config_topic(s, slider) == "homeassistant/number/desk/slider_2/config");
  mqtt::entity master{mqtt::entity_kind::master_mute, 0};
  CHECK(mqtt::command_topic("desk", master) == "mixerd/desk/mute/master/set");
  CHECK(mqtt::config_topic(s, master) == "homeassistant/switch/desk/mute_master/config");
  mqtt::entity macro{mqtt::entity_kind::macro, 8};
  CHECK(mqtt::state_topic("desk", macro).empty());
  CHECK(mqtt::command_topic("desk", macro) == "mixerd/desk/macro/8/press");
  mqtt::entity device{mqtt::entity_kind::device, 0};
  CHECK(mqtt::command_topic("desk", device).empty());
  CHECK(mqtt::config_topic(s, device) == "homeassistant/binary_sensor/desk/device/config");
  CHECK(mqtt::availability_topic("desk") == "mixerd/desk/availability");
  CHECK(mqtt::status_topic(s) == "homeassistant/status");
  for (const auto& filter : mqtt::command_filters("desk"))
    CHECK(filter.rfind("mixerd/desk/", 0) == 0);
}

TEST_CASE("discovery payloads: unique ids, availability, device, per-component fields") {
  auto s = node("desk");
  std::set<std::string> ids;
  auto all = mqtt::fixed_entities();
  for (int i = 0; i < 9; ++i)
    all.push_back({mqtt::entity_kind::macro, i});
  CHECK(all.size() == 21);
  for (const auto& e : all) {
    auto c = mqtt::discovery_config(s, e, {});
    CHECK(ids.insert(c["unique_id"].get<std::string>()).second);
    CHECK(c["unique_id"] == "mixerd_desk_" + mqtt::object_id(e));
    CHECK(c["availability_topic"] == "mixerd/desk/availability");
    CHECK(c["payload_available"] == "online");
    CHECK(c["device"]["identifiers"] == json::array({"mixerd_desk"}));
    CHECK(c["name"] == mqtt::default_name(e));
  }
  auto number = mqtt::discovery_config(s, {mqtt::entity_kind::slider, 1}, {"Music", {}});
  CHECK(number["name"] == "Music");
  CHECK(number["min"] == 0);
  CHECK(number["max"] == 100);
  CHECK(number["mode"] == "slider");
  auto select = mqtt::discovery_config(s, {mqtt::entity_kind::profile, 0}, {"", {"A", "B"}});
  CHECK(select["options"] == json::array({"A", "B"}));
  auto sensor = mqtt::discovery_config(s, {mqtt::entity_kind::device, 0}, {});
  CHECK(sensor["device_class"] == "connectivity");
  CHECK_FALSE(sensor.contains("command_topic"));
  auto button = mqtt::discovery_config(s, {mqtt::entity_kind::macro, 0}, {});
  CHECK(button["payload_press"] == "PRESS");
  CHECK_FALSE(button.contains("state_topic"));
}

TEST_CASE("a capability's sensor: its own topics, units and classes on the node's device") {
  auto s = node("desk");
  mixerd::sensor_reading load{"load_1m", "Load (1 min)", "", "", "measurement", "0.42"};
  CHECK(mqtt::sensor_state_topic("desk", "load_1m") == "mixerd/desk/sensor/load_1m/state");
  CHECK(mqtt::sensor_config_topic(s, "load_1m") == "homeassistant/sensor/desk/load_1m/config");
  auto config = mqtt::sensor_config(s, load);
  CHECK(config["name"] == "Load (1 min)");
  CHECK(config["unique_id"] == "mixerd_desk_load_1m");
  CHECK(config["state_topic"] == "mixerd/desk/sensor/load_1m/state");
  CHECK(config["state_class"] == "measurement");
  CHECK(config["availability_topic"] == "mixerd/desk/availability");
  CHECK(config["device"]["identifiers"] == json::array({"mixerd_desk"}));
  CHECK_FALSE(config.contains("unit_of_measurement"));
  CHECK_FALSE(config.contains("device_class"));
  CHECK_FALSE(config.contains("command_topic"));
  auto hot = mqtt::sensor_config(s, {"temperature", "Temperature", "°C", "temperature", "", ""});
  CHECK(hot["unit_of_measurement"] == "°C");
  CHECK(hot["device_class"] == "temperature");
  CHECK_FALSE(hot.contains("state_class"));
}

TEST_CASE("commands take the API's values and only this node's topics") {
  std::string error;
  auto c = mqtt::parse_command("desk", "mixerd/desk/slider/3/set", "42", error);
  REQUIRE(c);
  CHECK(c->target == mqtt::entity{mqtt::entity_kind::slider, 3});
  CHECK(c->value == 42);
  CHECK(mqtt::parse_command("desk", "mixerd/desk/volume/master/set", " 100 ", error)->value == 100);
  for (const char* bad : {"101", "-1", "42.0", "true", "\"42\"", "", "4 2", "[42]"}) {
    CAPTURE(bad);
    CHECK_FALSE(mqtt::parse_command("desk", "mixerd/desk/slider/1/set", bad, error));
    CHECK(error.find("mixerd/desk/slider/1/set") == 0);
  }
  auto on = mqtt::parse_command("desk", "mixerd/desk/mute/master/set", "ON", error);
  REQUIRE(on);
  CHECK(on->on);
  CHECK_FALSE(mqtt::parse_command("desk", "mixerd/desk/mute/1/set", "on", error));
  CHECK(mqtt::parse_command("desk", "mixerd/desk/macro/0/press", "PRESS", error));
  CHECK_FALSE(mqtt::parse_command("desk", "mixerd/desk/macro/9/press", "PRESS", error));
  CHECK(mqtt::parse_command("desk", "mixerd/desk/profile/set", "Gaming", error)->name == "Gaming");
  CHECK_FALSE(mqtt::parse_command("desk", "mixerd/desk/profile/set", "", error));
  CHECK_FALSE(mqtt::parse_command("desk", "mixerd/desk/profile/set", "a\nb", error));
  for (const char* topic : {"mixerd/other/slider/1/set", "mixerd/desk/slider/5/set",
                            "mixerd/desk/slider/01/set", "mixerd/desk/slider/1/state",
                            "mixerd/desk/device/set", "mixerd/desk", "mixerd/desks/slider/1/set"}) {
    CAPTURE(topic);
    CHECK_FALSE(mqtt::parse_command("desk", topic, "1", error));
  }
  CHECK_FALSE(
      mqtt::parse_command("desk", "mixerd/desk/profile/set", std::string(2000, 'a'), error));
}

TEST_CASE("mqtt.commands: true by default, a boolean, and a change of it is a new setting") {
  CHECK(node("desk").commands);
  auto off = parsed({{"mqtt", {{"url", "mqtt://b"}, {"commands", false}}}});
  CHECK_FALSE(off.commands);
  CHECK(off != parsed({{"mqtt", {{"url", "mqtt://b"}, {"commands", true}}}}));
  for (const json& bad : {json("false"), json(0), json(nullptr)}) {
    CAPTURE(bad.dump());
    CHECK(refused_key({{"mqtt", {{"url", "mqtt://b"}, {"commands", bad}}}}) == "mqtt.commands");
  }
  auto p = mixerd::settings_schema::validate({{"mqtt", {{"commands", "no"}}}});
  REQUIRE(p);
  CHECK(p->key == "mqtt.commands");
  CHECK(p->message == "must be true or false");
}

TEST_CASE("with mqtt.commands false discovery is read-only and leaves no control behind") {
  auto s = parsed({{"mqtt", {{"url", "mqtt://b"}, {"node_id", "desk"}, {"commands", false}}}});
  std::set<std::string> ids;
  for (const auto& e : mqtt::fixed_entities()) {
    CAPTURE(mqtt::object_id(e));
    auto c = mqtt::discovery_config(s, e, {});
    CHECK_FALSE(c.contains("command_topic"));
    CHECK(c["state_topic"] == mqtt::state_topic("desk", e));
    CHECK(ids.insert(c["unique_id"].get<std::string>()).second);
    const auto component = mqtt::component(e, false);
    CHECK((component == "sensor" || component == "binary_sensor"));
    // Its own unique_id where the component differs: it never collides with the control.
    if (component != mqtt::component(e, true))
      CHECK(c["unique_id"] == "mixerd_desk_" + mqtt::object_id(e) + "_readonly");
    else
      CHECK(c["unique_id"] == "mixerd_desk_" + mqtt::object_id(e));
  }
  CHECK(mqtt::config_topic(s, {mqtt::entity_kind::slider, 1}) ==
        "homeassistant/sensor/desk/slider_1/config");
  CHECK(mqtt::config_topic(s, {mqtt::entity_kind::mute, 2}) ==
        "homeassistant/binary_sensor/desk/mute_2/config");
  // The other layout's topics: the controls of the 11 entities whose component changes.
  auto stale = mqtt::other_layout_config_topics(s);
  CHECK(stale.size() == 11);
  CHECK(std::count(stale.begin(), stale.end(), "homeassistant/number/desk/slider_1/config") == 1);
  CHECK(std::count(stale.begin(), stale.end(), "homeassistant/select/desk/profile/config") == 1);
  CHECK(std::count(stale.begin(), stale.end(), "homeassistant/binary_sensor/desk/device/config") ==
        0);
  // And the other way round: with commands on, the read-only configs are the stale ones.
  auto back = mqtt::other_layout_config_topics(node("desk"));
  CHECK(std::count(back.begin(), back.end(), "homeassistant/sensor/desk/slider_1/config") == 1);
}

TEST_CASE("birth messages: one full publication now, the rest coalesced to the window's end") {
  using clock = mqtt::birth_coalescer::clock;
  using verdict = mqtt::birth_coalescer::verdict;
  using std::chrono::milliseconds;
  mqtt::birth_coalescer births(std::chrono::seconds(10));
  const auto t0 = clock::time_point{} + std::chrono::hours(1);
  CHECK(births.birth(t0) == verdict::publish);
  // A burst inside the window: the first is owed one publication, the rest add nothing.
  CHECK(births.birth(t0 + milliseconds(1)) == verdict::schedule);
  for (int i = 2; i < 300; ++i)
    CHECK(births.birth(t0 + milliseconds(i)) == verdict::owed);
  CHECK(births.due() == t0 + std::chrono::seconds(10));
  CHECK_FALSE(births.on_timer(t0 + milliseconds(9999)));  // early: set the timer again
  CHECK(births.owed());
  CHECK(births.on_timer(t0 + std::chrono::seconds(10)));  // the window's end: once
  CHECK_FALSE(births.on_timer(t0 + std::chrono::seconds(10)));
  // That publication opened a new window: a birth in it waits for its end, not 10 s from now.
  const auto t1 = t0 + std::chrono::seconds(10);
  CHECK(births.birth(t1 + std::chrono::seconds(3)) == verdict::schedule);
  CHECK(births.due() == t1 + std::chrono::seconds(10));
  CHECK(births.on_timer(t1 + std::chrono::seconds(10)));
  // A birth after a quiet window is answered at once.
  CHECK(births.birth(t1 + std::chrono::seconds(25)) == verdict::publish);
  // A new connection publishes everything: nothing owed, no window.
  CHECK(births.birth(t1 + std::chrono::seconds(26)) == verdict::schedule);
  births.reset();
  CHECK_FALSE(births.owed());
  CHECK_FALSE(births.on_timer(t1 + std::chrono::seconds(40)));
  CHECK(births.birth(t1 + std::chrono::seconds(27)) == verdict::publish);
}

TEST_CASE("the broker link's facts for the page: none while off, the broker and node otherwise") {
  mqtt::settings config;
  config.enabled = true;
  config.url = "mqtt://broker.lan:1883";
  config.node_id = "desk";
  using mqtt::link_state;
  CHECK(mqtt::link_facts(config, link_state::off).empty());
  auto one = [&](link_state s, int code = 0) {
    auto facts = mqtt::link_facts(config, s, code);
    REQUIRE(facts.size() == 1);
    CHECK(facts[0].label == "MQTT");
    return facts[0].value;
  };
  CHECK(one(link_state::connecting) == "Connecting to mqtt://broker.lan:1883 as node desk");
  CHECK(one(link_state::connected) == "Connected to mqtt://broker.lan:1883 as node desk");
  CHECK(one(link_state::refused, 5) ==
        "Refused by mqtt://broker.lan:1883 (code 5: check the user name and password); retrying");
  CHECK(one(link_state::refused, 2) == "Refused by mqtt://broker.lan:1883 (code 2); retrying");
  CHECK(one(link_state::unavailable) == "Not connected to mqtt://broker.lan:1883; retrying");
}
