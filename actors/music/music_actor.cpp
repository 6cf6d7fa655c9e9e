#include "actors/music/music_actor.hpp"

#include <algorithm>
#include <caf/all.hpp>
#include <cstdlib>

#include "actors/support/log.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "music";
// A track change counts once the track has stayed this long: a player that first names the file
// and then its tags (mpv) makes one change, not two.
constexpr auto track_settle_time = std::chrono::milliseconds(300);
using self_ptr = music_impl::stateful_pointer<music_state>;

// A media command's answer must come within the bus call's own limit; this covers a connection
// that ends without answering.
std::chrono::milliseconds command_limit(const self_ptr& self) {
  return self->state.wiring.bus.call_timeout + std::chrono::milliseconds(500);
}

void publish_view(self_ptr self) {
  auto& st = self->state;
  st.view->store(music_view{st.connected, st.active, st.track_changes});
}

// After any change of the players: the active player's state, its event and its toast.
void refresh(self_ptr self) {
  auto& st = self->state;
  std::optional<now_playing> now;
  if (const auto* active = music::active_of(st.players)) now = music::state_of(*active);
  if (now == st.active) return publish_view(self);
  if (music::is_track_change(st.active, now))
    self->delayed_send(self, track_settle_time, recheck_atom_v, ++st.settling);
  st.active = now;
  publish_view(self);
  self->send(st.wiring.hub, caf::publish_atom_v, event{music_change{now}});
}

// The track has stayed since the change `seq`: counted and shown unless it is the one counted
// last.
void on_settled(self_ptr self, std::uint64_t seq) {
  auto& st = self->state;
  if (seq != st.settling || !music::is_track_change(st.counted, st.active)) return;
  st.counted = st.active;
  ++st.track_changes;
  publish_view(self);
  if (st.wiring.toast)
    self->send(st.wiring.toast, toast_notice{"music", music::toast_of(*st.active)});
}

void fail_commands(self_ptr self, const std::string& why) {
  for (auto& [id, rp] : self->state.commands)
    rp.deliver(media_outcome{false, why});
  self->state.commands.clear();
}

void connect(self_ptr self) {
  auto& st = self->state;
  st.bus =
      open_mpris_bus(*st.wiring.io, st.wiring.bus, caf::actor_cast<caf::actor>(self), ++st.gen);
}

// The connection could not be made or was lost: no players, and another attempt later.
void lost(self_ptr self, const std::string& reason) {
  auto& st = self->state;
  st.bus.reset();
  if (st.connected)
    log::warn(component, reason);
  else if (reason != st.last_failure)
    log::info(component, reason, "; retrying");
  st.last_failure = reason;
  st.connected = false;
  st.players.clear();
  fail_commands(self, std::string(music::no_bus_error));
  refresh(self);
  self->delayed_send(self, st.retry.next(), retry_atom_v, st.gen);
}

void on_update(self_ptr self, mpris_player_update& update) {
  auto& st = self->state;
  auto it = st.players.find(update.name);
  if (it == st.players.end()) {
    if (st.players.size() >= music::max_players) {
      log::warn(component, "more than ", music::max_players, " players; ignoring ", update.name);
      return;
    }
    it = st.players.emplace(update.name, music::player{}).first;
    it->second.name = update.name;
    it->second.found = ++st.order;
  }
  auto& p = it->second;
  if (update.identity) p.identity = *update.identity;
  if (update.metadata) p.current = music::track_of(*update.metadata);
  if (update.status) {
    auto status = music::status_of(*update.status);
    // A player first seen playing counts as having started then.
    if (status == "Playing" && (p.status != "Playing" || !p.ready)) p.started = ++st.order;
    p.status = std::move(status);
  }
  // The first full read (both GetAll calls) carries a status and metadata.
  if (update.status && update.metadata) {
    if (!p.ready) log::info(component, "player ", p.name, " found");
    p.ready = true;
  }
  refresh(self);
}

}  // namespace

mpris_bus_options music_bus_from_environment() {
  mpris_bus_options options;
  if (const char* address = std::getenv("DBUS_SESSION_BUS_ADDRESS")) options.address = address;
  return options;
}

music_impl::behavior_type music_behavior(music_impl::stateful_pointer<music_state> self,
                                         music_wiring wiring,
                                         std::shared_ptr<published<music_view>> view) {
  auto& st = self->state;
  st.wiring = std::move(wiring);
  st.view = std::move(view);
  publish_view(self);
  if (!st.wiring.wait_for_ready) connect(self);
  return {
      [self](ready_atom) {
        if (self->state.wiring.wait_for_ready) {
          self->state.wiring.wait_for_ready = false;
          connect(self);
        }
      },
      [self](const media_command& cmd) -> caf::result<media_outcome> {
        auto& st = self->state;
        auto method = music::method_of(cmd.action);
        if (!method) return media_outcome{false, "unknown media action '" + cmd.action + "'"};
        if (!st.connected || !st.bus) return media_outcome{false, std::string(music::no_bus_error)};
        const auto* active = music::active_of(st.players);
        if (!active) return media_outcome{false, std::string(music::no_player_error)};
        if (st.commands.size() >= music::max_pending_commands)
          return media_outcome{false, "too many media commands waiting for the player"};
        const auto id = ++st.last_command;
        auto rp = self->make_response_promise<media_outcome>();
        st.commands.emplace(id, rp);
        st.bus->call(id, active->name, std::string(*method));
        self->delayed_send(self, command_limit(self),
                           mpris_call_done{st.gen, id, "the player did not answer in time"});
        log::debug(component, cmd.action, " sent to ", active->name);
        return rp;
      },
      [self](opened_atom, std::uint64_t gen) {
        auto& st = self->state;
        if (gen != st.gen) return;
        st.connected = true;
        st.retry.reset();
        st.last_failure.clear();
        log::info(component, "session D-Bus connected");
        publish_view(self);
      },
      [self](closed_atom, std::uint64_t gen, const std::string& reason) {
        if (gen != self->state.gen) return;
        lost(self, reason);
      },
      [self](recheck_atom, std::uint64_t seq) { on_settled(self, seq); },
      [self](retry_atom, std::uint64_t gen) {
        if (gen != self->state.gen || self->state.bus) return;
        connect(self);
      },
      [self](mpris_player_update& update) {
        if (update.gen != self->state.gen) return;
        on_update(self, update);
      },
      [self](const mpris_player_gone& gone) {
        auto& st = self->state;
        if (gone.gen != st.gen) return;
        if (st.players.erase(gone.name) > 0) log::info(component, "player ", gone.name, " gone");
        refresh(self);
      },
      [self](const mpris_call_done& done) {
        auto& st = self->state;
        auto it = st.commands.find(done.id);
        if (it == st.commands.end()) return;  // answered already (or timed out)
        if (done.error.empty())
          it->second.deliver(media_outcome{true, ""});
        else
          it->second.deliver(media_outcome{false, "the player refused: " + done.error});
        st.commands.erase(it);
      },
  };
}

}  // namespace mixerd
