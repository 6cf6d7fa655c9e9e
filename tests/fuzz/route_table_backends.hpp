// The capabilities behind the three listeners' routes, for the http_request target: typed
// stand-ins for the actors the routes ask (each answers like the real one would, the answer
// picked by `scenario` so that every branch of a route is reached) and the views the routes read
// (published to the directory's slots before each input, also picked by `scenario`: login on or
// off, a live, an idle or an unknown session, the device and the audio server up or down...).
// The stand-ins check what the routes ask of them: nothing that the request validation should
// have refused may arrive (an out-of-range index, an unchecked toast, a malformed token...), and
// no message a route has no business sending (reads come from the views, not from the actors).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <caf/all.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "actors/auth/session_table.hpp"
#include "actors/support/directory.hpp"
#include "protocol/macros.hpp"
#include "protocol/music.hpp"
#include "protocol/plants.hpp"
#include "protocol/plugins.hpp"
#include "protocol/profiles.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/stream.hpp"
#include "protocol/toast.hpp"
#include "protocol/validation.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "tests/unit/support/toast_handlers.hpp"

namespace mixerd::fuzz {

using test::every_toast_handler;

// Chosen per input from its hash; read by the stand-ins and `publish_views` (one thread: the
// test coordinator and the io_context both run on the fuzzer's thread).
inline std::uint64_t scenario = 0;

inline unsigned pick(unsigned shift, unsigned choices) {
  return static_cast<unsigned>((scenario >> shift) % choices);
}

// Session ids the views know (the dictionary and the seeds carry them as cookies): one that is
// live unless the scenario let it idle out, one that always has.
inline std::string repeated(std::string_view pair, int times) {
  std::string out;
  for (int i = 0; i < times; ++i)
    out += pair;
  return out;
}
inline const std::string live_session = repeated("ab", 32);
inline const std::string idle_session = repeated("cd", 32);

inline bool in_volume_range(int v) {
  return v >= limits::volume_min && v <= limits::volume_max;
}

// A route sent a message that routes never send: writes go to their actor, reads come from the
// views. (A new route that needs one: give the stand-in a real answer.)
[[noreturn]] inline void not_from_a_route(const char* message) {
  fail(__FILE__, __LINE__, "a route sent a message routes never send", message);
}

inline mixer_actor::behavior_type mixer_backend() {
  return {
      [](caf::get_atom) -> mixer_snapshot { not_from_a_route("mixer get"); },
      [](const set_slider_value& v) {
        FUZZ_CHECK(v.index >= 0 && v.index < limits::slider_count);
        FUZZ_CHECK(in_volume_range(v.value));
        return v.value;
      },
      [](const set_slider_assignment& a) {
        FUZZ_CHECK(a.index >= 0 && a.index < limits::slider_count);
        FUZZ_CHECK(a.assigned.names.size() <= 32);
        FUZZ_CHECK(a.assigned.type == assignment_type::app || a.assigned.names.empty());
        FUZZ_CHECK(a.assigned.type != assignment_type::app || !a.assigned.names.empty());
        for (const auto& name : a.assigned.names)
          FUZZ_CHECK(!name.empty() && name.size() <= 256, name);
        if (a.label) FUZZ_CHECK(a.label->size() <= 64, *a.label);
        return a.assigned;
      },
      [](const toggle_mute& t) {
        FUZZ_CHECK(t.index == protocol::master_index ||
                   (t.index >= 0 && t.index < limits::mute_count));
        return pick(0, 2) == 0;
      },
      [](const set_mute&) -> bool { not_from_a_route("set_mute"); },
      [](const set_master_volume& v) {
        FUZZ_CHECK(in_volume_range(v.volume));
        return v.volume;
      },
      [](const event&) { not_from_a_route("event to the mixer"); },
      [](const mixer_apply&) -> bool { not_from_a_route("mixer_apply"); },
      [](const master_observed&) { not_from_a_route("master_observed"); },
      [](const app_level_observed&) { not_from_a_route("app_level_observed"); },
      [](const settings_reloaded&) { not_from_a_route("settings_reloaded to the mixer"); },
      // The hold commands are local-only; a route that reaches them still gets an answer.
      [](const mute_hold& h) {
        FUZZ_CHECK(h.index == protocol::master_index ||
                   (h.index >= 0 && h.index < limits::mute_count));
        return h.muted;
      },
      [](const mute_release&) { return pick(0, 2) == 0; },
  };
}

// No command from the API, anywhere in a macro.
inline bool holds_command(const nlohmann::json& fields) {
  if (fields.value("type", "") == "command") return true;
  if (auto steps = fields.find("steps"); steps != fields.end())
    for (const auto& step : *steps)
      if (step.value("type", "") == "command") return true;
  return false;
}

inline macros_actor::behavior_type macros_backend() {
  return {
      [](const macro_trigger& t) {
        FUZZ_CHECK(t.index >= 0 && t.index < limits::macro_count);
        FUZZ_CHECK(!t.page || (*t.page >= 0 && *t.page < limits::macro_page_count));
        macro_trigger_outcome out;
        out.what = static_cast<macro_trigger_outcome::result>(pick(26, 3));
        out.page = t.page.value_or(0);
        out.name = "Mic";
        return out;
      },
      [](const macro_edit& e) {
        FUZZ_CHECK(e.page >= 0 && e.page < limits::macro_page_count);
        FUZZ_CHECK(e.index >= 0 && e.index < limits::macro_count);
        FUZZ_CHECK(!holds_command(e.value.fields), e.value.fields.dump());
        FUZZ_CHECK(e.keep_command || e.value.empty());
        std::string error;
        FUZZ_CHECK(macros::parse_macro(e.value.fields, macros::origin::api, error), error);
        // The slot may hold a command macro, which a PUT must not write over (403), and the
        // set may be full (413).
        using result = macro_edit_outcome::result;
        if (!e.value.empty() && pick(28, 3) == 0) {
          macro kept;
          kept.fields = {{"type", "command"}, {"name", ""}, {"icon", ""}, {"argv", {"/bin/true"}}};
          return macro_edit_outcome{result::kept_command, kept, 0};
        }
        if (!e.value.empty() && pick(28, 3) == 1)
          return macro_edit_outcome{result::set_too_large, macro{}, macros::max_set_bytes + 1};
        return macro_edit_outcome{result::stored, e.value, 0};
      },
      [](const macro_page_rename& r) {
        FUZZ_CHECK(r.page >= 0 && r.page < limits::macro_page_count);
        FUZZ_CHECK(!r.name.empty() && r.name.size() <= 4 * macros::max_page_name_chars, r.name);
        for (char c : r.name)
          FUZZ_CHECK(!validation::is_control_byte(c), r.name);
        return r.name;
      },
      [](const macro_replace&) -> bool { not_from_a_route("macro_replace"); },
      [](const event&) { not_from_a_route("event to the macros"); },
      [](const settings_reloaded&) { not_from_a_route("settings_reloaded to the macros"); },
  };
}

inline device_actor::behavior_type device_backend() {
  return {
      [](caf::get_atom, status_atom) -> device_view { not_from_a_route("device status"); },
      [](const protocol::host_command&) { not_from_a_route("device command"); },
  };
}

inline auth_actor::behavior_type auth_backend() {
  return {
      [](const auth_check&) -> auth_verdict { not_from_a_route("auth_check"); },
      [](const login_attempt& a) {
        FUZZ_CHECK(a.username.size() <= 1024 && a.password.size() <= 1024);
        FUZZ_CHECK(a.address == "127.0.0.1", a.address);
        login_outcome out;
        out.what = static_cast<login_outcome::result>(pick(4, 5));  // ok .. busy
        out.session_id = live_session;
        out.max_age = a.remember ? 86400 : 0;
        out.retry_after = 300;
        return out;
      },
      // The cookie's value as sent (a cookie ends at ';'); empty without one.
      [](const logout_request& r) {
        FUZZ_CHECK(r.session_id.find(';') == std::string::npos, r.session_id);
        return pick(5, 2) == 0;
      },
      // The route checks lengths and fields; the actor checks the rest.
      [](const password_change& c) {
        FUZZ_CHECK(c.password.size() <= 1024 && c.current_password.size() <= 1024 &&
                   c.username.size() <= 1024);
        FUZZ_CHECK(c.address == "127.0.0.1", c.address);
        FUZZ_CHECK(c.source == "api" || c.source == "web", c.source);
        password_outcome out;
        out.status = std::array{200, 400, 403, 429, 503}[pick(50, 5)];
        if (out.status == 200)
          out.session_id = live_session;
        else
          out.error = "refused";
        out.retry_after = out.status >= 429 ? 1 : 0;
        return out;
      },
      [](const sessions_request& r) {
        FUZZ_CHECK(r.session_id.find(';') == std::string::npos, r.session_id);
        return nlohmann::json{{"sessions", nlohmann::json::array()}};
      },
      [](logout_everywhere) { return static_cast<int>(pick(54, 3)); },
      [](const settings_reloaded&) { not_from_a_route("settings_reloaded to auth"); },
  };
}

inline audio_actor::behavior_type audio_backend() {
  return {
      [](const audio_slider_target&) { not_from_a_route("audio_slider_target"); },
      [](const audio_slider_level&) { not_from_a_route("audio_slider_level"); },
      [](const audio_master_level&) { not_from_a_route("audio_master_level"); },
      [](watch_atom, const caf::actor&) { not_from_a_route("audio watch"); },
      [](const settings_reloaded&) { not_from_a_route("settings_reloaded to the audio actor"); },
      [](caf::get_atom, sessions_atom) -> audio_sessions { not_from_a_route("audio sessions"); },
  };
}

inline toast_actor::behavior_type toast_backend() {
  return {
      [](const toast_admit& a) {
        FUZZ_CHECK(a.address == "127.0.0.1", a.address);
        toast_admission out;
        out.what = static_cast<toast_admission::verdict>(pick(6, 3));
        if (!a.needs_key && out.what == toast_admission::verdict::unauthorized)
          out.what = toast_admission::verdict::ok;
        out.retry_after = 17;
        return out;
      },
      [](const toast_post& p) {
        FUZZ_CHECK(p.handler == "api");
        const auto& t = p.toast;
        FUZZ_CHECK(!t.message.empty() && toast::utf8_length(t.message) <= 30, t.message);
        FUZZ_CHECK(toast::utf8_length(t.subtitle) <= 40, t.subtitle);
        FUZZ_CHECK(t.duration_ms >= 1000 && t.duration_ms <= 30000);
        const auto& icons = toast::icon_names();
        FUZZ_CHECK(std::find(icons.begin(), icons.end(), t.icon) != icons.end(), t.icon);
        FUZZ_CHECK(
            t.color.empty() || (t.color.size() == 6 &&
                                t.color.find_first_not_of("0123456789ABCDEF") == std::string::npos),
            t.color);
        // The device line of an accepted toast always fits and reads back as a toast.
        const auto line = protocol::encode_host_command(toast::to_device_command(t));
        FUZZ_CHECK(line.text.size() <= limits::max_line_bytes, line.text);
        FUZZ_CHECK(
            std::holds_alternative<protocol::cmd_toast>(protocol::parse_host_line(line.text)),
            line.text);
        return toast_outcome{static_cast<toast_outcome::result>(pick(8, 3))};
      },
      [](const toast_notice&) { not_from_a_route("toast_notice"); },
      [](const toast_loaded&) { not_from_a_route("toast_loaded"); },
      [](caf::get_atom, handlers_atom) -> toast_handler_list {
        not_from_a_route("toast handlers");
      },
      // The {id} segment: may be empty (the router lets a handler or its actor answer that; the
      // toast actor has no such handler: 404), never more than one segment.
      [](const toast_switch& s) {
        FUZZ_CHECK(s.id.find('/') == std::string::npos, s.id);
        toast_switch_result out;
        for (const auto& h : every_toast_handler())
          if (h.id == s.id) out = {true, h};
        if (out.found) out.handler.enabled = s.enabled;
        return out;
      },
      [](regenerate_atom) { return std::string(64, 'f'); },
      [](caf::get_atom, history_atom) -> toast_history { not_from_a_route("toast history"); },
      [](const event&) { not_from_a_route("event to toast"); },
      [](const settings_reloaded&) { not_from_a_route("settings_reloaded to toast"); },
  };
}

inline network_actor::behavior_type network_backend() {
  return {
      [](caf::get_atom) {
        network_snapshot facts;
        facts.interfaces = {{"lo", "127.0.0.1"},
                            {"eth0", "192.168.1.20"},
                            {"tailscale0", "100.101.102.103"},
                            {"eth0", "fe80::1"}};
        if (pick(10, 2) == 0) facts.overlay = {true, true, "100.101.102.103", "pi.tail.ts.net"};
        return facts;
      },
  };
}

inline plants_actor::behavior_type plant_store_backend() {
  return {
      [](const plant_delete& d) {
        FUZZ_CHECK(!d.token.empty() && d.token.size() <= plants::max_token_bytes, d.token);
        FUZZ_CHECK(
            plants::parse_bearer("Bearer " + d.token).problem == plants::bearer_problem::none,
            d.token);
        plant_delete_outcome out;
        out.what = d.id ? static_cast<plant_delete_outcome::result>(pick(11, 6))
                        : plant_delete_outcome::result::bad_id;
        out.detail = "plants.json: not valid JSON";
        return out;
      },
      [](const settings_reloaded&) { not_from_a_route("settings_reloaded to plants"); },
  };
}

// The routes hand over only names that profiles::name_problem accepts, and icons of at most
// 64 bytes without control bytes; the answer is any outcome.
inline void check_profile_name(const std::string& name) {
  FUZZ_CHECK(profiles::name_problem(name).empty(), name);
}

inline profile_outcome profile_answer(const std::string& name) {
  profile_outcome out;
  out.what = static_cast<profile_outcome::result>(pick(41, 7));  // ok .. broken
  if (out.what == profile_outcome::result::ok)
    out.body = {{"success", true}, {"profile", name}};
  else
    out.error = "Profile '" + name + "' not found";
  return out;
}

inline profiles_actor::behavior_type profiles_backend() {
  auto icon_ok = [](const std::string& icon) {
    return icon.size() <= profiles::max_icon_bytes &&
           std::none_of(icon.begin(), icon.end(),
                        [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; });
  };
  return {
      [](const profile_load& r) {
        check_profile_name(r.name);
        return profile_answer(r.name);
      },
      [icon_ok](const profile_create& r) {
        check_profile_name(r.name);
        FUZZ_CHECK(icon_ok(r.icon), r.icon);
        return profile_answer(r.name);
      },
      [icon_ok](const profile_save& r) {
        check_profile_name(r.name);
        if (r.new_name) check_profile_name(*r.new_name);
        if (r.icon) FUZZ_CHECK(icon_ok(*r.icon), *r.icon);
        return profile_answer(r.name);
      },
      [](const profile_delete& r) {
        check_profile_name(r.name);
        return profile_answer(r.name);
      },
      [](const profile_get& r) {
        check_profile_name(r.name);
        return profile_answer(r.name);
      },
      [](const profiles_export&) {
        profile_outcome out;
        out.body = nlohmann::json::array();
        return out;
      },
      // An import reaches the profiles only after config_file::read accepted the whole file.
      [](const profiles_replace& r) {
        for (const auto& file : r.files)
          check_profile_name(file.name);
        return profile_answer("import");
      },
      [](const settings_reloaded&) { not_from_a_route("settings_reloaded to profiles"); },
  };
}

// The maker travels as an argument: CAF 0.17 dereferences a null argument tuple when a function
// actor takes none (UBSan reports it).
template <class Handle>
typename Handle::behavior_type stand_in(typename Handle::pointer,
                                        typename Handle::behavior_type (*make)()) {
  return make();
}

inline macros_view macro_view_of_set(macro_pages set) {
  macros_view view;
  view.set = std::move(set);
  return view;
}

// The stand-ins registered in a directory, and the slots of the views the routes read.
class capabilities {
 public:
  capabilities(caf::actor_system& sys, directory& dir)
      : mixer_(dir.slot(mixer_view{})),
        device_(dir.slot(device_view{})),
        audio_(dir.slot(audio_view{})),
        auth_(dir.slot(auth_view{})),
        toast_(dir.slot(toast_view{})),
        macros_(dir.slot(macro_view_of_set(macros::default_pages()))),
        profiles_(dir.slot(profiles_view{})),
        live_digest_(auth::session_digest(live_session)),
        idle_digest_(auth::session_digest(idle_session)) {
    dir.add(sys.spawn(stand_in<mixer_actor>, mixer_backend));
    dir.add(sys.spawn(stand_in<device_actor>, device_backend));
    dir.add(sys.spawn(stand_in<auth_actor>, auth_backend));
    dir.add(sys.spawn(stand_in<audio_actor>, audio_backend));
    dir.add(sys.spawn(stand_in<toast_actor>, toast_backend));
    dir.add(sys.spawn(stand_in<network_actor>, network_backend));
    dir.add(sys.spawn(stand_in<plants_actor>, plant_store_backend));
    dir.add(sys.spawn(stand_in<macros_actor>, macros_backend));
    dir.add(sys.spawn(stand_in<profiles_actor>, profiles_backend));
  }

  // Publishes the views of the current `scenario`, as the capabilities' actors would.
  void publish_views() {
    mixer_snapshot mix;
    mix.sliders[1].assigned = {assignment_type::app, {"Spotify.exe", "firefox"}};
    // Labels and app names come from parsed JSON only (settings.json, the API): valid UTF-8.
    mix.sliders[2].label = "Caf\xc3\xa9 \xe2\x99\xab";
    mix.sliders[3].assigned = {assignment_type::system_default_input, {}};
    mix.mutes.individual[pick(12, 4)] = true;
    mix.mutes.master = pick(14, 2) == 0;
    mix.master_volume = static_cast<int>(pick(15, 101));
    mixer_->store(mixer_view{std::move(mix), {}});

    // Text from the device and from the audio server may be invalid UTF-8.
    device_->store(
        device_view{pick(1, 2) == 0, "/dev/ttyACM0", "MAIN", "2.0.0", "Mixlar \xe2\x82 Mix"});

    audio_->store(audio_view{pick(22, 2) == 0,
                             "PulseAudio 16.1",
                             {audio_session{"spotify", "Spotify", {}, 2, 0, 30.5, false},
                              audio_session{"firefox", "Firefox \xe2\x82", {}, 1, -1, -1, true}}});

    // Login on in two scenarios of three; the live session idles out in one of four.
    auth_view login;
    login.enabled = pick(2, 3) != 0;
    login.session_timeout_ms = 86'400'000;
    const auto now = auth::steady_ms();
    const auto idle_since = now - login.session_timeout_ms - 1;
    login.sessions[live_digest_] = {
        "admin", std::make_shared<std::atomic<std::int64_t>>(pick(23, 4) == 0 ? idle_since : now),
        now, "127.0.0.1", 0};
    login.sessions[idle_digest_] = {"guest",
                                    std::make_shared<std::atomic<std::int64_t>>(idle_since),
                                    idle_since, "127.0.0.1", 0};
    login.password_set = pick(52, 2) != 0;
    auth_->store(std::move(login));

    auto handlers = every_toast_handler();
    handlers[pick(25, static_cast<unsigned>(handlers.size()))].enabled = false;
    toast_->store(toast_view{std::move(handlers)});

    auto set = macros::default_pages();
    set.current_page = static_cast<int>(pick(29, 4));
    set.page_names[1] = "Caf\xc3\xa9";
    std::string error;
    set.pages[0][0] =
        *macros::parse_macro({{"type", "command"}, {"name", "Cmd"}, {"argv", {"/bin/true"}}},
                             macros::origin::settings, error);
    set.pages[0][1] = *macros::parse_macro({{"type", "mute"}, {"name", "Mic"}, {"target", 1}},
                                           macros::origin::api, error);
    macros_->store(macro_view_of_set(std::move(set)));
    // Names come from file names (valid UTF-8) or the API; a broken file has an error.
    profiles_view listed;
    listed.profiles = {{"Default", "", "2026-11-24T12:20:29", "2026-11-24T12:20:29", ""},
                       {"a/b \xe2\x98\x86", "star", "", "", "not valid JSON: ..."}};
    listed.current = pick(44, 2) == 0 ? "Default" : "a/b \xe2\x98\x86";
    profiles_->store(std::move(listed));
  }

 private:
  std::shared_ptr<published<mixer_view>> mixer_;
  std::shared_ptr<published<device_view>> device_;
  std::shared_ptr<published<audio_view>> audio_;
  std::shared_ptr<published<auth_view>> auth_;
  std::shared_ptr<published<toast_view>> toast_;
  std::shared_ptr<published<macros_view>> macros_;
  std::shared_ptr<published<profiles_view>> profiles_;
  std::string live_digest_;
  std::string idle_digest_;
};

}  // namespace mixerd::fuzz
