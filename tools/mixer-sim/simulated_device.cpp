// The simulated device. One impl object owns the pty master and the device state; every Asio
// handler and every command() takes its mutex, so command() may be called from any thread while
// the io_context runs on another (the unit tests do that). Handlers hold only a weak_ptr to the
// impl and a plug generation, so a handler left over from a closed pty or a destroyed device
// does nothing.
#include "tools/mixer-sim/simulated_device.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <limits>
#include <mutex>
#include <optional>
#include <system_error>
#include <utility>
#include <variant>
#include <vector>

#include "protocol/device_codec.hpp"
#include "protocol/limits.hpp"
#include "tools/mixer-sim/input_command.hpp"

namespace mixerd::sim {
namespace {

namespace asio = boost::asio;
namespace proto = mixerd::protocol;
using boost::system::error_code;

constexpr auto host_absent_retry = std::chrono::milliseconds(100);
constexpr auto demo_tick = std::chrono::milliseconds(100);
constexpr int demo_period_ticks = 200;  // one 0 -> 100 -> 0 sweep, i.e. 20 s
// A host that holds the port open but never reads must not make the queue grow without end.
constexpr std::size_t max_queued_lines = 1000;

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

// The firmware reads the number with atoi and clamps it, where the codec refuses values out of
// range; so an out-of-range brightness still gets its clamped ACK here.
std::optional<int> out_of_range_brightness(std::string_view line) {
  constexpr std::string_view key = "BRIGHTNESS,";
  if (line.substr(0, key.size()) != key) return std::nullopt;
  auto value = parse_bounded_int(line.substr(key.size()), std::numeric_limits<int>::min(),
                                 std::numeric_limits<int>::max());
  if (!value) return std::nullopt;
  return std::clamp(*value, 0, 100);
}

std::string encode(const proto::device_event& event) {
  return proto::encode_device_event(event);
}

std::system_error last_error(const char* what) {
  return std::system_error(errno, std::generic_category(), what);
}

class device_impl : public std::enable_shared_from_this<device_impl> {
 public:
  device_impl(asio::io_context& io, device_options options)
      : opt_(std::move(options)), master_(io), retry_timer_(io), demo_timer_(io) {}

  void start() {
    lock lk(mu_);
    plug();
    if (opt_.demo) start_demo();
  }

  void shutdown() {
    lock lk(mu_);
    if (stopped_) return;
    unplug();
    stopped_ = true;
    demo_timer_.cancel();
    remove_link();
  }

  std::string port_path() const {
    lock lk(mu_);
    return opt_.link_path.empty() ? pty_name_ : opt_.link_path;
  }

  std::string command(std::string_view text) {
    lock lk(mu_);
    if (stopped_) return "device is stopped";
    using k = input_command::kind;
    auto cmd = parse_input_command(text);
    switch (cmd.what) {
      case k::nothing:
        return {};
      case k::error:
        return cmd.text;
      case k::help:
        // The help text has no other way back through this interface; callers print it.
        return std::string(input_help());
      case k::demo_on:
      case k::demo_off:
        opt_.demo = cmd.what == k::demo_on;
        if (opt_.demo) start_demo();
        return {};
      case k::unplug:
        if (!plugged_) return "device is already unplugged";
        unplug();
        return {};
      case k::replug:
        if (plugged_) unplug();  // a quick re-seat of the cable
        try {
          plug();
        } catch (const std::system_error& e) {
          return std::string("replug failed: ") + e.what();
        }
        return {};
      case k::device_line:
      case k::raw_line:
        break;
    }
    if (!plugged_) return "device is unplugged";
    std::string line = cmd.what == k::raw_line ? cmd.text : encode(cmd.event);
    // Keep the device's own state in step with what it reports.
    if (auto* s = std::get_if<proto::dev_slider>(&cmd.event); s && cmd.what == k::device_line)
      sliders_[s->index] = s->value;
    if (auto* p = std::get_if<proto::dev_macro_page>(&cmd.event); p && cmd.what == k::device_line)
      macro_page_ = p->page;
    if (!send(line)) return "no host has the port open; " + line + " was dropped";
    return {};
  }

 private:
  using lock = std::lock_guard<std::recursive_mutex>;

  // Opens a fresh pty and serves it. Throws std::system_error.
  void plug() {
    int master = -1;
    int slave = -1;
    if (::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) throw last_error("openpty");
    // Raw before anyone opens it: a cooked slave would echo our own output back to us.
    termios tio{};
    if (::tcgetattr(slave, &tio) == 0) {
      ::cfmakeraw(&tio);
      ::tcsetattr(slave, TCSANOW, &tio);
    }
    ::close(slave);
    // Plugin processes spawned by mixerd must not keep the pty alive after an unplug.
    ::fcntl(master, F_SETFD, FD_CLOEXEC);
    std::array<char, 128> name{};
    if (::ptsname_r(master, name.data(), name.size()) != 0) {
      auto e = last_error("ptsname");
      ::close(master);
      throw e;
    }
    pty_name_ = name.data();
    try {
      point_link();
    } catch (...) {
      ::close(master);
      throw;
    }
    master_.assign(master);
    ++generation_;
    plugged_ = true;
    greeted_ = false;
    writing_ = false;
    out_.clear();
    splitter_.reset();
    start_read();
  }

  void unplug() {
    ++generation_;
    error_code ignored;
    retry_timer_.cancel();
    master_.close(ignored);
    plugged_ = false;
    writing_ = false;
    out_.clear();
    splitter_.reset();
  }

  // Re-points the link atomically, so a host never finds the path missing or half-made.
  void point_link() {
    if (opt_.link_path.empty()) return;
    std::string temp = opt_.link_path + ".tmp" + std::to_string(::getpid());
    ::unlink(temp.c_str());
    if (::symlink(pty_name_.c_str(), temp.c_str()) != 0) throw last_error("symlink");
    if (::rename(temp.c_str(), opt_.link_path.c_str()) != 0) {
      auto e = last_error("rename");
      ::unlink(temp.c_str());
      throw e;
    }
  }

  // Only our own link: another simulator may have taken the path over.
  void remove_link() {
    if (opt_.link_path.empty()) return;
    std::array<char, 256> target{};
    ssize_t n = ::readlink(opt_.link_path.c_str(), target.data(), target.size() - 1);
    if (n > 0 && std::string_view(target.data(), static_cast<std::size_t>(n)) == pty_name_) {
      ::unlink(opt_.link_path.c_str());
    }
  }

  // The master reports POLLHUP while no process has the slave open.
  bool host_present() {
    pollfd p{master_.native_handle(), POLLOUT, 0};
    return ::poll(&p, 1, 0) >= 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)) == 0;
  }

  void start_read() {
    master_.async_read_some(asio::buffer(read_buf_), [weak = weak_from_this(), gen = generation_](
                                                         error_code ec, std::size_t n) {
      if (auto self = weak.lock()) self->on_read(gen, ec, n);
    });
  }

  void on_read(unsigned gen, error_code ec, std::size_t n) {
    lock lk(mu_);
    if (stopped_ || !plugged_ || gen != generation_) return;
    if (ec) {
      // EIO: no process has the slave open (not yet, or the host closed it). The cable is still
      // in, so keep serving; drop what the old host left unread so the next one gets no stale
      // lines, and look again shortly (the master gives no event when a host opens it).
      ::tcflush(master_.native_handle(), TCOFLUSH);
      out_.clear();
      splitter_.reset();
      retry_timer_.expires_after(host_absent_retry);
      retry_timer_.async_wait([weak = weak_from_this(), gen](error_code wait_ec) {
        auto self = weak.lock();
        if (wait_ec || !self) return;
        lock lk2(self->mu_);
        if (!self->stopped_ && self->plugged_ && gen == self->generation_) self->start_read();
      });
      return;
    }
    splitter_.feed(std::string_view(read_buf_.data(), n),
                   [this](std::string_view line, bool overlong) { handle_line(line, overlong); });
    if (plugged_ && gen == generation_) start_read();
  }

  void handle_line(std::string_view received, bool overlong) {
    // Own copy: a trace callback that runs command("replug") resets the splitter's buffer.
    const std::string line(received);
    if (opt_.trace) opt_.trace("<-", line);
    if (!greeted_) {
      greeted_ = true;
      send(encode(proto::dev_state_connected{}));
    }
    // The firmware's buffer would have cut such a line; nothing sensible to answer.
    if (overlong) return;
    auto ack = [&] { send(encode(proto::dev_ack{line})); };
    std::visit(
        overloaded{
            [&](const proto::cmd_ready&) {
              send(encode(proto::dev_ack{"READY"}));
              send(encode(proto::dev_type{opt_.device_type}));
              send(encode(proto::dev_version{opt_.firmware_version, true}));
            },
            [&](const proto::cmd_ping&) { send(encode(proto::dev_pong{})); },
            [&](const proto::cmd_ver&) {
              send(encode(proto::dev_version{opt_.firmware_version, false}));
            },
            [&](const proto::cmd_dev_type&) { send(encode(proto::dev_type{opt_.device_type})); },
            [&](const proto::cmd_vol& c) {
              if (c.index >= 0 && c.index < limits::slider_count) {
                labels_[c.index] = c.label;
                sliders_[c.index] = std::clamp(c.volume, limits::volume_min, limits::volume_max);
              }
              ack();
            },
            [&](const proto::cmd_macro&) { ack(); },
            [&](const proto::cmd_brightness& c) { set_brightness(c.value); },
            [&](const proto::cmd_reboot&) {
              send("REBOOTING");
              // A rebooted firmware greets the next line again.
              greeted_ = false;
            },
            [&](const proto::cmd_mute& c) {
              if (c.index == proto::master_index) {
                master_muted_ = c.muted;
              } else if (c.index >= 0 && c.index < limits::mute_count) {
                mutes_[c.index] = c.muted;
              }
              ack();
            },
            [&](const proto::cmd_master& c) {
              master_volume_ = std::clamp(c.volume, limits::volume_min, limits::volume_max);
              ack();
            },
            [&](const proto::cmd_macro_page& c) {
              macro_page_ = c.page;
              ack();
            },
            [&](const proto::cmd_toast&) { ack(); },
            [&](const proto::cmd_unknown&) {
              if (auto value = out_of_range_brightness(line)) set_brightness(*value);
            },
        },
        proto::parse_host_line(line));
  }

  void set_brightness(int value) {
    brightness_ = std::clamp(value, 0, 100);
    send(encode(proto::dev_ack{"BRIGHTNESS," + std::to_string(brightness_)}));
  }

  // Queues one device line. A line nobody can read is dropped, as a USB CDC device drops output
  // while no host has the port open; returns false then.
  bool send(std::string line) {
    if (!plugged_ || !host_present()) return false;
    if (opt_.trace) opt_.trace("->", line);
    if (out_.size() >= max_queued_lines) out_.pop_front();
    line += '\n';
    out_.push_back(std::move(line));
    if (!writing_) write_next();
    return true;
  }

  void write_next() {
    if (out_.empty()) {
      writing_ = false;
      return;
    }
    writing_ = true;
    auto data = std::make_shared<std::string>(std::move(out_.front()));
    out_.pop_front();
    asio::async_write(
        master_, asio::buffer(*data),
        [weak = weak_from_this(), gen = generation_, data](error_code ec, std::size_t) {
          auto self = weak.lock();
          if (!self) return;
          lock lk(self->mu_);
          if (self->stopped_ || gen != self->generation_) return;
          if (ec) self->out_.clear();  // the host went away; nothing to deliver
          self->write_next();
        });
  }

  void start_demo() {
    if (demo_running_) return;
    demo_running_ = true;
    schedule_demo();
  }

  void schedule_demo() {
    demo_timer_.expires_after(demo_tick);
    demo_timer_.async_wait([weak = weak_from_this()](error_code ec) {
      auto self = weak.lock();
      if (ec || !self) return;
      lock lk(self->mu_);
      if (self->stopped_ || !self->opt_.demo) {
        self->demo_running_ = false;
        return;
      }
      self->demo_step();
      self->schedule_demo();
    });
  }

  // Each slider follows a triangle wave, a quarter period apart, one step per tick at most.
  void demo_step() {
    if (!plugged_) return;
    long t = demo_ticks_++;
    for (int i = 0; i < limits::slider_count; ++i) {
      long x = (t + i * demo_period_ticks / 4) % demo_period_ticks;
      int target = static_cast<int>(100 - std::labs(x - demo_period_ticks / 2));
      int& v = sliders_[i];
      if (v == target) continue;
      v += v < target ? 1 : -1;
      send(encode(proto::dev_slider{i, v}));
    }
  }

  device_options opt_;
  mutable std::recursive_mutex mu_;  // recursive: a trace callback may call command()
  asio::posix::stream_descriptor master_;
  asio::steady_timer retry_timer_;
  asio::steady_timer demo_timer_;
  std::string pty_name_;
  unsigned generation_ = 0;  // bumped on every (un)plug; handlers of an older pty do nothing
  bool plugged_ = false;
  bool stopped_ = false;
  bool greeted_ = false;  // STATE,CONNECTED sent since the last plug
  bool writing_ = false;
  bool demo_running_ = false;
  long demo_ticks_ = 0;
  proto::line_splitter splitter_;
  std::array<char, 1024> read_buf_{};
  std::deque<std::string> out_;

  // What the firmware would show; kept so the device behaves consistently (demo, VOL).
  std::array<int, limits::slider_count> sliders_{};
  std::array<std::string, limits::slider_count> labels_;
  std::array<bool, limits::mute_count> mutes_{};
  bool master_muted_ = false;
  int master_volume_ = 50;
  int macro_page_ = 0;
  int brightness_ = 100;
};

class device_handle final : public simulated_device {
 public:
  explicit device_handle(std::shared_ptr<device_impl> impl) : impl_(std::move(impl)) {}
  ~device_handle() override { impl_->shutdown(); }
  device_handle(const device_handle&) = delete;
  device_handle& operator=(const device_handle&) = delete;

  std::string port_path() const override { return impl_->port_path(); }
  std::string command(std::string_view line) override { return impl_->command(line); }

 private:
  std::shared_ptr<device_impl> impl_;
};

}  // namespace

std::unique_ptr<simulated_device> start_simulated_device(boost::asio::io_context& io,
                                                         device_options options) {
  auto impl = std::make_shared<device_impl>(io, std::move(options));
  impl->start();
  return std::make_unique<device_handle>(std::move(impl));
}

std::string_view command_help() {
  return input_help();
}

}  // namespace mixerd::sim
