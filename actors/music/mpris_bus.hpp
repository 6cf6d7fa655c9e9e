// The session D-Bus connection of the music capability: sd-bus driven from the shared
// io_context (its fd in an Asio descriptor, its timeout in a steady_timer), so that neither the
// music actor nor the io thread ever waits on the bus or on a slow player. An sd_bus object is
// not thread-safe: every sd-bus call happens on the io thread.
//
// It follows the MPRIS players: NameOwnerChanged for players appearing and quitting,
// PropertiesChanged for PlaybackStatus, Metadata and Identity, and at the start ListNames and a
// GetAll of each player's two interfaces. Every call to the bus has a time limit.
//
// Messages sent to `owner`, each tagged with the owner's generation (protocol/music.hpp):
//   (opened_atom, uint64_t gen)                     the bus answered ListNames
//   mpris_player_update, mpris_player_gone          a player's properties, a player gone
//   mpris_call_done                                 the outcome of call()
//   (closed_atom, uint64_t gen, std::string reason) the bus could not be reached or was lost;
//       sent exactly once, never after close().
#pragma once

#include <caf/actor.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace boost::asio {
class io_context;
}

namespace mixerd {

struct mpris_bus_options {
  // A D-Bus address ("unix:path=/run/user/1000/bus"); empty: sd-bus's default user bus.
  std::string address;
  // Limit of every method call.
  std::chrono::milliseconds call_timeout{2000};
  // Limit of the connection's start: connected, authenticated and ListNames answered. sd-bus's
  // own limit for the authentication is much longer; a bus that accepts and stays silent would
  // hold the attempt that long.
  std::chrono::milliseconds open_timeout{5000};
};

class mpris_bus {
 public:
  virtual ~mpris_bus() = default;
  // Calls `method` (no arguments) of org.mpris.MediaPlayer2.Player on the player with bus name
  // `player`; the outcome comes back as mpris_call_done{gen, id, ...} (any thread).
  virtual void call(std::uint64_t id, std::string player, std::string method) = 0;
  // Closes the connection; no further messages reach the owner (any thread).
  virtual void close() = 0;
};

// Starts connecting on the io thread and returns at once.
std::shared_ptr<mpris_bus> open_mpris_bus(boost::asio::io_context& io, mpris_bus_options options,
                                          caf::actor owner, std::uint64_t generation);

}  // namespace mixerd
