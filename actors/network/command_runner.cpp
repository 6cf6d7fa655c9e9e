#include "actors/network/command_runner.hpp"

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

extern char** environ;

namespace mixerd {

namespace {

namespace asio = boost::asio;

// A child that closed its output gets this long to exit before it is killed.
constexpr auto exit_grace = std::chrono::milliseconds(200);
constexpr auto reap_poll = std::chrono::milliseconds(20);
constexpr int reap_polls_max = 250;  // 5 s after the kill: a child stuck in the kernel is left

class run : public std::enable_shared_from_this<run> {
 public:
  run(asio::io_context& io, std::size_t max_bytes, std::function<void(command_output)> done)
      : pipe_(io), timer_(io), max_bytes_(max_bytes), done_(std::move(done)) {}

  ~run() {
    // Only when the io_context goes away first (daemon shutdown): no child is left behind.
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  void start(const std::string& program, const std::string& argv0,
             const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return finish(false);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigset_t all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(argv0.c_str()));
    for (const auto& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(fds[1]);
    if (rc != 0) {
      ::close(fds[0]);
      return finish(false);
    }
    pid_ = pid;
    pipe_.assign(fds[0]);
    timer_.expires_after(timeout);
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) self->finish(false);
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
          if (ec) return self->finish(ec == asio::error::eof);
          self->read();
        });
  }

  void finish(bool complete) {
    if (finished_) return;
    finished_ = true;
    output_.complete = complete;
    boost::system::error_code ignored;
    timer_.cancel();
    pipe_.close(ignored);
    auto done = std::move(done_);
    done(std::move(output_));
    if (pid_ > 0) reap(complete ? 0 : -1);
  }

  // Polls for the child's exit without blocking the io thread; kills it when it lingers.
  // `polls` counts from 0 for a child that closed its output, from -1 for one to kill now.
  void reap(int polls) {
    if (::waitpid(pid_, nullptr, WNOHANG) != 0) {
      pid_ = -1;  // exited and reaped (or not ours any more)
      return;
    }
    if (polls < 0 || polls * reap_poll == exit_grace) ::kill(pid_, SIGKILL);
    if (polls > reap_polls_max) {
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
  std::size_t max_bytes_;
  std::function<void(command_output)> done_;
  command_output output_;
  std::array<char, 4096> buffer_{};
  pid_t pid_ = -1;
  bool finished_ = false;
};

}  // namespace

void run_command(asio::io_context& io, std::string program, std::string argv0,
                 std::vector<std::string> args, std::chrono::milliseconds timeout,
                 std::size_t max_bytes, std::function<void(command_output)> done) {
  auto r = std::make_shared<run>(io, max_bytes, std::move(done));
  asio::post(io, [r, program = std::move(program), argv0 = std::move(argv0), args = std::move(args),
                  timeout] { r->start(program, argv0, args, timeout); });
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
