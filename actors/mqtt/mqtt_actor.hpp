// The MQTT actor mirrors mixerd on an MQTT broker for Home Assistant (docs/mqtt.md,
// protocol/README.md "MQTT"): it publishes the discovery configs and the retained states under
// mixerd/<node_id>/, keeps them current from the hub's events, and turns the commands on this
// node's command topics into the same requests the REST routes send (unless mqtt.commands is
// false: then it publishes only). Availability: `online` (retained) after each connect,
// `offline` as the last will and before a clean stop. Home Assistant's birth messages get the
// discovery again, at most once per mqtt::birth_interval (the timer: tick_atom).
//
// The broker connection is an mqtt_client (its own thread; reconnects with back-off). States
// are published only while connected (all of them again after each connect), so the outgoing
// queue holds at most one connection's worth, and the client caps it. SIGHUP: new settings
// reconnect (the old node goes offline first). Interface: protocol/mqtt.hpp.
#pragma once

#include <array>
#include <caf/stateful_actor.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/mqtt/mqtt_client.hpp"
#include "actors/support/capability.hpp"
#include "protocol/atoms.hpp"
#include "protocol/device.hpp"
#include "protocol/hub.hpp"
#include "protocol/macros.hpp"
#include "protocol/mixer.hpp"
#include "protocol/mqtt.hpp"
#include "protocol/profiles.hpp"
#include "protocol/rate_limit.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"

namespace mixerd {

struct mqtt_wiring {
  settings_actor settings;  // may be invalid in tests: no reloads
  // The command messages run through it (null in tests that send none).
  const command_runner* commands = nullptr;
  std::shared_ptr<const published<mixer_view>> mixer_source;
  std::shared_ptr<const published<macros_view>> macros_source;
  std::shared_ptr<const published<profiles_view>> profiles_source;
  std::shared_ptr<const published<device_view>> device_source;
  std::string host_name;  // the default node_id
  // The capabilities' sensors (directory::readings); null in tests without any.
  const directory* sensors = nullptr;
  // Connects to the broker only on ready_atom (the daemon: once its listeners answer); false in
  // tests, which connect at once.
  bool wait_for_ready = false;
  // Where the broker link's facts go (status_facts, initial_state); null/invalid in tests.
  hub_actor hub;
  std::shared_ptr<published<mqtt_link_view>> link;
};

struct mqtt_state {
  mqtt_wiring wiring;
  mqtt::settings config;
  std::unique_ptr<mqtt_client> client;
  std::uint64_t gen = 0;  // of the current client: messages of an older one are ignored
  bool connected = false;
  bool down_reported = false;           // the outage has been logged once
  std::vector<status_fact> link_facts;  // as last published (status_facts, source "mqtt")
  mqtt::link_state link = mqtt::link_state::off;
  bool resync = false;  // a state could not be queued: everything again once drained
  // What the broker holds for the entities that change: the macro slots of the current page
  // (nullopt: no config, the slot is empty), the profile options and the slider names.
  macro_pages pages;
  std::array<std::optional<std::string>, limits::macro_count> macro_names;
  std::vector<std::string> profile_options;
  std::array<std::string, limits::slider_count> slider_names;
  // The sensors announced, with the state last sent ("" before the first).
  std::map<std::string, std::string> sensor_states;
  int sweeps_since_sensors = 0;
  // Home Assistant's births: at most one full publication per window (mqtt::birth_coalescer).
  mqtt::birth_coalescer births;
  rate_limiter complaints{10, std::chrono::seconds(60), 1};
  std::uint64_t complaints_suppressed = 0;
  ~mqtt_state();
  static inline const char* name = "mqtt";
};

using mqtt_impl =
    mqtt_actor::extend<caf::reacts_to<ready_atom>,
                       caf::reacts_to<opened_atom, std::uint64_t, std::int32_t>,
                       caf::reacts_to<closed_atom, std::uint64_t, std::string, std::int32_t>,
                       caf::reacts_to<line_atom, std::uint64_t, std::string, std::string, bool>,
                       caf::reacts_to<sweep_atom>, caf::reacts_to<caf::tick_atom>>;

// `config` from mqtt::settings_from at start-up (validated there).
mqtt_impl::behavior_type mqtt_behavior(mqtt_impl::stateful_pointer<mqtt_state> self,
                                       mqtt_wiring wiring, mqtt::settings config);

// Its row of the capability table (actors/mqtt/mqtt_capability.cpp).
const capability& mqtt_capability();

}  // namespace mixerd
