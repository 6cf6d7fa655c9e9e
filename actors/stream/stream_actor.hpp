// The stream actor owns the connection to the streaming software (OBS Studio, obs-websocket 5;
// docs/api.md "Streaming", protocol/README.md "Streaming software"): it identifies with the
// challenge authentication, loads the scene list, the program scene's sources and the stream and
// recording state, follows OBS's events, and switches scenes and sources for the routes and the
// macros. It publishes a stream_view after every change, stream_change and stream_status to the
// hub, and the `stream` handler's toasts.
//
// A lost, refused or silent connection is retried with back-off (1 s doubling to 30 s); every
// request to OBS has a time limit and at most max_pending wait at once, so an absent, slow or
// hostile OBS never holds up the daemon. The password is never logged.
// Interface: protocol/stream.hpp.
#pragma once

#include <caf/stateful_actor.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "actors/support/back_off.hpp"
#include "actors/support/capability.hpp"
#include "actors/support/websocket_client.hpp"
#include "protocol/atoms.hpp"
#include "protocol/hub.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"
#include "protocol/stream.hpp"
#include "protocol/toast.hpp"

namespace boost::asio {
class io_context;
}

namespace mixerd {

struct stream_wiring {
  hub_actor hub;
  toast_actor toast;        // may be invalid in tests: no toasts
  settings_actor settings;  // may be invalid in tests: no reloads
  boost::asio::io_context* io = nullptr;
};

struct stream_state {
  enum class phase { waiting, opening, identifying, loading, ready };
  stream_wiring wiring;
  stream::settings config;
  std::shared_ptr<published<stream_view>> view;
  stream_view now;  // what the view shows once ready
  std::shared_ptr<websocket_client> link;
  std::uint64_t gen = 0;  // of the current connection attempt
  phase at = phase::waiting;
  back_off retry{std::chrono::seconds(1), std::chrono::seconds(30)};
  bool down_reported = false;     // the outage has been logged once
  bool garbage_reported = false;  // an unreadable message of this connection has been logged
  // Requests sent to OBS and waiting for their answer, by requestId.
  std::map<std::string, std::function<void(const stream::response&)>> pending;
  std::uint64_t last_id = 0;
  ~stream_state() {
    if (link) link->close();
  }
  static inline const char* name = "stream";
};

// The stream actor's full interface: its public one and what its connection reports.
using stream_impl =
    stream_actor::extend<caf::reacts_to<opened_atom, std::uint64_t>,
                         caf::reacts_to<line_atom, std::uint64_t, std::string>,
                         caf::reacts_to<closed_atom, std::uint64_t, std::string, std::int32_t>,
                         caf::reacts_to<retry_atom, std::uint64_t>,
                         caf::reacts_to<deadline_atom, std::uint64_t>,
                         caf::reacts_to<deadline_atom, std::uint64_t, std::string>>;

// `config` from stream::settings_from at start-up (validated there).
stream_impl::behavior_type stream_behavior(stream_impl::stateful_pointer<stream_state> self,
                                           stream_wiring wiring, stream::settings config,
                                           std::shared_ptr<published<stream_view>> view);

// Its row of the capability table (actors/stream/stream_capability.cpp).
const capability& stream_capability();

}  // namespace mixerd
