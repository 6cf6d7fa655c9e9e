#include "protocol/events.hpp"

#include <doctest/doctest.h>

#include <set>
#include <vector>

#include "protocol/audio.hpp"
#include "protocol/device.hpp"
#include "protocol/macros.hpp"
#include "protocol/mixer.hpp"
#include "protocol/music.hpp"
#include "protocol/plugins.hpp"
#include "protocol/profiles.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/stream.hpp"

using namespace mixerd;

namespace {

// One of each event type the capabilities declare.
std::vector<event> one_of_each() {
  return {slider_change{},    assignment_change{},      mute_change{},       volume_change{},
          profile_change{},   macro_executed{},         macro_page_change{}, macros_change{},
          macro_change{},     macro_page_name_change{}, device_status{},     audio_status{},
          smarthome_change{}, smarthome_status{},       stream_change{},     stream_status{},
          music_change{},     plugin_status{},          serial_raw{},        device_input{}};
}

event_kind_list declared(const std::vector<event>& events) {
  event_kind_list out;
  for (const auto& e : events)
    out.push_back(&e.kind());
  return out;
}

}  // namespace

TEST_CASE("every event type has its own kind") {
  const auto events = one_of_each();
  std::set<std::size_t> seen;
  for (const auto& e : events) {
    CAPTURE(e.wire_name());
    CHECK(e.kind().index < max_event_kinds);
    CHECK(seen.insert(e.kind().index).second);
    // The same type always has the same kind.
    CHECK(&e.kind() == &event{e}.kind());
  }
  CHECK(kinds_of<slider_change>() == event_kind_set().set(kind_of<slider_change>().index));
  CHECK(kinds_of<mute_change, device_input>().count() == 2);
  CHECK(kinds_of<mute_change, device_input>().test(kind_of<device_input>().index));
  CHECK(kinds_of<>().none());
}

TEST_CASE("an event is one of its kind only") {
  const event e = slider_change{2, 40};
  REQUIRE(e.get_if<slider_change>() != nullptr);
  CHECK(e.get_if<slider_change>()->value == 40);
  CHECK(e.is<slider_change>());
  CHECK(e.get_if<mute_change>() == nullptr);
  CHECK_FALSE(e.is<mute_change>());
  CHECK(event{}.empty());
  // Copies share the value.
  const event copy = e;
  CHECK(copy.get_if<slider_change>() == e.get_if<slider_change>());
}

TEST_CASE("client_kinds are the kinds of the declared events clients see") {
  const auto events = one_of_each();
  const auto clients = client_kinds(declared(events));
  for (const auto& e : events) {
    CAPTURE(e.wire_name());
    CHECK(clients.test(e.kind().index) == e.for_clients());
  }
  CHECK(clients ==
        kinds_of<slider_change, assignment_change, mute_change, volume_change, profile_change,
                 macro_executed, macro_page_change, macros_change, macro_change,
                 macro_page_name_change, device_status, audio_status, smarthome_change,
                 smarthome_status, stream_change, stream_status, music_change, plugin_status>());
  CHECK_FALSE(event(serial_raw{}).for_clients());
  CHECK_FALSE(event(device_input{}).for_clients());
  // An event a row does not declare reaches no client.
  CHECK(client_kinds(list_of_kinds<slider_change>()) == kinds_of<slider_change>());
}

TEST_CASE("a macro outcome names its error only when it failed") {
  CHECK(macro_executed{1, 4, "Mic", true, ""}.to_json() ==
        nlohmann::json{{"page", 1}, {"index", 4}, {"name", "Mic"}, {"ok", true}});
  CHECK(macro_executed{0, 0, "Web", false, "HTTP 500"}.to_json()["error"] == "HTTP 500");
  CHECK(macro_page_change{3}.to_json() == nlohmann::json{{"page", 3}});
}

TEST_CASE("an event may name the smaller event that carries its change, most name none") {
  CHECK(event(slider_change{1, 2}).replaced_by().empty());
  CHECK(event(macros_change{nlohmann::json::object()}).replaced_by().empty());
  CHECK(event(macros_change{nlohmann::json::object(), macro_change::wire_name}).replaced_by() ==
        "macro_change");
  CHECK(macro_page_name_change{1, "Games"}.to_json() ==
        nlohmann::json{{"page", 1}, {"name", "Games"}});
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
  now_playing track{"mpv", "Playing", "Tone", "A, B", "Album", "", 600000};
  CHECK(music_change{track}.to_json()["artist"] == "A, B");
  CHECK(music_change{track}.to_json()["length_ms"] == 600000);
}

TEST_CASE("the wire names of the events") {
  CHECK(event(audio_status{}).wire_name() == "audio_status");
  CHECK(event(device_status{}).wire_name() == "device_status");
  CHECK(audio_status::wire_name == "audio_status");
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
  CHECK(event{plugin_status{p}}.wire_name() == "plugin_status");
  CHECK(plugin_status{p}.to_json() == nlohmann::json{{"id", "com.example.echo"},
                                                     {"name", "Echo"},
                                                     {"version", "1.2.0"},
                                                     {"api_version", "1.0"},
                                                     {"enabled", true},
                                                     {"state", "failed"},
                                                     {"restarts", 4},
                                                     {"last_error", "exited with status 1"}});
}
