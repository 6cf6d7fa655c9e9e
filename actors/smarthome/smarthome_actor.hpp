// The smart-home actor owns the one connection to Home Assistant's WebSocket API (docs/api.md,
// "Smart home"; protocol/README.md, "Smart home"): it authenticates with the long-lived token,
// loads the states, follows state_changed and makes the service calls the API and the macros
// ask for. `connected` means authenticated with the states loaded; a lost connection is retried
// after 1 s, doubling to 30 s. Every call has a time limit (smarthome::call_timeout) and the
// calls waiting are bounded, so an absent, slow or silent Home Assistant never holds anyone up.
// A changed `smarthome` setting on reload (SIGHUP) reconnects. The token is sent to Home
// Assistant only: never logged, never in a view.
// Interface: protocol/smarthome.hpp. After every change it publishes a smarthome_view.
#pragma once

#include <caf/stateful_actor.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "actors/support/back_off.hpp"
#include "actors/support/capability.hpp"
#include "actors/support/websocket_client.hpp"
#include "protocol/atoms.hpp"
#include "protocol/hub.hpp"
#include "protocol/settings.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/snapshot.hpp"
#include "protocol/toast.hpp"

namespace boost::asio {
class io_context;
}

namespace mixerd {

struct smarthome_wiring {
  boost::asio::io_context* io = nullptr;  // the WebSocket runs there; null: never connects
  hub_actor hub;
  settings_actor settings;  // watched for reloads; may be invalid in tests
  toast_actor toast;        // a toggle's result becomes a toast; may be invalid
};

// A service call waiting for Home Assistant.
struct smarthome_pending {
  smarthome_command command;
  caf::typed_response_promise<smarthome_outcome> answer;
  // A toggle is answered by the entity's next state_changed to another state than this one.
  bool wants_new_state = false;
  std::string state_before;
};

struct smarthome_state {
  smarthome_wiring wiring;
  std::optional<smarthome::settings> config;  // nullopt: not configured
  std::shared_ptr<published<smarthome_view>> view;
  std::shared_ptr<websocket_client> link;  // null between connections
  std::uint64_t generation = 0;            // of the link; older links' messages are dropped
  bool connected = false;                  // authenticated and states loaded
  bool authenticated = false;
  bool subscribed = false;
  bool states_loaded = false;
  // Message ids grow over the whole life of the actor (Home Assistant wants them increasing per
  // connection), so a time limit never matches a call of a later connection.
  std::int64_t next_id = 1;
  std::int64_t subscribe_id = 0;
  std::int64_t states_id = 0;
  bool ping_unanswered = false;
  back_off retry{smarthome::first_retry, smarthome::max_retry};
  std::vector<smarthome_device> devices;  // listed ones: `entities` order, else by entity id
  std::map<std::int64_t, smarthome_pending> pending;  // at most smarthome::max_pending_calls
  static inline const char* name = "smarthome";
  ~smarthome_state();
};

// The actor's full interface: its public one and its link's, its timers' messages.
using smarthome_impl = smarthome_actor::extend<
    caf::reacts_to<opened_atom, std::uint64_t>,
    caf::reacts_to<line_atom, std::uint64_t, std::string>,
    caf::reacts_to<closed_atom, std::uint64_t, std::string, std::int32_t>,
    caf::reacts_to<retry_atom, std::uint64_t>, caf::reacts_to<recheck_atom, std::uint64_t>,
    caf::reacts_to<keepalive_atom, std::uint64_t>, caf::reacts_to<caf::timeout_atom, std::int64_t>>;

smarthome_impl::behavior_type smarthome_behavior(
    smarthome_impl::stateful_pointer<smarthome_state> self, smarthome_wiring wiring,
    nlohmann::json settings, std::shared_ptr<published<smarthome_view>> view);

// Its row of the capability table (actors/smarthome/smarthome_capability.cpp).
const capability& smarthome_capability();

}  // namespace mixerd
