// The macro capability (docs/api.md, "Macros"): 4 pages of 9 macro slots, the page names and the
// current page; the kinds of macro and the validation of each; the messages of the macro actor.
// A macro is kept as its validated JSON object (the layout settings.json and the API use), so
// that every field of every kind, including a plugin type's own fields, survives a round trip;
// its kind is parsed once. Pure: no I/O.
#pragma once

#include <array>
#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/device.hpp"
#include "protocol/events.hpp"
#include "protocol/http_targets.hpp"
#include "protocol/limits.hpp"
#include "protocol/mixer.hpp"
#include "protocol/settings.hpp"
#include "protocol/snapshot.hpp"

namespace mixerd {

// ---- Events (protocol/events.hpp) ---------------------------------------------------------

// A macro ran (device button or API trigger); `error` only when not ok.
struct macro_executed {
  static constexpr std::string_view wire_name = "macro_executed";
  static constexpr bool for_clients = true;
  int page = 0;   // 0-3
  int index = 0;  // 0-8
  std::string name;
  bool ok = true;
  std::string error;
  nlohmann::json to_json() const;
};
struct macro_page_change {
  static constexpr std::string_view wire_name = "macro_page_change";
  static constexpr bool for_clients = true;
  int page = 0;  // 0-3
  nlohmann::json to_json() const;
};
// The whole Macro page set after any change: an edit, a rename, a profile load, a reload
// (encoded by the macro actor). An edit or a rename also publishes the smaller event below that
// carries only it, and names it here: clients that read that one are not sent this
// (protocol/events.hpp, replaced_by).
struct macros_change {
  static constexpr std::string_view wire_name = "macros_change";
  static constexpr bool for_clients = true;
  nlohmann::json set;
  std::string_view replaced_by_event{};  // a wire name below, or empty (a load, a reload)
  nlohmann::json to_json() const;
  std::string_view replaced_by() const { return replaced_by_event; }
};
// One slot after an edit (PUT or DELETE): {"page", "index", "macro"}.
struct macro_change {
  static constexpr std::string_view wire_name = "macro_change";
  static constexpr bool for_clients = true;
  int page = 0;   // 0-3
  int index = 0;  // 0-8
  nlohmann::json macro;
  nlohmann::json to_json() const;
};
// A page's new name: {"page", "name"}.
struct macro_page_name_change {
  static constexpr std::string_view wire_name = "macro_page_name_change";
  static constexpr bool for_clients = true;
  int page = 0;  // 0-3
  std::string name;
  nlohmann::json to_json() const;
};

// One slot. `fields` is the whole validated object: "type", "name", "icon" and the kind's own
// fields (a sequence's "steps" hold validated step objects, a delay step being
// {"type": "delay", "ms": n}).
struct macro {
  nlohmann::json fields = {{"type", "none"}, {"name", ""}, {"icon", ""}};
  std::string type() const;  // its kind: "none" for an empty slot
  std::string name() const;  // "" when absent
  std::string icon() const;
  bool empty() const { return type() == "none"; }
};

using macro_page = std::array<macro, limits::macro_count>;

// The Macro page set: what settings.json keeps under "macros" and GET /api/macros shows.
struct macro_pages {
  int current_page = 0;                                          // 0-3
  std::array<std::string, limits::macro_page_count> page_names;  // default "Page 1".."Page 4"
  std::array<macro_page, limits::macro_page_count> pages;
};

// ---- Requests to the macro actor ---------------------------------------------------------------
// -> macro_trigger_outcome. Runs slot `index` of `page` (nullopt: the current page), as the
// device's button does.
struct macro_trigger {
  std::optional<int> page;  // 0-3
  int index = 0;            // 0-8
  int depth = 0;            // command_origin::depth of the request: a run asked by a run
  // The button's edge: `click` runs the macro once (an API trigger without phase), `press` and
  // `release` are the button going down and up (MACRO,<i>,PRESS / RELEASE, or the API's phase):
  // a hold kind holds from its press to its release; any other kind runs on its press.
  enum class phase { click, press, release };
  phase edge = phase::click;
  // From the device's buttons: the hold ends when the link is lost. Any other hold ends on its
  // release or when no press renewed it for macros::api_hold_lease.
  bool from_device = false;
};
struct macro_trigger_outcome {
  // too_deep: asked through a chain of more than macros::max_run_depth runs; too_often: past the
  // slot's or the daemon's run budget (macros::slot_runs, macros::daemon_runs); needs_phase: a
  // hold kind asked without phase. A press of a slot already held renews the hold (started).
  enum class result { started, empty, running, too_deep, too_often, needs_phase };
  result what = result::started;
  int page = 0;  // the page it ran on (resolved when the request named none)
  std::string name;
  int retry_after = 0;  // too_often: whole seconds until the budget has room
};
// -> macro_edit_outcome. A validated macro into a slot; an empty one (type none) empties it.
struct macro_edit {
  int page = 0;
  int index = 0;
  macro value;
  // From the HTTP API: a command macro in the slot is not written over (only settings.json may
  // hold one); the reply is then that command macro, unchanged. Deleting (kind none) always works.
  bool keep_command = false;
};
struct macro_edit_outcome {
  // kept_command: see macro_edit; set_too_large: the page set's macros would take more than
  // macros::max_set_bytes (the slot is unchanged).
  enum class result { stored, kept_command, set_too_large };
  result what = result::stored;
  macro stored;               // the slot as it is now
  std::size_t set_bytes = 0;  // set_too_large: what the set's macros would have taken
};
// -> std::string (the name as stored). Renames page `page`.
struct macro_page_rename {
  int page = 0;
  std::string name;
};
// -> bool. A profile's macros replace the pages and page names (the current page stays).
struct macro_replace {
  std::array<std::string, limits::macro_page_count> page_names;
  std::array<macro_page, limits::macro_page_count> pages;
};

// An executor -> the macro actor (internal to the capability): the outcome of step `step` of run
// `run` (a single macro is a run of one step). Reports of a run that has ended or of a step that is
// not the current one are dropped (a late answer after a time limit).
struct macro_step_done {
  std::uint64_t run = 0;
  std::size_t step = 0;
  bool ok = false;
  std::string error;  // when not ok: a sentence for macro_executed
};

// The macro actor to itself: the lease of a hold from the API (not the device) may have run out.
// `lease` names the press that armed it; a later press or the release makes it stale.
struct macro_hold_lapsed {
  int page = 0;
  int index = 0;
  std::uint64_t lease = 0;
};

// What the macro actor publishes after every change (GET /api/macros, /api/macros/pages,
// initial_state). The body of GET /api/macros is encoded on its first read.
struct macros_view {
  macro_pages set;
  encoded_once body;
  // Setting http_macro_allow: where http macros may go on this machine (protocol/http_targets).
  std::vector<http_targets::allow_entry> http_allow;
};

// The events (hub subscriptions) of the macro actor: device input (MACRO,<i>,PRESS / RELEASE and
// MPAGE,<p>), device connects (it pushes MPAGE and the 9 MACRO lines of the current page) and
// disconnects (the holds of the device's buttons end).
inline event_kind_set macros_subscriptions() {
  return kinds_of<device_input, device_status>();
}

using macros_actor = caf::typed_actor<caf::replies_to<macro_trigger>::with<macro_trigger_outcome>,
                                      caf::replies_to<macro_edit>::with<macro_edit_outcome>,
                                      caf::replies_to<macro_page_rename>::with<std::string>,
                                      caf::replies_to<macro_replace>::with<bool>,
                                      caf::reacts_to<event>, caf::reacts_to<settings_reloaded>>;

namespace macros {

// Where a macro comes from. Only settings.json may hold a `command` macro: the HTTP API may not
// create one, write over one or put one inside a sequence.
enum class origin { settings, api };

// Bounds of a macro (protocol/README.md, "Macros").
inline constexpr std::size_t max_name_bytes = 64;
inline constexpr std::size_t max_icon_bytes = 64;
// A macro as stored, in compact JSON (macro_bytes), and the 36 macros of a page set together
// (set_bytes). Each edit sent the whole set to every client: 36 macros near the 64 KiB body
// limit made 2.3 MB a message. One http step with its largest body (16 KiB) fits a macro twice;
// the set allows 32 such macros.
inline constexpr std::size_t max_macro_bytes = 32 * 1024;
inline constexpr std::size_t max_set_bytes = 1024 * 1024;
inline constexpr std::size_t max_page_name_chars = 32;
inline constexpr std::size_t max_sequence_steps = 32;
inline constexpr int max_delay_ms = 60000;
inline constexpr std::size_t max_argv = 64;
inline constexpr std::size_t max_argv_bytes = 4096;  // each
inline constexpr std::size_t max_url_bytes = 2048;
inline constexpr std::size_t max_http_body_bytes = 16 * 1024;
inline constexpr std::size_t max_http_headers = 32;
inline constexpr auto command_timeout = std::chrono::seconds(30);
inline constexpr auto http_timeout = std::chrono::seconds(5);
// What an http macro reads of an answer: more closes the connection and fails the step.
inline constexpr std::size_t max_http_answer_bytes = 1024 * 1024;
inline constexpr std::size_t max_http_answer_header_bytes = 16 * 1024;
// http macro requests in flight at once across the daemon; one more fails at once.
inline constexpr std::size_t max_http_in_flight = 8;
// A run asked by a run asked by ... : past this depth it is refused (508).
inline constexpr int max_run_depth = 4;
// Run budgets (429 past them): per slot, and for the whole daemon.
struct run_budget {
  std::size_t runs;
  std::chrono::seconds window;
};
inline constexpr run_budget slot_runs{10, std::chrono::seconds(2)};
inline constexpr run_budget daemon_runs{20, std::chrono::seconds(1)};
// A hold through the API ends by itself when no press renewed it for this long: a client that
// vanished while holding (a closed laptop, a lost network) cannot leave a mute held. The web
// page renews every 3 s while the button is held.
inline constexpr auto api_hold_lease = std::chrono::seconds(10);

// Validates one Macro object. On error fills `error` with a sentence naming the field (prefixed
// with `where`, e.g. "steps[2].key must be ...") and, for a command from the API, sets
// `forbidden` (a 403, not a 400).
std::optional<macro> parse_macro(const nlohmann::json& j, origin from, std::string& error,
                                 bool* forbidden = nullptr);

// The default set: 4 pages of empty slots named "Page 1".."Page 4", page 0 current.
macro_pages default_pages();

// Reads settings.json's "macros" (already validated; an absent or odd key gives the default).
macro_pages pages_from_settings(const nlohmann::json& settings);
// Validates settings.json's "macros" value: fills `key` (e.g. "macros.pages.1[4].argv") and
// `error` for the first problem.
bool validate_settings(const nlohmann::json& macros, std::string& key, std::string& error);

// Validates a page set of a profile ("macros": {"page_names", "pages"}; "current_page" ignored).
// Command macros are allowed (profiles are files on the machine, like settings.json).
std::optional<macro_replace> parse_profile_macros(const nlohmann::json& j, std::string& error);

// The size of a macro in compact JSON, and of all the macros of pages (their sum).
std::size_t macro_bytes(const macro& m);
std::size_t set_bytes(const std::array<macro_page, limits::macro_page_count>& pages);

// JSON layouts.
nlohmann::json to_json(const macro_pages& set);                 // the Macro page set
nlohmann::json pages_to_json(const macro_pages& set);           // GET /api/macros/pages
nlohmann::json profile_macros_to_json(const macro_pages& set);  // {"page_names", "pages"}

}  // namespace macros

namespace settings_schema {
struct part;
}  // namespace settings_schema

// Its key of settings.json: macros (the Macro page set).
settings_schema::part macros_settings();

}  // namespace mixerd

// The macros capability's CAF type-ID block, chained after the mixer block (docs/architecture.md,
// "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_trigger)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_trigger_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_edit)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_edit_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_page_rename)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_replace)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_step_done)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::macro_hold_lapsed)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_macros, caf::id_block::mixerd_mixer::end)
CAF_ADD_TYPE_ID(mixerd_macros, (mixerd::macro_trigger))
CAF_ADD_TYPE_ID(mixerd_macros, (mixerd::macro_trigger_outcome))
CAF_ADD_TYPE_ID(mixerd_macros, (mixerd::macro_edit))
CAF_ADD_TYPE_ID(mixerd_macros, (mixerd::macro))
CAF_ADD_TYPE_ID(mixerd_macros, (mixerd::macro_page_rename))
CAF_ADD_TYPE_ID(mixerd_macros, (mixerd::macro_replace))
CAF_ADD_TYPE_ID(mixerd_macros, (mixerd::macro_step_done))
CAF_ADD_TYPE_ID(mixerd_macros, (mixerd::macro_edit_outcome))
CAF_ADD_TYPE_ID(mixerd_macros, (mixerd::macro_hold_lapsed))
CAF_END_TYPE_ID_BLOCK(mixerd_macros)
