// The notification interface's domain (docs/api.md, "Notification API"): a toast and the
// validation of a send request, the toast handlers (sources of toasts), where a request carries
// its API key, and the messages of the toast actor. Pure: no I/O.
#pragma once

#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/atoms.hpp"
#include "protocol/audio.hpp"
#include "protocol/auth.hpp"
#include "protocol/device.hpp"
#include "protocol/device_codec.hpp"
#include "protocol/events.hpp"
#include "protocol/limits.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"

namespace mixerd {

// A validated toast, as the device shows it.
struct toast_content {
  std::string message;  // 1-30 characters
  std::string icon = "bell";
  std::string subtitle;  // 0-40 characters
  int duration_ms = limits::toast_duration_default;
  std::string color;  // "RRGGBB" (upper case, no '#'); empty = the handler's colour
};

// A source of toasts (docs/api.md, "Handlers").
struct toast_handler {
  std::string id;
  std::string name;
  std::string color;  // "#RRGGBB"
  bool enabled = true;
  bool loaded = false;  // its integration exists and runs
};
using toast_handler_list = std::vector<toast_handler>;

// ---- Messages of the toast actor --------------------------------------------------------------
// -> toast_admission. Counts the request against its address (rate limit), then checks the key
// when the route needs one.
struct toast_admit {
  std::string address;
  std::string api_key;  // as sent; empty when none
  bool needs_key = true;
};
struct toast_admission {
  enum class verdict { ok, rate_limited, unauthorized };
  verdict what = verdict::ok;
  int retry_after = 0;  // rate_limited: seconds until the oldest counted request leaves
};
// -> toast_outcome. A toast of `handler` (the API's own is "api").
struct toast_post {
  std::string handler;
  toast_content toast;
};
struct toast_outcome {
  enum class result { shown, handler_disabled, device_offline, unknown_handler };
  result what = result::shown;
};
// -> void. A toast from an integration (stream, smarthome, music, plugins); no answer.
struct toast_notice {
  std::string handler;
  toast_content toast;
};
// -> toast_switch_result. Persisted.
struct toast_switch {
  std::string id;
  bool enabled = true;
};
struct toast_switch_result {
  bool found = false;
  toast_handler handler;
};
// -> void. An integration started or stopped running (the plugins handler is loaded while a
// plugin runs): the handler list shows it.
struct toast_loaded {
  std::string handler;
  bool loaded = false;
};
// One entry of the toast actor's short history.
struct toast_record {
  std::string handler;
  toast_content toast;
  toast_outcome::result outcome = toast_outcome::result::shown;
  bool replaced = false;  // a newer toast took its place while it was on screen
  std::chrono::system_clock::time_point at;
};
using toast_history = std::vector<toast_record>;  // oldest first

// What the toast actor publishes: the handler switches (GET /api/toast/handlers).
struct toast_view {
  toast_handler_list handlers;
};

// The events (hub subscriptions) of the toast actor: device and audio server connects and
// disconnects become toasts.
inline event_kind_set toast_subscriptions() {
  return kinds_of<device_status, audio_status>();
}

using toast_actor =
    caf::typed_actor<caf::replies_to<toast_admit>::with<toast_admission>,
                     caf::replies_to<toast_post>::with<toast_outcome>, caf::reacts_to<toast_notice>,
                     caf::reacts_to<toast_loaded>,
                     caf::replies_to<caf::get_atom, handlers_atom>::with<toast_handler_list>,
                     caf::replies_to<toast_switch>::with<toast_switch_result>,
                     caf::replies_to<regenerate_atom>::with<std::string>,
                     caf::replies_to<caf::get_atom, history_atom>::with<toast_history>,
                     caf::reacts_to<event>, caf::reacts_to<settings_reloaded>>;

namespace toast {

// The icon names, in the order docs/api.md lists them.
const std::vector<std::string_view>& icon_names();

// Outcomes of a toast for GET /metrics, in the order of toast_outcome::result.
inline constexpr std::array<std::string_view, 4> toast_outcome_names = {
    "shown", "handler_disabled", "device_offline", "unknown_handler"};
// The toasts handled, by outcome (written through its row).
std::array<std::atomic<std::uint64_t>, toast_outcome_names.size()>& toasts_of_process();

// The toast capability's own handlers (api, system), enabled and loaded. Every other capability
// that shows toasts declares its handler in its protocol source, listed by its row.
toast_handler_list own_handlers();

// Validates the body of POST /api/toast/send (docs/api.md): fills `error` with a sentence that
// names the field and the problem, or returns the toast with its defaults applied.
std::optional<toast_content> parse_toast_request(const nlohmann::json& body, std::string& error);

// Unicode characters (code points) of valid UTF-8 text.
std::size_t utf8_length(std::string_view text);

// "#0f0", "0F0", "#00ff00", "00FF00" -> "00FF00"; anything else -> nullopt.
std::optional<std::string> normalize_color(std::string_view text);

// The device line of a toast (escaped, shortened to the line limit).
protocol::cmd_toast to_device_command(const toast_content& toast);

nlohmann::json handler_to_json(const toast_handler& handler);

}  // namespace toast

namespace settings_schema {
struct part;
}  // namespace settings_schema

// Its keys of settings.json: the notification API key, the handler switches.
settings_schema::part toast_settings();

}  // namespace mixerd

// The toast capability's CAF type-ID block, chained after the auth block (docs/architecture.md,
// "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_admit)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_admission)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_post)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_notice)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_handler_list)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_switch)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_switch_result)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_history)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::toast_loaded)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_toast, caf::id_block::mixerd_auth::end)
CAF_ADD_TYPE_ID(mixerd_toast, (mixerd::toast_admit))
CAF_ADD_TYPE_ID(mixerd_toast, (mixerd::toast_admission))
CAF_ADD_TYPE_ID(mixerd_toast, (mixerd::toast_post))
CAF_ADD_TYPE_ID(mixerd_toast, (mixerd::toast_outcome))
CAF_ADD_TYPE_ID(mixerd_toast, (mixerd::toast_notice))
CAF_ADD_TYPE_ID(mixerd_toast, (mixerd::toast_handler_list))
CAF_ADD_TYPE_ID(mixerd_toast, (mixerd::toast_switch))
CAF_ADD_TYPE_ID(mixerd_toast, (mixerd::toast_switch_result))
CAF_ADD_TYPE_ID(mixerd_toast, (mixerd::toast_history))
CAF_ADD_TYPE_ID(mixerd_toast, (mixerd::toast_loaded))
CAF_END_TYPE_ID_BLOCK(mixerd_toast)
