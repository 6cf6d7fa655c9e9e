#include "tools/mixerd/system.hpp"
#include "tools/mixerd/capability_table.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <caf/all.hpp>
#include <optional>
#include <string>
#include <vector>

#include "actors/audio/audio_actor.hpp"
#include "actors/hub/hub_actor.hpp"
#include "actors/mixer/mixer_actor.hpp"
#include "protocol/audio.hpp"
#include "protocol/auth.hpp"
#include "protocol/device.hpp"
#include "protocol/macros.hpp"
#include "protocol/mdns.hpp"
#include "protocol/mixer.hpp"
#include "protocol/mqtt.hpp"
#include "protocol/music.hpp"
#include "protocol/network.hpp"
#include "protocol/plants.hpp"
#include "protocol/plugins.hpp"
#include "protocol/profiles.hpp"
#include "protocol/settings.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/stream.hpp"
#include "protocol/toast.hpp"
#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/env.hpp"
#include "tests/unit/support/files.hpp"
#include "tests/unit/support/io_thread.hpp"
#include "tests/unit/support/wait.hpp"

using json = nlohmann::json;
namespace m = mixerd;
using mixerd::test::as;
using mixerd::test::next_event;

namespace {

// Every capability spawned from the capability table, as the daemon does, without a device (serial
// "none"), without an audio server and without a system bus.
struct system_fixture {
  m::test::temp_dir data;
  m::test::scoped_env no_audio{"PULSE_SERVER", "unix:/nonexistent/mixerd-unit/pulse/native"};
  m::test::scoped_env no_bus{"DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/mixerd-unit/bus"};
  // Nor advertise on the machine's network through its Avahi daemon.
  m::test::scoped_env no_system_bus{"DBUS_SYSTEM_BUS_ADDRESS",
                                    "unix:path=/nonexistent/mixerd-unit/system_bus_socket"};
  m::test::io_thread io;
  m::test::actor_fixture actors;
  m::running_system running;
  bool stopped = false;

  system_fixture() {
    m::actor_options options;
    options.io = &io.io;
    options.serial = "none";
    options.paths = {data.path(), data.file("settings.json")};
    options.settings = {{"master_volume", 30},
                        {"toast_api_key", std::string(64, 'a')},
                        {"macros", {{"page_names", {{"2", "Games"}}}}}};
    m::spawn_actors(actors.sys, m::capability_table(), options, running);
    for (const auto& phase : running.phases)
      for (const auto& a : phase)
        actors.track(a);
  }
  ~system_fixture() {
    if (!stopped) m::shutdown_actors(actors.sys, running, {});
  }
  system_fixture(const system_fixture&) = delete;
  system_fixture& operator=(const system_fixture&) = delete;
};

}  // namespace

TEST_CASE_FIXTURE(system_fixture, "the capability table registers every capability and its views") {
  const auto& dir = running.dir;
  CHECK(dir.get<m::hub_actor>());
  CHECK(dir.get<m::settings_actor>());
  CHECK(dir.get<m::device_actor>());
  CHECK(dir.get<m::audio_actor>());
  CHECK(dir.get<m::mixer_actor>());
  CHECK(dir.get<m::auth_actor>());
  CHECK(dir.get<m::toast_actor>());
  CHECK(dir.get<m::network_actor>());
  CHECK(dir.get<m::plants_actor>());
  // The optional ones are there exactly when built (MIXERD_WITH_<CAP>).
  CHECK(static_cast<bool>(dir.get<m::macros_actor>()) == MIXERD_WITH_MACROS);
  CHECK(static_cast<bool>(dir.get<m::profiles_actor>()) == MIXERD_WITH_PROFILES);
  CHECK(static_cast<bool>(dir.get<m::smarthome_actor>()) == MIXERD_WITH_SMARTHOME);
  CHECK(static_cast<bool>(dir.get<m::stream_actor>()) == MIXERD_WITH_STREAM);
  CHECK(static_cast<bool>(dir.get<m::music_actor>()) == MIXERD_WITH_MUSIC);
  CHECK(static_cast<bool>(dir.get<m::mqtt_actor>()) == MIXERD_WITH_MQTT);
  CHECK(static_cast<bool>(dir.get<m::plugins_actor>()) == MIXERD_WITH_PLUGINS);
  // Readers see a view from the moment a capability is spawned.
  CHECK(dir.view<m::device_view>() != nullptr);
  CHECK(dir.view<m::audio_view>() != nullptr);
  CHECK(dir.view<m::auth_view>() != nullptr);
  CHECK(dir.view<m::toast_view>() != nullptr);
  auto mixer = dir.view<m::mixer_view>();
  REQUIRE(mixer != nullptr);
  CHECK(mixer->mix.master_volume == 30);

  // initial_state: what the capabilities contribute, and the empty shapes of the rest.
  auto state = dir.initial_state();
  for (const char* key : {"sliders", "mutes", "volume", "status", "connected", "macros", "profiles",
                          "smarthome", "stream", "music"})
    CHECK_MESSAGE(state.contains(key), key);
  CHECK(state["volume"] == 30);
  CHECK(state["connected"] == false);
  CHECK(state["status"]["audio_connected"] == false);
  CHECK(state["sliders"].size() == 4);
  // No session bus here: the music part says so.
  CHECK(state["music"] == json{{"connected", false}, {"state", nullptr}});
  CHECK(state["macros"]["pages"]["3"].size() == 9);
#if MIXERD_WITH_MACROS
  // The macros' part is the page set read from the settings.
  CHECK(state["macros"]["page_names"]["2"] == "Games");
#endif
#if MIXERD_WITH_PROFILES
  // The profiles were listed (and Default made) before the first client could connect.
  CHECK(state["profiles"]["current"] == "Default");
  REQUIRE(state["profiles"]["profiles"].size() == 1);
  CHECK(state["profiles"]["profiles"][0]["name"] == "Default");
  CHECK(state["profiles"]["profiles"][0]["is_current"] == true);
  CHECK(m::test::file_mode(data.file("profiles/Default.json")) == 0600);
#else
  // Without the capability: the empty list, as when the profiles folder cannot be read.
  CHECK(state["profiles"]["profiles"].empty());
#endif
}

TEST_CASE_FIXTURE(system_fixture,
                  "the capability table subscribes the mixer, the macros, the toast actor, the "
                  "plugin bridge and MQTT") {
  const auto hub = running.dir.get<m::hub_actor>();
  // The table's subscriptions were sent before this one: once this one gets an event, the hub
  // has handled them all.
  caf::scoped_actor probe{actors.sys};
  probe->send(hub, caf::subscribe_atom_v, caf::actor{probe}, m::kinds_of<m::profile_change>());
  probe->send(hub, caf::publish_atom_v, m::event{m::profile_change{"sync"}});
  CHECK(as<m::profile_change>(next_event(probe)).profile == "sync");

  const auto& subscribers = m::test::state_of<m::hub_state>(hub).subscribers;
  auto topics_of = [&](const caf::actor& who) -> std::optional<m::event_kind_set> {
    for (const auto& s : subscribers)
      if (s.who == who) return s.kinds;
    return std::nullopt;
  };
  // One per row that receives events, and the probe.
  const auto receiving = std::count_if(m::capability_table().begin(), m::capability_table().end(),
                                       [](const m::capability* row) { return row->subscriptions; });
  CHECK(subscribers.size() == static_cast<std::size_t>(receiving) + 1);
  CHECK(topics_of(caf::actor_cast<caf::actor>(running.dir.get<m::mixer_actor>())) ==
        m::mixer_subscriptions());
  CHECK(topics_of(caf::actor_cast<caf::actor>(running.dir.get<m::toast_actor>())) ==
        m::toast_subscriptions());
#if MIXERD_WITH_MACROS
  CHECK(topics_of(caf::actor_cast<caf::actor>(running.dir.get<m::macros_actor>())) ==
        m::macros_subscriptions());
#endif
#if MIXERD_WITH_PLUGINS
  CHECK(topics_of(caf::actor_cast<caf::actor>(running.dir.get<m::plugins_actor>())) ==
        m::plugins_subscriptions());
#endif
#if MIXERD_WITH_MQTT
  CHECK(topics_of(caf::actor_cast<caf::actor>(running.dir.get<m::mqtt_actor>())) ==
        m::mqtt_subscriptions());
#endif
}

TEST_CASE_FIXTURE(system_fixture, "device input published on the hub reaches the mixer's view") {
  const auto hub = running.dir.get<m::hub_actor>();
  caf::anon_send(hub, caf::publish_atom_v,
                 m::event{m::device_input{m::protocol::dev_slider{2, 77}}});
  CHECK(m::test::eventually(
      [&] { return running.dir.view<m::mixer_view>()->mix.sliders[2].value == 77; }));
}

TEST_CASE_FIXTURE(system_fixture, "shutdown stops every capability") {
  std::vector<caf::actor> all;
  for (const auto& phase : running.phases)
    all.insert(all.end(), phase.begin(), phase.end());
  const auto spawned = std::count_if(m::capability_table().begin(), m::capability_table().end(),
                                     [](const m::capability* row) { return row->spawn; });
  CHECK(all.size() == static_cast<std::size_t>(spawned));
  caf::scoped_actor watcher{actors.sys};
  for (const auto& a : all)
    watcher->monitor(a);
  m::shutdown_actors(actors.sys, running, {});
  stopped = true;
  for (std::size_t i = 0; i < all.size(); ++i)
    CHECK(m::test::receive_within(watcher, [](const caf::down_msg&) {}));
}
