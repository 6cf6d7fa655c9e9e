#include "actors/music/mpris_bus.hpp"

#include <poll.h>
#include <systemd/sd-bus.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <caf/all.hpp>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "protocol/atoms.hpp"
#include "protocol/music.hpp"

namespace mixerd {

namespace {

namespace net = boost::asio;
using error_code = boost::system::error_code;

// Messages handled per turn before other work on the io thread gets its turn.
constexpr int max_batch = 64;

constexpr const char* dbus_name = "org.freedesktop.DBus";
constexpr const char* dbus_path = "/org/freedesktop/DBus";
constexpr const char* properties_interface = "org.freedesktop.DBus.Properties";

std::string errno_text(int negative_errno) {
  return std::strerror(-negative_errno);
}

// The error of a reply, or empty when it is a method return.
std::string reply_error(sd_bus_message* reply) {
  const sd_bus_error* e = sd_bus_message_get_error(reply);
  if (!e) return {};
  if (e->message && *e->message) return music::clean_text(e->message);
  return music::clean_text(e->name ? e->name : "error");
}

// ---- reading values out of a message ---------------------------------------------------------

// The variant at the read position as an mpris_value; false (and skipped) for other types.
bool read_variant(sd_bus_message* m, mpris_value& out) {
  char type = 0;
  const char* contents = nullptr;
  if (sd_bus_message_peek_type(m, &type, &contents) <= 0 || type != SD_BUS_TYPE_VARIANT)
    return false;
  const std::string inner = contents ? contents : "";
  if (sd_bus_message_enter_container(m, SD_BUS_TYPE_VARIANT, contents) <= 0) return false;
  bool ok = true;
  if (inner == "s" || inner == "o") {
    const char* s = nullptr;
    ok = sd_bus_message_read_basic(m, inner[0], &s) > 0;
    if (ok) out = std::string(s ? s : "");
  } else if (inner == "as") {
    char** list = nullptr;
    ok = sd_bus_message_read_strv(m, &list) >= 0;
    std::vector<std::string> values;
    for (char** p = list; p && *p; ++p) {
      values.emplace_back(*p);
      std::free(*p);
    }
    std::free(list);
    if (ok) out = std::move(values);
  } else if (inner == "x") {
    int64_t v = 0;
    ok = sd_bus_message_read_basic(m, 'x', &v) > 0;
    out = std::int64_t{v};
  } else if (inner == "t") {
    uint64_t v = 0;
    ok = sd_bus_message_read_basic(m, 't', &v) > 0;
    out = std::uint64_t{v};
  } else if (inner == "i") {
    int32_t v = 0;
    ok = sd_bus_message_read_basic(m, 'i', &v) > 0;
    out = std::int64_t{v};
  } else if (inner == "u") {
    uint32_t v = 0;
    ok = sd_bus_message_read_basic(m, 'u', &v) > 0;
    out = std::int64_t{v};
  } else if (inner == "d") {
    double v = 0;
    ok = sd_bus_message_read_basic(m, 'd', &v) > 0;
    out = v;
  } else if (inner == "b") {
    int v = 0;
    ok = sd_bus_message_read_basic(m, 'b', &v) > 0;
    out = v != 0;
  } else {
    sd_bus_message_skip(m, contents);
    ok = false;
  }
  sd_bus_message_exit_container(m);
  return ok;
}

// Reads an a{sv} at the read position; `entry` gets each key with the message positioned at its
// variant and must consume it. False when the message does not hold one.
bool read_dict(sd_bus_message* m, const std::function<void(const std::string&)>& entry) {
  if (sd_bus_message_enter_container(m, SD_BUS_TYPE_ARRAY, "{sv}") <= 0) return false;
  for (;;) {
    int r = sd_bus_message_enter_container(m, SD_BUS_TYPE_DICT_ENTRY, "sv");
    if (r <= 0) break;
    const char* key = nullptr;
    if (sd_bus_message_read_basic(m, 's', &key) <= 0) return false;
    entry(key ? key : "");
    if (sd_bus_message_exit_container(m) < 0) return false;
  }
  return sd_bus_message_exit_container(m) >= 0;
}

std::optional<mpris_metadata> read_metadata(sd_bus_message* m) {
  mpris_metadata out;
  bool ok = read_dict(m, [&](const std::string& key) {
    mpris_value value;
    if (read_variant(m, value)) out.emplace(key, std::move(value));
  });
  if (!ok) return std::nullopt;
  return out;
}

// The properties of either MPRIS interface that mixerd reads, from an a{sv} (GetAll's answer or
// PropertiesChanged's second argument) into `update`.
bool read_properties(sd_bus_message* m, mpris_player_update& update) {
  return read_dict(m, [&](const std::string& key) {
    if (key == "Metadata") {
      char type = 0;
      const char* contents = nullptr;
      if (sd_bus_message_peek_type(m, &type, &contents) > 0 && contents &&
          std::strcmp(contents, "a{sv}") == 0 &&
          sd_bus_message_enter_container(m, SD_BUS_TYPE_VARIANT, contents) > 0) {
        update.metadata = read_metadata(m);
        sd_bus_message_exit_container(m);
        return;
      }
    } else if (key == "PlaybackStatus" || key == "Identity") {
      mpris_value value;
      if (read_variant(m, value)) {
        if (auto* s = std::get_if<std::string>(&value))
          (key == "Identity" ? update.identity : update.status) = std::move(*s);
      }
      return;
    }
    sd_bus_message_skip(m, "v");
  });
}

// ---- the connection -------------------------------------------------------------------------

class session final : public mpris_bus, public std::enable_shared_from_this<session> {
 public:
  session(net::io_context& io, mpris_bus_options options, caf::actor owner, std::uint64_t gen)
      : io_(io),
        options_(std::move(options)),
        owner_(std::move(owner)),
        gen_(gen),
        descriptor_(io),
        timer_(io),
        open_timer_(io) {}

  ~session() override {
    if (descriptor_.is_open()) descriptor_.release();  // sd-bus owns the fd
    if (bus_) sd_bus_close_unref(bus_);
  }

  void start() {
    open_timer_.expires_after(options_.open_timeout);
    open_timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (ec || self->opened_) return;
      self->end("session D-Bus did not answer within " +
                std::to_string(self->options_.open_timeout.count()) + " ms");
    });
    int r = connect();
    if (r < 0) return end("session D-Bus not reachable: " + errno_text(r));
    const int fd = sd_bus_get_fd(bus_);
    if (fd < 0) return end("session D-Bus not reachable: " + errno_text(fd));
    error_code ec;
    descriptor_.assign(fd, ec);
    if (ec) return end("session D-Bus: " + ec.message());
    // The filters first: the bus applies them before it answers ListNames, so no player
    // appearing in between is missed.
    const std::string owners = "type='signal',sender='" + std::string(dbus_name) + "',interface='" +
                               dbus_name +
                               "',member='NameOwnerChanged',arg0namespace='org.mpris.MediaPlayer2'";
    const std::string changes = "type='signal',interface='" + std::string(properties_interface) +
                                "',member='PropertiesChanged',path='" +
                                std::string(music::object_path) + "'";
    r = sd_bus_add_match_async(bus_, nullptr, owners.c_str(), &session::on_owner_changed, nullptr,
                               this);
    if (r >= 0)
      r = sd_bus_add_match_async(bus_, nullptr, changes.c_str(), &session::on_properties_changed,
                                 nullptr, this);
    if (r < 0) return end("session D-Bus: " + errno_text(r));
    r = call_async(dbus_name, dbus_path, dbus_name, "ListNames",
                   [this](sd_bus_message* reply) { on_names(reply); });
    if (r < 0) return end("session D-Bus: " + errno_text(r));
    pump();
  }

  void call(std::uint64_t id, std::string player, std::string method) override {
    net::post(io_, [self = shared_from_this(), id, player = std::move(player),
                    method = std::move(method)] { self->do_call(id, player, method); });
  }

  void close() override {
    net::post(io_, [self = shared_from_this()] {
      self->closed_by_owner_ = true;
      self->end("closed");
    });
  }

 private:
  using reply_handler = std::function<void(sd_bus_message*)>;
  struct pending_reply {
    reply_handler done;
  };

  int connect() {
    if (options_.address.empty()) return sd_bus_open_user(&bus_);
    int r = sd_bus_new(&bus_);
    if (r >= 0) r = sd_bus_set_address(bus_, options_.address.c_str());
    if (r >= 0) r = sd_bus_set_bus_client(bus_, 1);
    if (r >= 0) r = sd_bus_start(bus_);
    return r;
  }

  static int on_reply(sd_bus_message* m, void* userdata, sd_bus_error*) {
    static_cast<pending_reply*>(userdata)->done(m);
    return 0;
  }

  // An asynchronous method call whose answer (or error, or timeout) goes to `done`, from inside
  // sd_bus_process on the io thread. `append` adds the arguments.
  int call_async(const char* destination, const char* path, const char* interface,
                 const char* member, reply_handler done,
                 const std::function<int(sd_bus_message*)>& append = nullptr) {
    sd_bus_message* m = nullptr;
    int r = sd_bus_message_new_method_call(bus_, &m, destination, path, interface, member);
    if (r < 0) return r;
    if (append) r = append(m);
    auto* pending = new pending_reply{std::move(done)};
    sd_bus_slot* slot = nullptr;
    if (r >= 0)
      r = sd_bus_call_async(bus_, &slot, m, &session::on_reply, pending,
                            static_cast<uint64_t>(options_.call_timeout.count()) * 1000);
    sd_bus_message_unref(m);
    if (r < 0) {
      delete pending;
      return r;
    }
    // The bus owns the slot from here; the handler goes with it (after its answer, or when the
    // connection is freed with the call still pending).
    sd_bus_slot_set_destroy_callback(slot, [](void* p) { delete static_cast<pending_reply*>(p); });
    sd_bus_slot_set_floating(slot, 1);
    sd_bus_slot_unref(slot);
    return r;
  }

  // ---- driving sd-bus from Asio ---------------------------------------------------------------

  void pump() {
    for (int i = 0; i < max_batch && !ended_; ++i) {
      int r = sd_bus_process(bus_, nullptr);
      if (ended_) return;
      if (r < 0) return end("session D-Bus lost: " + errno_text(r));
      if (r == 0) break;
    }
    if (ended_) return;
    if (sd_bus_is_open(bus_) <= 0) return end("session D-Bus lost");
    arm();
  }

  // Waits for what sd-bus wants next: readable, writable, or its next deadline (0: at once,
  // e.g. when messages are still queued after a full batch).
  void arm() {
    const int events = sd_bus_get_events(bus_);
    if (events < 0) return end("session D-Bus lost: " + errno_text(events));
    if ((events & POLLIN) && !reading_) {
      reading_ = true;
      descriptor_.async_wait(net::posix::stream_descriptor::wait_read,
                             [self = shared_from_this()](error_code ec) {
                               self->reading_ = false;
                               if (!ec) self->pump();
                             });
    }
    if ((events & POLLOUT) && !writing_) {
      writing_ = true;
      descriptor_.async_wait(net::posix::stream_descriptor::wait_write,
                             [self = shared_from_this()](error_code ec) {
                               self->writing_ = false;
                               if (!ec) self->pump();
                             });
    }
    uint64_t deadline_us = UINT64_MAX;
    if (sd_bus_get_timeout(bus_, &deadline_us) < 0) deadline_us = UINT64_MAX;
    if (deadline_us == UINT64_MAX) {
      timer_.cancel();
      return;
    }
    // sd-bus's deadlines are CLOCK_MONOTONIC microseconds, as steady_clock's time points.
    timer_.expires_at(
        std::chrono::steady_clock::time_point(std::chrono::microseconds(deadline_us)));
    timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec) self->pump();
    });
  }

  // Ends the connection once; the owner hears why unless it closed it. Called from inside a
  // callback too: the bus is freed later, outside sd_bus_process.
  void end(std::string reason) {
    if (ended_) return;
    ended_ = true;
    if (!closed_by_owner_) caf::anon_send(owner_, closed_atom_v, gen_, std::move(reason));
    net::post(io_, [self = shared_from_this()] {
      error_code ignored;
      self->timer_.cancel();
      self->open_timer_.cancel();
      if (self->descriptor_.is_open()) {
        self->descriptor_.cancel(ignored);
        self->descriptor_.release();
      }
      if (self->bus_) self->bus_ = sd_bus_close_unref(self->bus_);
    });
  }

  // ---- players --------------------------------------------------------------------------------

  void on_names(sd_bus_message* reply) {
    if (auto error = reply_error(reply); !error.empty())
      return end("session D-Bus did not answer: " + error);
    char** names = nullptr;
    if (sd_bus_message_read_strv(reply, &names) < 0) return end("session D-Bus: bad ListNames");
    std::vector<std::string> players;
    for (char** p = names; p && *p; ++p) {
      if (music::is_player_name(*p)) players.emplace_back(*p);
      std::free(*p);
    }
    std::free(names);
    opened_ = true;
    open_timer_.cancel();
    caf::anon_send(owner_, opened_atom_v, gen_);
    for (const auto& name : players)
      fetch(name);
  }

  // Reads both interfaces of a player (its Identity first) and reports them as one update.
  void fetch(const std::string& name) {
    fetching_.insert(name);
    auto append_interface = [](const char* interface) {
      return [interface](sd_bus_message* m) { return sd_bus_message_append(m, "s", interface); };
    };
    const std::string root(music::root_interface);
    const std::string player(music::player_interface);
    const int r = call_async(
        name.c_str(), music::object_path.data(), properties_interface, "GetAll",
        [this, name, player, append_interface](sd_bus_message* reply) {
          mpris_player_update update{gen_, name, std::nullopt, std::nullopt, std::nullopt};
          if (reply_error(reply).empty()) read_properties(reply, update);
          if (ended_) return;
          const int sent = call_async(
              name.c_str(), music::object_path.data(), properties_interface, "GetAll",
              [this, update](sd_bus_message* reply) mutable {
                fetching_.erase(update.name);
                // Not a player after all, gone, or too slow: read again on its next signal.
                if (!reply_error(reply).empty()) return;
                read_.insert(update.name);
                if (const char* sender = sd_bus_message_get_sender(reply))
                  owners_[update.name] = sender;
                read_properties(reply, update);
                if (!update.status) update.status = std::string("Stopped");
                if (!update.metadata) update.metadata = mpris_metadata{};
                caf::anon_send(owner_, std::move(update));
              },
              append_interface(player.c_str()));
          if (sent < 0) fetching_.erase(name);  // not sent: the next signal reads it again
        },
        append_interface(root.c_str()));
    if (r < 0) fetching_.erase(name);
  }

  static int on_owner_changed(sd_bus_message* m, void* userdata, sd_bus_error*) {
    auto* self = static_cast<session*>(userdata);
    const char* name = nullptr;
    const char* old_owner = nullptr;
    const char* new_owner = nullptr;
    if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 || !name) return 0;
    if (!music::is_player_name(name)) return 0;
    if (old_owner && *old_owner) {
      self->owners_.erase(name);
      self->read_.erase(name);
      caf::anon_send(self->owner_, mpris_player_gone{self->gen_, name});
    }
    if (new_owner && *new_owner) {
      self->owners_[name] = new_owner;
      self->fetch(name);
    }
    return 0;
  }

  static int on_properties_changed(sd_bus_message* m, void* userdata, sd_bus_error*) {
    auto* self = static_cast<session*>(userdata);
    const char* sender = sd_bus_message_get_sender(m);
    const char* interface = nullptr;
    if (!sender || sd_bus_message_read(m, "s", &interface) < 0 || !interface) return 0;
    const bool root = music::root_interface == interface;
    if (!root && music::player_interface != interface) return 0;
    mpris_player_update changed;
    changed.gen = self->gen_;
    if (!read_properties(m, changed)) return 0;
    // Properties that changed without their values: read them again.
    bool stale = false;
    char** invalidated = nullptr;
    if (sd_bus_message_read_strv(m, &invalidated) >= 0) {
      for (char** p = invalidated; p && *p; ++p) {
        const std::string_view key = *p;
        stale = stale || key == "Metadata" || key == "PlaybackStatus" || key == "Identity";
        std::free(*p);
      }
      std::free(invalidated);
    }
    for (const auto& [name, unique] : self->owners_) {
      if (unique != sender) continue;
      // A player not read in full yet (its first read failed) is read now: a partial update
      // alone would leave it unknown to the owner for good.
      const bool unread = !self->read_.count(name) && !self->fetching_.count(name);
      if (stale || unread) {
        self->fetch(name);
      } else if (changed.identity || changed.status || changed.metadata) {
        auto update = changed;
        update.name = name;
        caf::anon_send(self->owner_, std::move(update));
      }
    }
    return 0;
  }

  void do_call(std::uint64_t id, const std::string& player, const std::string& method) {
    auto fail = [this, id](std::string error) {
      caf::anon_send(owner_, mpris_call_done{gen_, id, std::move(error)});
    };
    if (ended_ || !bus_) return fail(std::string(music::no_bus_error));
    int r = call_async(player.c_str(), music::object_path.data(), music::player_interface.data(),
                       method.c_str(), [this, id](sd_bus_message* reply) {
                         caf::anon_send(owner_, mpris_call_done{gen_, id, reply_error(reply)});
                       });
    if (r < 0) return fail("the call could not be sent: " + errno_text(r));
    arm();
  }

  net::io_context& io_;
  mpris_bus_options options_;
  caf::actor owner_;
  std::uint64_t gen_;
  sd_bus* bus_ = nullptr;
  net::posix::stream_descriptor descriptor_;
  net::steady_timer timer_;       // sd-bus's next deadline
  net::steady_timer open_timer_;  // options_.open_timeout
  bool opened_ = false;           // ListNames answered
  bool reading_ = false;
  bool writing_ = false;
  bool ended_ = false;
  bool closed_by_owner_ = false;
  // Well-known player name -> the unique name that owns it (PropertiesChanged comes from the
  // unique name).
  std::map<std::string, std::string> owners_;
  std::set<std::string> read_;      // players whose full read succeeded
  std::set<std::string> fetching_;  // players with a full read under way
};

}  // namespace

std::shared_ptr<mpris_bus> open_mpris_bus(net::io_context& io, mpris_bus_options options,
                                          caf::actor owner, std::uint64_t generation) {
  auto s = std::make_shared<session>(io, std::move(options), std::move(owner), generation);
  net::post(io, [s] { s->start(); });
  return s;
}

}  // namespace mixerd
