#include "actors/device/device_actor.hpp"

#include <algorithm>
#include <caf/all.hpp>
#include <string>

#include "actors/device/port_finder.hpp"
#include "actors/support/log.hpp"
#include "protocol/limits.hpp"
#include "protocol/metrics.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "device";
using self_ptr = device_impl::stateful_pointer<device_state>;
using clock = std::chrono::steady_clock;

void publish(self_ptr self, event e) {
  self->send(self->state.config.hub, caf::publish_atom_v, std::move(e));
}

// Readers (REST, initial_state) see the status from here, without asking the actor.
void publish_status(self_ptr self) {
  self->state.published_status->store(self->state.status);
}

void schedule_retry(self_ptr self, std::chrono::milliseconds delay) {
  self->delayed_send(self, delay, retry_atom_v, self->state.generation);
}

// Ends the current link (if any) and plans the next attempt with exponential back-off.
void drop_link(self_ptr self, const std::string& reason) {
  auto& st = self->state;
  if (st.link) st.link->close();
  st.link.reset();
  st.opened = false;
  ++st.generation;
  if (st.status.connected) {
    st.status.connected = false;
    publish_status(self);
    log::warn(component, "disconnected from ", st.status.port, ": ", reason);
    publish(self, device_status{false, st.status.port});
  } else if (!st.told_searching) {
    // Say once why the device is not there; repeating it every back-off floods the log.
    log::info(component, reason, "; retrying");
    st.told_searching = true;
  } else {
    log::debug(component, reason);
  }
  schedule_retry(self, st.retry.next());
}

void try_connect(self_ptr self) {
  auto& st = self->state;
  if (st.config.serial == "none") return;
  std::string path = st.config.serial;
  if (path == "auto") {
    auto found = pick_device_port(list_usb_serial_ports());
    if (!found) {
      if (!st.told_searching) log::info(component, "no device found yet; still looking");
      st.told_searching = true;
      schedule_retry(self, limits::port_scan_interval);
      return;
    }
    path = found->path;
    log::info(component, "found ", found->description, " at ", path);
  }
  st.path = path;
  ++st.generation;
  log::debug(component, "opening ", path);
  st.link = open_serial_link(*st.config.io, path, caf::actor_cast<caf::actor>(self), st.generation);
}

void send_line(self_ptr self, const protocol::host_command& cmd) {
  auto encoded = protocol::encode_host_command(cmd);
  if (encoded.shortened)
    log::info(component, "line shortened to ", limits::max_line_bytes, " bytes: ", encoded.text);
  log::trace(component, "-> ", encoded.text);
  metrics::bump(device_counters_of_process().lines_out);
  self->state.link->write_line(std::move(encoded.text));
}

// Lines mixerd cannot use (unrecognised or over-long) are logged at most `per_minute` times a
// minute; the next one after that minute says how many were left out.
void log_unusable(device_state& st, log::level level, const std::string& text) {
  constexpr int per_minute = 10;
  const auto now = clock::now();
  if (now - st.unusable_since >= std::chrono::minutes(1)) {
    if (st.unusable_unlogged > 0) {
      log::info(component, st.unusable_unlogged,
                " more unusable lines in the last minute were not logged");
    }
    st.unusable_since = now;
    st.unusable_logged = 0;
    st.unusable_unlogged = 0;
  }
  if (st.unusable_logged >= per_minute) {
    ++st.unusable_unlogged;
    return;
  }
  ++st.unusable_logged;
  if (log::enabled(level)) log::write(level, component, text);
}

void on_line(self_ptr self, const std::string& line, bool overlong) {
  auto& st = self->state;
  st.last_line = clock::now();
  metrics::bump(device_counters_of_process().lines_in);
  log::trace(component, "<- ", line);
  if (!st.status.connected) {
    // ACK,READY or any other line proves a device is answering (protocol/README.md, "Link life").
    st.status.connected = true;
    st.status.port = st.path;
    st.retry.reset();
    st.told_searching = false;
    log::info(component, "connected on ", st.path);
    if (st.was_connected) metrics::bump(device_counters_of_process().reconnects);
    st.was_connected = true;
    publish_status(self);
    publish(self, device_status{true, st.path});
    if (st.config.brightness) send_line(self, protocol::cmd_brightness{*st.config.brightness});
  }
  if (overlong) {
    log_unusable(st, log::level::warn,
                 "over-long line from the device (" + std::to_string(limits::max_line_bytes) +
                     "+ bytes), passed on as raw data");
    publish(self, serial_raw{line});
    return;
  }
  auto ev = protocol::parse_device_line(line);
  if (auto v = std::get_if<protocol::dev_version>(&ev)) {
    if (st.status.firmware_version != v->version)
      log::info(component, "firmware version ", v->version);
    st.status.firmware_version = v->version;
    publish_status(self);
  } else if (auto t = std::get_if<protocol::dev_type>(&ev)) {
    st.status.device_type = t->name;
    publish_status(self);
  } else if (auto p = std::get_if<protocol::dev_page>(&ev)) {
    st.status.page = p->name;
    publish_status(self);
  } else if (auto u = std::get_if<protocol::dev_unknown>(&ev)) {
    log_unusable(st, log::level::info, "unrecognised line: " + u->line);
    publish(self, serial_raw{u->line});
    return;
  }
  publish(self, device_input{std::move(ev)});
}

void on_keepalive(self_ptr self) {
  auto& st = self->state;
  if (clock::now() - st.last_line >= limits::silence_timeout) {
    drop_link(self, "no line from the device for 6 s");
    return;
  }
  send_line(self, protocol::cmd_ping{});
  self->delayed_send(self, limits::ping_interval, keepalive_atom_v, st.generation);
}

}  // namespace

device_impl::behavior_type device_behavior(device_impl::stateful_pointer<device_state> self,
                                           device_config config,
                                           std::shared_ptr<published<device_view>> status) {
  self->state.config = std::move(config);
  self->state.published_status = std::move(status);
  publish_status(self);
  if (self->state.config.serial == "none")
    log::info(component, "serial link disabled (--serial none)");
  else
    self->send(self, retry_atom_v, self->state.generation);
  if (self->state.config.settings)
    self->send(self->state.config.settings, watch_atom_v, caf::actor_cast<caf::actor>(self));
  return {
      [self](caf::get_atom, status_atom) { return self->state.status; },
      [self](const protocol::host_command& cmd) {
        if (self->state.status.connected) send_line(self, cmd);
      },
      [self](retry_atom, std::uint64_t gen) {
        if (gen == self->state.generation && !self->state.link) try_connect(self);
      },
      [self](opened_atom, std::uint64_t gen) {
        auto& st = self->state;
        if (gen != st.generation) return;
        st.opened = true;
        st.last_line = clock::now();
        send_line(self, protocol::cmd_ready{});
        self->delayed_send(self, limits::ping_interval, keepalive_atom_v, gen);
      },
      [self](line_atom, std::uint64_t gen, const std::string& line, bool overlong) {
        if (gen == self->state.generation) on_line(self, line, overlong);
      },
      [self](closed_atom, std::uint64_t gen, const std::string& reason) {
        if (gen == self->state.generation) drop_link(self, reason);
      },
      [self](keepalive_atom, std::uint64_t gen) {
        if (gen == self->state.generation && self->state.opened) on_keepalive(self);
      },
      [self](const settings_reloaded& reloaded) {
        auto& st = self->state;
        const auto brightness = device_brightness_of(reloaded.settings);
        if (brightness == st.config.brightness) return;
        st.config.brightness = brightness;
        if (brightness && st.status.connected)
          send_line(self, protocol::cmd_brightness{*brightness});
      },
  };
}

}  // namespace mixerd
