// The mdns actor advertises the controller on the local network through the Avahi daemon
// (interface: protocol/mdns.hpp). Avahi's client library runs its own poll thread; its callbacks
// only tell this actor that something changed, and the actor makes every Avahi call itself,
// holding that thread's lock. It runs detached: an Avahi call is a D-Bus round trip, which must
// never hold up the worker that carries slider events.
//
// Without an Avahi daemon (or a system bus) it logs one info line and waits: the client is made
// with AVAHI_CLIENT_NO_FAIL, so the services are registered once the daemon appears, and again
// after the daemon restarted (the client fails with "disconnected"; a new one waits for the
// daemon). A name taken on the network gets Avahi's alternative ("mixerd on pi #2").
#pragma once

#include <caf/stateful_actor.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "actors/support/capability.hpp"
#include "protocol/mdns.hpp"
#include "protocol/settings.hpp"

struct AvahiThreadedPoll;
struct AvahiClient;
struct AvahiEntryGroup;

namespace mixerd {

using mdns_impl = mdns_actor;

struct mdns_state {
  bool enabled = true;
  std::string host_name;
  std::string instance;  // the instance name, Avahi's alternative after a collision
  std::optional<mdns_listening> where;
  bool told_absent = false;  // the "no Avahi daemon" line was logged
  bool told_published = false;
  AvahiThreadedPoll* poll = nullptr;
  AvahiClient* client = nullptr;
  AvahiEntryGroup* group = nullptr;
  caf::actor* self_handle = nullptr;  // the callbacks' userdata: where they send
  static inline const char* name = "mdns";

  ~mdns_state();
  // Frees the client (withdrawing the services) and stops Avahi's thread.
  void close();
};

mdns_impl::behavior_type mdns_behavior(mdns_impl::stateful_pointer<mdns_state> self,
                                       settings_actor settings, nlohmann::json initial_settings,
                                       std::string host_name);

// Its row of the capability table (actors/mdns/mdns_capability.cpp).
const capability& mdns_capability();

}  // namespace mixerd
