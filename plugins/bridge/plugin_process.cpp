#include "plugins/bridge/plugin_process.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <caf/send.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>

#include "actors/support/child_processes.hpp"
#include "actors/support/log.hpp"
#include "actors/support/spawn_attributes.hpp"
#include "plugins/bridge/plugin_leftovers.hpp"
#include "protocol/plugins.hpp"

namespace mixerd {

namespace asio = boost::asio;

// ---- The I/O thread ----------------------------------------------------------------------------

// The orphans the daemon adopts as a child subreaper are reaped this often.
constexpr auto orphan_reaping_period = std::chrono::seconds(1);

struct plugin_io::impl {
  asio::io_context io{1};
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  asio::steady_timer orphans{io};
  std::thread thread{[this] {
    // A write to a plugin that has just ended fails with EPIPE instead of raising SIGPIPE,
    // whether or not the program ignores that signal (mixerd does; a test binary need not).
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    io.run();
  }};
};

namespace {

void reap_orphans_periodically(asio::steady_timer& timer) {
  timer.expires_after(orphan_reaping_period);
  timer.async_wait([&timer](const boost::system::error_code& ec) {
    if (ec) return;
    reap_adopted_orphans();
    reap_orphans_periodically(timer);
  });
}

}  // namespace

plugin_io::plugin_io() : impl_(std::make_unique<impl>()) {
  // What a plugin leaves behind must stay findable under the daemon (plugin_leftovers.hpp).
  if (!become_child_subreaper())
    log::warn("plugins", "cannot become a child subreaper (", std::strerror(errno),
              "): a plugin's double-forked processes reparent to init and outlive it");
  asio::post(impl_->io, [&timer = impl_->orphans] { reap_orphans_periodically(timer); });
}

plugin_io::~plugin_io() {
  impl_->work.reset();
  impl_->io.stop();
  impl_->thread.join();
  // impl_'s io_context is destroyed next: the handlers it still holds release their processes,
  // which kill and reap what still runs.
}

asio::io_context& plugin_io::context() {
  return impl_->io;
}

namespace {

using clock = std::chrono::steady_clock;

// After its output closed, a process gets this long to exit before it is killed.
constexpr auto exit_grace = std::chrono::seconds(2);
constexpr auto reap_poll = std::chrono::milliseconds(20);
// After the exit, what is left on standard error is read for this long at most (a grandchild
// may hold it open).
constexpr auto stderr_drain = std::chrono::milliseconds(200);

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "ended by signal " + std::to_string(WTERMSIG(status));
  return "ended";
}

class process final : public plugin_process, public std::enable_shared_from_this<process> {
 public:
  process(asio::io_context& io, plugin_process_spec spec)
      : io_(io),
        spec_(std::move(spec)),
        log_component_("plugin " + spec_.id),
        in_(io),
        out_(io),
        err_(io),
        reap_timer_(io),
        drain_timer_(io),
        leftovers_(log_component_, plugin_mark(spec_.id)) {}

  ~process() override {
    // Only when the I/O thread goes away first: nothing is left behind.
    if (pid_ > 0) {
      leftovers_.look();
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      forget_child(pid_);
    }
    if (!reaped_) leftovers_.kill_now();
  }

  void send(std::string line) override {
    asio::post(io_, [self = shared_from_this(), line = std::move(line)]() mutable {
      self->queue_line(std::move(line));
    });
  }

  void close_input() override {
    asio::post(io_, [self = shared_from_this()] {
      // The process is asked to end: what it started is found while it still runs (its
      // children's parent is known only until it ends).
      if (self->pid_ > 0 && !self->ended_) self->leftovers_.look();
      self->closing_input_ = true;
      if (!self->writing_) self->shut_input();
    });
  }

  void kill(std::string reason) override {
    asio::post(io_, [self = shared_from_this(), reason = std::move(reason)]() mutable {
      self->kill_now(std::move(reason));
    });
  }

  void start() {
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0) return not_started("no pipe");
    if (::pipe2(out, O_CLOEXEC) != 0) {
      close_pair(in);
      return not_started("no pipe");
    }
    if (::pipe2(err, O_CLOEXEC) != 0) {
      close_pair(in);
      close_pair(out);
      return not_started("no pipe");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    posix_spawn_file_actions_addchdir_np(&actions, spec_.folder.c_str());
    // A session of its own: its id marks everything the plugin starts (plugin_leftovers.hpp).
    const spawn_attributes attr(spawn_grouping::own_session);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(spec_.program.c_str()));
    for (const auto& a : spec_.args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    auto environment = plugin_environment(spec_.sdk_dir, spec_.id);
    std::vector<char*> envp;
    for (auto& e : environment)
      envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = 0;
    const int rc = spawn_registered_child(pid, [&](pid_t* out) {
      return ::posix_spawn(out, spec_.program.c_str(), &actions, attr.get(), argv.data(),
                           envp.data());
    });
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    if (rc != 0) {
      ::close(in[1]);
      ::close(out[0]);
      ::close(err[0]);
      return not_started(std::string("could not start ") + spec_.program + ": " +
                         std::strerror(rc));
    }
    pid_ = pid;
    leftovers_.set_host(pid);
    in_.assign(in[1]);
    out_.assign(out[0]);
    err_.assign(err[0]);
    read_output();
    read_errors();
  }

 private:
  static void close_pair(int fds[2]) {
    ::close(fds[0]);
    ::close(fds[1]);
  }

  void not_started(std::string reason) {
    log::error(log_component_, reason);
    report_end(std::move(reason));
  }

  void queue_line(std::string line) {
    if (ended_ || input_closed_ || closing_input_) return;
    if (queued_bytes_ + line.size() + 1 > max_queued_bytes)
      return kill_now("it did not read its input (over 8 MiB waiting)");
    line += '\n';
    queued_bytes_ += line.size();
    queue_.push_back(std::move(line));
    if (!writing_) write_next();
  }

  void write_next() {
    if (queue_.empty()) {
      writing_ = false;
      if (closing_input_) shut_input();
      return;
    }
    writing_ = true;
    asio::async_write(
        in_, asio::buffer(queue_.front()),
        [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
          self->queued_bytes_ -= self->queue_.front().size();
          self->queue_.pop_front();
          if (ec) {
            // The process closed its input (or ended): what is left is dropped;
            // its end shows on its output.
            self->queue_.clear();
            self->queued_bytes_ = 0;
            self->writing_ = false;
            self->shut_input();
            return;
          }
          self->write_next();
        });
  }

  void shut_input() {
    if (input_closed_) return;
    input_closed_ = true;
    boost::system::error_code ignored;
    in_.close(ignored);
  }

  void read_output() {
    out_.async_read_some(
        asio::buffer(out_buffer_),
        [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
          if (self->ended_) return;
          if (!self->take_output(std::string_view(self->out_buffer_.data(), n))) return;
          if (ec) return self->output_closed();
          self->read_output();
        });
  }

  // Cuts lines; false when the process was killed for what it wrote.
  bool take_output(std::string_view bytes) {
    while (!bytes.empty()) {
      auto nl = bytes.find('\n');
      auto part = bytes.substr(0, nl);
      if (out_pending_.size() + part.size() > plugins::max_line_bytes) {
        kill_now("it wrote a line over 1 MiB");
        return false;
      }
      out_pending_.append(part);
      if (nl == std::string_view::npos) break;
      bytes.remove_prefix(nl + 1);
      const auto now = clock::now();
      if (now - window_start_ >= std::chrono::seconds(1)) {
        window_start_ = now;
        window_lines_ = 0;
      }
      if (++window_lines_ > max_output_lines_per_second) {
        kill_now("flooding: over " + std::to_string(max_output_lines_per_second) +
                 " lines within one second");
        return false;
      }
      caf::anon_send(spec_.owner, plugin_output{spec_.id, spec_.gen, std::move(out_pending_)});
      out_pending_.clear();
    }
    return true;
  }

  void read_errors() {
    err_.async_read_some(
        asio::buffer(err_buffer_),
        [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
          self->take_errors(std::string_view(self->err_buffer_.data(), n));
          if (ec) {
            self->errors_closed_ = true;
            if (self->reaped_) self->finish();
            return;
          }
          self->read_errors();
        });
  }

  void take_errors(std::string_view bytes) {
    while (!bytes.empty()) {
      auto nl = bytes.find('\n');
      auto part = bytes.substr(0, nl);
      if (!err_discarding_) {
        auto room = plugins::max_stderr_line_bytes - err_pending_.size();
        err_pending_.append(part.substr(0, room));
        if (part.size() > room) err_discarding_ = true;
      }
      if (nl == std::string_view::npos) break;
      bytes.remove_prefix(nl + 1);
      log_error_line();
    }
  }

  void log_error_line() {
    for (auto& c : err_pending_)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    const auto now = clock::now();
    if (now - log_window_start_ >= std::chrono::seconds(1)) {
      if (log_dropped_ > 0)
        log::warn(log_component_, log_dropped_, " lines of standard error not logged (over ",
                  max_log_lines_per_second, " a second)");
      log_window_start_ = now;
      log_lines_ = 0;
      log_dropped_ = 0;
    }
    if (++log_lines_ <= max_log_lines_per_second)
      log::info(log_component_, err_pending_);
    else
      ++log_dropped_;
    err_pending_.clear();
    err_discarding_ = false;
  }

  // Standard output closed: the process is ending; it gets exit_grace to exit.
  void output_closed() {
    if (!out_pending_.empty()) {
      caf::anon_send(spec_.owner, plugin_output{spec_.id, spec_.gen, std::move(out_pending_)});
      out_pending_.clear();
    }
    output_closed_at_ = clock::now();
    reap();
  }

  void kill_now(std::string reason) {
    if (ended_ || pid_ <= 0) return;
    if (kill_reason_.empty()) kill_reason_ = std::move(reason);
    leftovers_.look();
    ::kill(-pid_, SIGKILL);
    reap();
  }

  void reap() {
    if (reaping_ || pid_ <= 0) return;
    reaping_ = true;
    poll_exit();
  }

  void poll_exit() {
    int status = 0;
    const pid_t got = ::waitpid(pid_, &status, WNOHANG);
    if (got == 0) {
      if (kill_reason_.empty() && clock::now() - output_closed_at_ > exit_grace) {
        kill_reason_ = "it closed its output but did not exit";
        leftovers_.look();
        ::kill(-pid_, SIGKILL);
      }
      reap_timer_.expires_after(reap_poll);
      reap_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
        if (!ec) self->poll_exit();
      });
      return;
    }
    // Whatever the plugin started in its group goes with it; the rest of what it left (other
    // sessions, double forks) gets SIGTERM next.
    ::kill(-pid_, SIGKILL);
    forget_child(pid_);
    exit_reason_ = kill_reason_.empty()
                       ? (got == pid_ ? describe_status(status) : std::string("ended"))
                       : kill_reason_;
    pid_ = -1;
    end_leftovers();
  }

  // Polls until nothing the plugin left runs; plugin_ended comes after that, so a restarted
  // plugin never meets its predecessor's processes.
  void end_leftovers() {
    if (!leftovers_.end_step(clock::now())) {
      reap_timer_.expires_after(reap_poll);
      reap_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
        if (!ec) self->end_leftovers();
      });
      return;
    }
    // They were re-parented to the daemon: their zombies are its to reap.
    reap_adopted_orphans();
    reaped_ = true;
    if (errors_closed_) return finish();
    drain_timer_.expires_after(stderr_drain);
    drain_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) self->finish();
    });
  }

  void finish() {
    if (ended_) return;
    if (!err_pending_.empty()) log_error_line();
    boost::system::error_code ignored;
    drain_timer_.cancel();
    reap_timer_.cancel();
    in_.close(ignored);
    out_.close(ignored);
    err_.close(ignored);
    report_end(exit_reason_);
  }

  void report_end(std::string reason) {
    if (ended_) return;
    ended_ = true;
    caf::anon_send(spec_.owner, plugin_ended{spec_.id, spec_.gen, std::move(reason)});
  }

  asio::io_context& io_;
  plugin_process_spec spec_;
  std::string log_component_;
  asio::posix::stream_descriptor in_;
  asio::posix::stream_descriptor out_;
  asio::posix::stream_descriptor err_;
  asio::steady_timer reap_timer_;
  asio::steady_timer drain_timer_;
  std::array<char, 64 * 1024> out_buffer_{};
  std::array<char, 8 * 1024> err_buffer_{};
  std::deque<std::string> queue_;
  std::size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool closing_input_ = false;
  bool input_closed_ = false;
  std::string out_pending_;
  std::string err_pending_;
  bool err_discarding_ = false;
  clock::time_point window_start_{};
  int window_lines_ = 0;
  clock::time_point log_window_start_{};
  int log_lines_ = 0;
  int log_dropped_ = 0;
  clock::time_point output_closed_at_ = clock::now();
  pid_t pid_ = -1;
  bool reaping_ = false;
  bool reaped_ = false;  // the process was reaped and nothing it left runs
  bool errors_closed_ = false;
  bool ended_ = false;
  std::string kill_reason_;
  std::string exit_reason_;
  plugin_leftovers leftovers_;
};

}  // namespace

std::vector<std::string> plugin_environment(const std::string& sdk_dir, const std::string& id) {
  std::vector<std::string> env;
  for (const char* name : {"PATH", "HOME", "LANG"})
    if (const char* value = std::getenv(name)) env.push_back(std::string(name) + "=" + value);
  env.push_back("PYTHONPATH=" + sdk_dir);
  env.push_back("PYTHONUNBUFFERED=1");
  env.push_back("PYTHONDONTWRITEBYTECODE=1");
  env.push_back(plugin_mark(id));
  return env;
}

std::shared_ptr<plugin_process> start_plugin_process(plugin_io& io, plugin_process_spec spec) {
  auto p = std::make_shared<process>(io.context(), std::move(spec));
  asio::post(io.context(), [p] { p->start(); });
  return p;
}

}  // namespace mixerd
