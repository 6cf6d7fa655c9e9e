// The macro actor owns the Macro page set (4 pages of 9 slots, the page names, the current
// page) and the macros that are running. A device button (MACRO,<i>,PRESS) or the API's trigger
// starts a slot; its executors (macro_executors.hpp) act and report each step back here, and the
// outcome goes out as macro_executed and a log line. It keeps the device's 9 buttons in step
// (MPAGE and MACRO lines on connect, on a page change and on an edit of the visible page),
// persists every change through the settings actor and publishes a macros_view after each one.
// Interface: protocol/macros.hpp; decisions: protocol/README.md, "Macros".
#pragma once

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "actors/support/capability.hpp"
#include "actors/support/http_client.hpp"
#include "protocol/device.hpp"
#include "protocol/hub.hpp"
#include "protocol/macro_kinds.hpp"
#include "protocol/macros.hpp"
#include "protocol/mixer.hpp"
#include "protocol/rate_limit.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"

namespace boost::asio {
class io_context;
}

namespace mixerd {

struct macros_wiring {
  device_actor device;
  hub_actor hub;
  settings_actor settings;
  boost::asio::io_context* io = nullptr;  // command macros run their program from there
  // The kinds that act on other capabilities run their commands through it (null: those fail,
  // "not available").
  const command_runner* commands = nullptr;
  // The commands asked before a macro runs, each of which may handle it itself (the plugins'
  // on_macro_execute).
  std::vector<std::string> interceptors;
  http_client* http = nullptr;  // http macros send their requests through it (null: they fail)
  // The ports of mixerd's own listeners, which http macros may never call.
  std::shared_ptr<const published<http_targets::own_listeners>> own_listeners;
};

// One slot being run: a single macro is one step, a sequence one step per entry.
struct macro_run {
  int page = 0;
  int index = 0;
  std::string name;
  int depth = 0;  // macro_trigger::depth: its steps ask at depth + 1
  bool sequence = false;
  std::vector<nlohmann::json> steps;  // validated step objects, copied at the start
  std::size_t next = 0;               // the step running now
  bool asking = false;                // an interceptor has not answered yet: nothing runs
};

// A slot whose hold kind (hold_mute, hold_unmute) is held: from its press until its release
// (actors/macros/macro_holds.hpp).
struct macro_hold {
  nlohmann::json fields;     // the macro as pressed: an edit meanwhile does not change the release
  bool from_device = false;  // a device button: released when the link is lost
  std::uint64_t run = 0;     // the press's run while it goes on (0: it ended)
  bool release_due = false;  // released while the press still ran: sent once the run ends
  std::uint64_t lease = 0;   // the API press that armed the lease (macro_hold_lapsed)
};

struct macros_state {
  macro_pages set;
  macros_wiring wiring;
  std::shared_ptr<published<macros_view>> view;
  // At most one run per slot (36 in all): a slot still running is not started again.
  std::map<std::uint64_t, macro_run> runs;
  std::uint64_t last_run = 0;
  // The held slots, by (page, index).
  std::map<std::pair<int, int>, macro_hold> holds;
  std::uint64_t last_lease = 0;
  // Setting http_macro_allow, as read at start-up and on every reload.
  std::vector<http_targets::allow_entry> http_allow;
  // The run budgets: per slot ("page:index") and for the daemon ("all").
  rate_limiter slot_budget{macros::slot_runs.runs, macros::slot_runs.window,
                           limits::macro_page_count* limits::macro_count};
  rate_limiter daemon_budget{macros::daemon_runs.runs, macros::daemon_runs.window, 1};
  // Each refusal is logged once per minute per slot and reason.
  rate_limiter refusals_logged{1, std::chrono::minutes(1), 128};
  static inline const char* name = "macros";
};

// The macro actor's full interface: its public one, its executors' reports and its holds' leases.
using macros_impl =
    macros_actor::extend<caf::reacts_to<macro_step_done>, caf::reacts_to<macro_hold_lapsed>>;

// The published view of a page set.
macros_view macros_view_of(const macro_pages& set,
                           std::vector<http_targets::allow_entry> allow = {});

macros_impl::behavior_type macros_behavior(macros_impl::stateful_pointer<macros_state> self,
                                           macros_wiring wiring, nlohmann::json settings,
                                           std::shared_ptr<published<macros_view>> view);

// Its row of the capability table (actors/macros/macros_capability.cpp).
const capability& macros_capability();

}  // namespace mixerd
