// The toast actor owns the notification interface's state: the API key (`toast_api_key`,
// checked in constant time, replaced by regenerate), the per-address rate limit of every request
// to the interface, the handlers' switches (`toast_handlers` in settings), the toast on screen
// (one at a time: a newer one replaces it) and a short history. Toasts reach the device as
// TOAST lines; the system handler turns device connects and disconnects into toasts.
// The handler switches are published as a toast_view. Interface: protocol/toast.hpp.
#pragma once

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <chrono>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "actors/support/capability.hpp"
#include "protocol/device.hpp"
#include "protocol/limits.hpp"
#include "protocol/rate_limit.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"
#include "protocol/toast.hpp"

namespace mixerd {

struct toast_wiring {
  device_actor device;
  settings_actor settings;
  // Every handler the capabilities declare (its own first), switched on and loaded as declared.
  toast_handler_list declared = toast::own_handlers();
};

struct toast_state {
  toast_wiring wiring;
  std::shared_ptr<published<toast_view>> view;
  std::string api_key;
  toast_handler_list handlers;
  rate_limiter limiter{limits::toast_rate_max_requests, limits::toast_rate_window,
                       limits::toast_rate_max_addresses};
  std::deque<toast_record> history;  // at most limits::toast_history_size
  // While a shown toast is on screen: when it leaves. Its record is the newest shown one.
  std::optional<std::chrono::steady_clock::time_point> on_screen_until;
  bool was_connected = false;  // the device has been connected before (for "reconnected")
  bool audio_lost = false;     // it was lost and has not come back yet
  static inline const char* name = "toast";
};

// The switches stored under `toast_handlers` ({"<id>": <bool>}) laid over the declared handlers.
toast_handler_list toast_handlers_from_settings(const nlohmann::json& settings,
                                                toast_handler_list declared);

toast_actor::behavior_type toast_behavior(toast_actor::stateful_pointer<toast_state> self,
                                          toast_wiring wiring, nlohmann::json initial_settings,
                                          std::shared_ptr<published<toast_view>> view);

// Its row of the capability table (actors/toast/toast_capability.cpp).
const capability& toast_capability();

}  // namespace mixerd
