#include "actors/support/program_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>

#include "actors/support/child_processes.hpp"
#include "actors/support/spawn_attributes.hpp"

extern char** environ;

namespace mixerd {

namespace {

namespace asio = boost::asio;

// A child that closed its output gets this long to exit before it is killed.
constexpr auto exit_grace = std::chrono::milliseconds(200);
constexpr auto reap_poll = std::chrono::milliseconds(20);
constexpr int reap_polls_max = 250;  // 5 s after the kill: a child stuck in the kernel is left
// A program that closed its output but runs on (wait_for_exit) is looked at this often.
constexpr auto exit_poll_interval = std::chrono::milliseconds(20);

class run : public std::enable_shared_from_this<run> {
 public:
  run(asio::io_context& io, std::size_t max_bytes, bool wait_for_exit,
      std::function<void(program_output)> done)
      : pipe_(io),
        timer_(io),
        exit_poll_(io),
        max_bytes_(max_bytes),
        wait_for_exit_(wait_for_exit),
        done_(std::move(done)) {}

  ~run() {
    // Only when the io_context goes away first (daemon shutdown): no child is left behind.
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      forget_child(pid_);
    }
  }

  void start(const program_spec& spec) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return not_started();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    if (spec.with_stderr)
      posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    else
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    const spawn_attributes attr;
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(spec.argv0.c_str()));
    for (const auto& a : spec.args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = spawn_registered_child(pid, [&](pid_t* out) {
      return ::posix_spawn(out, spec.program.c_str(), &actions, attr.get(), argv.data(), environ);
    });
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
      ::close(fds[0]);
      return not_started();
    }
    pid_ = pid;
    pipe_.assign(fds[0]);
    timer_.expires_after(spec.timeout);
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec) return;
      self->output_.timed_out = true;
      self->finish(false);
    });
    read();
  }

 private:
  void read() {
    pipe_.async_read_some(
        asio::buffer(buffer_),
        [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
          if (self->finished_) return;
          self->output_.text.append(self->buffer_.data(), n);
          if (self->output_.text.size() > self->max_bytes_) {
            self->output_.text.resize(self->max_bytes_);
            return self->finish(false);
          }
          if (ec && ec == asio::error::eof && self->wait_for_exit_) return self->await_exit();
          if (ec) return self->finish(ec == asio::error::eof);
          self->read();
        });
  }

  void not_started() {
    output_.not_started = true;
    finish(false);
  }

  // The output is closed; the program is given the rest of its time to exit.
  void await_exit() {
    int status = 0;
    pid_t got = ::waitpid(pid_, &status, WNOHANG);
    if (got == 0) {
      exit_poll_.expires_after(exit_poll_interval);
      exit_poll_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
        if (!ec && !self->finished_) self->await_exit();
      });
      return;
    }
    if (got == pid_) {
      if (WIFEXITED(status)) output_.exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) output_.exit_signal = WTERMSIG(status);
    }
    forget_child(pid_);
    pid_ = -1;  // reaped (or not ours any more)
    finish(true);
  }

  void finish(bool complete) {
    if (finished_) return;
    finished_ = true;
    output_.complete = complete;
    boost::system::error_code ignored;
    timer_.cancel();
    exit_poll_.cancel();
    pipe_.close(ignored);
    auto done = std::move(done_);
    done(std::move(output_));
    if (pid_ > 0) reap(complete ? 0 : -1);
  }

  // Polls for the child's exit without blocking the io thread; kills it when it lingers.
  // `polls` counts from 0 for a child that closed its output, from -1 for one to kill now.
  void reap(int polls) {
    if (::waitpid(pid_, nullptr, WNOHANG) != 0) {
      forget_child(pid_);
      pid_ = -1;  // exited and reaped (or not ours any more)
      return;
    }
    if (polls < 0 || polls * reap_poll == exit_grace) ::kill(pid_, SIGKILL);
    if (polls > reap_polls_max) {
      // Given up: should it ever exit, reap_adopted_orphans takes it like an orphan.
      forget_child(pid_);
      pid_ = -1;
      return;
    }
    timer_.expires_after(reap_poll);
    timer_.async_wait([self = shared_from_this(), polls](const boost::system::error_code& ec) {
      if (!ec) self->reap(polls < 0 ? 1 : polls + 1);
    });
  }

  asio::posix::stream_descriptor pipe_;
  asio::steady_timer timer_;
  asio::steady_timer exit_poll_;
  std::size_t max_bytes_;
  bool wait_for_exit_;
  std::function<void(program_output)> done_;
  program_output output_;
  std::array<char, 4096> buffer_{};
  pid_t pid_ = -1;
  bool finished_ = false;
};

}  // namespace

void run_program(asio::io_context& io, program_spec spec,
                 std::function<void(program_output)> done) {
  auto r = std::make_shared<run>(io, spec.max_bytes, spec.wait_for_exit, std::move(done));
  asio::post(io, [r, spec = std::move(spec)] { r->start(spec); });
}

void run_program(asio::io_context& io, std::string program, std::string argv0,
                 std::vector<std::string> args, std::chrono::milliseconds timeout,
                 std::size_t max_bytes, std::function<void(program_output)> done) {
  program_spec spec;
  spec.program = std::move(program);
  spec.argv0 = std::move(argv0);
  spec.args = std::move(args);
  spec.timeout = timeout;
  spec.max_bytes = max_bytes;
  run_program(io, std::move(spec), std::move(done));
}

std::string find_in_path(const std::string& name, const char* path_variable) {
  if (path_variable == nullptr || name.empty() || name.find('/') != std::string::npos) return {};
  std::string_view path = path_variable;
  while (true) {
    auto end = path.find(':');
    auto dir = path.substr(0, end);
    if (!dir.empty()) {
      std::string candidate = std::string(dir) + "/" + name;
      struct stat st {};
      if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
          ::access(candidate.c_str(), X_OK) == 0)
        return candidate;
    }
    if (end == std::string_view::npos) break;
    path.remove_prefix(end + 1);
  }
  return {};
}

}  // namespace mixerd
