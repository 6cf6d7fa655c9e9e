// The music actor owns the MPRIS side of mixerd: the session D-Bus connection (mpris_bus.hpp,
// on the io thread), the players it reports, which one is active (contract: the one that most
// recently started playing, else the first found), and the `media` macro kind's commands. It
// publishes a music_view after every change (GET /api/music, initial_state.music, and the
// plugins' get_music_state of issue 13), the event music_change when the active player's state
// changes, and a `music` toast on a track change. No bus, or a bus lost: connected false, and a
// new attempt after 1 s, doubling to 30 s. Interface: protocol/music.hpp; decisions:
// protocol/README.md, "Music".
#pragma once

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_response_promise.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "actors/music/mpris_bus.hpp"
#include "actors/support/back_off.hpp"
#include "actors/support/capability.hpp"
#include "protocol/atoms.hpp"
#include "protocol/hub.hpp"
#include "protocol/music.hpp"
#include "protocol/snapshot.hpp"
#include "protocol/toast.hpp"

namespace boost::asio {
class io_context;
}

namespace mixerd {

struct music_wiring {
  boost::asio::io_context* io = nullptr;
  hub_actor hub;
  toast_actor toast;
  mpris_bus_options bus;  // where the session bus is, the calls' time limit
  // Connects to the bus only on ready_atom (the daemon: once its listeners answer); false in
  // tests, which connect at once.
  bool wait_for_ready = false;
};

struct music_state {
  music_wiring wiring;
  std::shared_ptr<published<music_view>> view;
  std::shared_ptr<mpris_bus> bus;  // the current connection (attempt); null between attempts
  std::uint64_t gen = 0;           // of `bus`; messages of older connections are dropped
  bool connected = false;
  back_off retry{std::chrono::seconds(1), std::chrono::seconds(30)};
  std::string last_failure;  // logged once until it changes or the bus comes back
  std::map<std::string, music::player> players;
  std::uint64_t order = 0;             // found and started stamps
  std::optional<now_playing> active;   // as last published
  std::optional<now_playing> counted;  // the state of the last track change counted
  std::uint64_t settling = 0;          // track changes seen (each settles before it counts)
  std::uint64_t track_changes = 0;
  std::map<std::uint64_t, caf::typed_response_promise<media_outcome>> commands;
  std::uint64_t last_command = 0;
  ~music_state() {
    if (bus) bus->close();
  }
  static inline const char* name = "music";
};

// The music actor's full interface: its public one and its bus connection's reports.
using music_impl =
    music_actor::extend<caf::reacts_to<ready_atom>, caf::reacts_to<opened_atom, std::uint64_t>,
                        caf::reacts_to<closed_atom, std::uint64_t, std::string>,
                        caf::reacts_to<retry_atom, std::uint64_t>,
                        caf::reacts_to<recheck_atom, std::uint64_t>,
                        caf::reacts_to<mpris_player_update>, caf::reacts_to<mpris_player_gone>,
                        caf::reacts_to<mpris_call_done>>;

// The bus options from the environment: $DBUS_SESSION_BUS_ADDRESS, else sd-bus's default.
mpris_bus_options music_bus_from_environment();

music_impl::behavior_type music_behavior(music_impl::stateful_pointer<music_state> self,
                                         music_wiring wiring,
                                         std::shared_ptr<published<music_view>> view);

// Its row of the capability table (actors/music/music_capability.cpp).
const capability& music_capability();

}  // namespace mixerd
