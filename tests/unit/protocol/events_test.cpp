#include "protocol/events.hpp"

#include <doctest/doctest.h>

#include <vector>

using namespace mixerd;

namespace {

// One of each event type, in the variant's order.
std::vector<event> one_of_each() {
  return {slider_change{},        assignment_change{},   mute_change{},       volume_change{},
          profile_change{},       macro_executed{},      macro_page_change{}, macros_change{},
          device_status_change{}, audio_status_change{}, smarthome_change{},  smarthome_status{},
          stream_change{},        stream_status{},       music_change{},      plugin_status{},
          serial_raw{},           device_input{}};
}

}  // namespace

TEST_CASE("every event type has its own topic") {
  const auto events = one_of_each();
  REQUIRE(events.size() == topic_set().size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    CAPTURE(event_name(events[i]));
    CHECK(topic_of(events[i]) == i);
  }
  CHECK(topics_of<slider_change>() == topic_set().set(topic_of(slider_change{})));
  CHECK(topics_of<mute_change, device_input>().count() == 2);
  CHECK(topics_of<mute_change, device_input>().test(topic_of(device_input{})));
  CHECK(topics_of<>().none());
}

TEST_CASE("client_topics are the topics of the events clients see") {
  const auto clients = client_topics();
  for (const auto& e : one_of_each()) {
    CAPTURE(event_name(e));
    CHECK(clients.test(topic_of(e)) == is_client_event(e));
  }
  CHECK(clients ==
        topics_of<slider_change, assignment_change, mute_change, volume_change, profile_change,
                  macro_executed, macro_page_change, macros_change, device_status_change,
                  audio_status_change, smarthome_change, smarthome_status, stream_change,
                  stream_status, music_change, plugin_status>());
  CHECK_FALSE(is_client_event(serial_raw{}));
  CHECK_FALSE(is_client_event(device_input{}));
}

TEST_CASE("a macro outcome names its error only when it failed") {
  CHECK(macro_executed{1, 4, "Mic", true, ""}.to_json() ==
        nlohmann::json{{"page", 1}, {"index", 4}, {"name", "Mic"}, {"ok", true}});
  CHECK(macro_executed{0, 0, "Web", false, "HTTP 500"}.to_json()["error"] == "HTTP 500");
  CHECK(macro_page_change{3}.to_json() == nlohmann::json{{"page", 3}});
}

TEST_CASE("the integrations' events carry the API's shapes") {
  smarthome_device lamp{"light.desk", "Desk", "on", "light", 50};
  CHECK(smarthome_change{lamp}.to_json() == nlohmann::json{{"entity_id", "light.desk"},
                                                           {"friendly_name", "Desk"},
                                                           {"state", "on"},
                                                           {"brightness", 50},
                                                           {"domain", "light"}});
  smarthome_device plug{"switch.fan", "switch.fan", "off", "switch", std::nullopt};
  CHECK(smarthome_change{plug}.to_json()["brightness"].is_null());
  CHECK(stream_status{true, false, true}.to_json() ==
        nlohmann::json{{"connected", true}, {"streaming", false}, {"recording", true}});
  CHECK(stream_change{"Live"}.to_json() == nlohmann::json{{"scene", "Live"}});
  CHECK(music_change{}.to_json().is_null());
  music_state track{"mpv", "Playing", "Tone", "A, B", "Album", "", 600000};
  CHECK(music_change{track}.to_json()["artist"] == "A, B");
  CHECK(music_change{track}.to_json()["length_ms"] == 600000);
}

TEST_CASE("the wire names of the events") {
  CHECK(event_name(audio_status_change{}) == "audio_status");
  CHECK(event_name(device_status_change{}) == "device_status");
  CHECK(audio_status_change::wire_name == "audio_status");
}

TEST_CASE("plugin_status carries the plugin as GET /api/plugins lists it") {
  plugin_info p;
  p.id = "com.example.echo";
  p.name = "Echo";
  p.version = "1.2.0";
  p.api_version = "1.0";
  p.state = plugin_state::failed;
  p.restarts = 4;
  p.last_error = "exited with status 1";
  CHECK(event_name(event{plugin_status{p}}) == "plugin_status");
  CHECK(plugin_status{p}.to_json() == nlohmann::json{{"id", "com.example.echo"},
                                                     {"name", "Echo"},
                                                     {"version", "1.2.0"},
                                                     {"api_version", "1.0"},
                                                     {"enabled", true},
                                                     {"state", "failed"},
                                                     {"restarts", 4},
                                                     {"last_error", "exited with status 1"}});
}
