// The actors behind the three route tables, for the http_request target: each answers like the
// real one would (the answer picked by `scenario`, so that every branch of a route is reached),
// and checks what the route table asks of it: nothing that the request validation should have
// refused may arrive here (an out-of-range index, an unchecked toast, a malformed token...).
#pragma once

#include <caf/all.hpp>
#include <cstdint>
#include <string>

#include "protocol/messages.hpp"
#include "protocol/plants.hpp"
#include "protocol/toast.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace mixerd::fuzz {

// Chosen per request from the input hash; read by the backends (one thread: test coordinator).
inline std::uint64_t scenario = 0;

inline unsigned pick(unsigned shift, unsigned choices) {
  return static_cast<unsigned>((scenario >> shift) % choices);
}

inline bool in_volume_range(int v) {
  return v >= limits::volume_min && v <= limits::volume_max;
}

inline caf::behavior mixer_backend() {
  return {
      [](caf::get_atom) {
        mixer_snapshot m;
        m.sliders[1].assigned = {assignment_type::app, {"Spotify.exe", "firefox"}};
        m.sliders[2].label = "Caf\xc3\xa9 \xff";  // device text may be invalid UTF-8
        return m;
      },
      [](const set_slider_value& v) {
        FUZZ_CHECK(v.index >= 0 && v.index < limits::slider_count);
        FUZZ_CHECK(in_volume_range(v.value));
        return v.value;
      },
      [](const set_slider_assignment& a) {
        FUZZ_CHECK(a.index >= 0 && a.index < limits::slider_count);
        FUZZ_CHECK(a.assigned.names.size() <= 32);
        FUZZ_CHECK(a.assigned.type == assignment_type::app || a.assigned.names.empty());
        for (const auto& name : a.assigned.names)
          FUZZ_CHECK(!name.empty() && name.size() <= 256, name);
        if (a.label) FUZZ_CHECK(a.label->size() <= 64, *a.label);
        return a.assigned;
      },
      [](const toggle_mute& t) {
        FUZZ_CHECK(t.index >= protocol::master_index && t.index < limits::mute_count);
        return pick(0, 2) == 0;
      },
      [](const set_master_volume& v) {
        FUZZ_CHECK(in_volume_range(v.volume));
        return v.volume;
      },
  };
}

inline caf::behavior device_backend() {
  return {
      [](caf::get_atom, status_atom) {
        return device_status{pick(1, 2) == 0, "/dev/ttyACM0", "MAIN", "2.0.0", "Mixlar Mix"};
      },
  };
}

inline caf::behavior auth_backend() {
  return {
      [](const auth_check& c) {
        const bool enabled = pick(2, 3) != 0;
        const bool authenticated = !enabled || (pick(2, 3) == 2 && !c.session_id.empty());
        return auth_state{enabled, authenticated, authenticated && enabled ? "admin" : ""};
      },
      [](const login_attempt& a) {
        FUZZ_CHECK(a.username.size() <= 1024 && a.password.size() <= 1024);
        login_outcome out;
        out.what = static_cast<login_outcome::result>(pick(4, 4));
        out.session_id = std::string(64, 'a');
        out.max_age = a.remember ? 86400 : 0;
        out.retry_after = 300;
        return out;
      },
      [](const logout_request&) {},
  };
}

inline caf::behavior audio_backend() {
  return {
      [](caf::get_atom, sessions_atom) {
        return audio_sessions{{"spotify", "Spotify"}, {"firefox", "Firefox \xe2\x82"}};
      },
  };
}

inline caf::behavior toast_backend() {
  return {
      [](const toast_admit& a) {
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
        FUZZ_CHECK(!t.message.empty() && notify::utf8_length(t.message) <= 30, t.message);
        FUZZ_CHECK(notify::utf8_length(t.subtitle) <= 40, t.subtitle);
        FUZZ_CHECK(t.duration_ms >= 1000 && t.duration_ms <= 30000);
        const auto& icons = notify::icon_names();
        FUZZ_CHECK(std::find(icons.begin(), icons.end(), t.icon) != icons.end(), t.icon);
        FUZZ_CHECK(
            t.color.empty() || (t.color.size() == 6 &&
                                t.color.find_first_not_of("0123456789ABCDEF") == std::string::npos),
            t.color);
        // The device line of an accepted toast always fits and reads back as a toast.
        const auto line = protocol::encode_host_command(notify::to_device_command(t));
        FUZZ_CHECK(line.text.size() <= limits::max_line_bytes, line.text);
        FUZZ_CHECK(
            std::holds_alternative<protocol::cmd_toast>(protocol::parse_host_line(line.text)),
            line.text);
        return toast_outcome{static_cast<toast_outcome::result>(pick(8, 3))};
      },
      [](caf::get_atom, handlers_atom) { return notify::default_handlers(); },
      [](const toast_switch& s) {
        FUZZ_CHECK(!s.id.empty() && s.id.find('/') == std::string::npos, s.id);
        toast_switch_result out;
        for (const auto& h : notify::default_handlers())
          if (h.id == s.id) out = {true, h};
        return out;
      },
      [](regenerate_atom) { return std::string(64, 'f'); },
  };
}

inline caf::behavior network_backend() {
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

inline caf::behavior plant_store_backend() {
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
  };
}

}  // namespace mixerd::fuzz
