#include "tools/mixerd/service_manager.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <caf/actor_system.hpp>
#include <caf/all.hpp>
#include <cerrno>
#include <condition_variable>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "actors/support/log.hpp"
#include "gateways/http/io_actor.hpp"

namespace mixerd {

namespace {

constexpr std::string_view component = "systemd";

// systemd's notify protocol (sd_notify(3)), spoken here rather than through libsystemd, which a
// daemon without the music capability would link for this alone: one datagram of "KEY=value"
// lines to the AF_UNIX socket named by $NOTIFY_SOCKET (a path, or "@" for an abstract name).
void notify(const std::string& state) {
  const char* name = std::getenv("NOTIFY_SOCKET");
  if (name == nullptr || *name == '\0') return;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::size_t length = std::strlen(name);
  if ((name[0] != '/' && name[0] != '@') || length >= sizeof(address.sun_path)) {
    log::warn(component, "NOTIFY_SOCKET is not a socket path: ", name);
    return;
  }
  std::memcpy(address.sun_path, name, length);
  if (name[0] == '@') address.sun_path[0] = '\0';  // an abstract socket
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    log::warn(component, "notify failed: ", std::strerror(errno));
    return;
  }
  const auto size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + length);
  if (::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL,
               reinterpret_cast<const sockaddr*>(&address), size) < 0)
    log::warn(component, "notify failed: ", std::strerror(errno));
  ::close(fd);
}

// sd_watchdog_enabled(3): the watchdog period from $WATCHDOG_USEC, when $WATCHDOG_PID (if set)
// names this process.
std::optional<std::chrono::microseconds> watchdog_period() {
  const char* usec = std::getenv("WATCHDOG_USEC");
  if (usec == nullptr) return std::nullopt;
  char* end = nullptr;
  const auto value = std::strtoull(usec, &end, 10);
  if (end == usec || *end != '\0' || value == 0) return std::nullopt;
  if (const char* pid = std::getenv("WATCHDOG_PID"); pid != nullptr && *pid != '\0') {
    const auto owner = std::strtoll(pid, &end, 10);
    if (*end != '\0' || owner != static_cast<long long>(::getpid())) return std::nullopt;
  }
  return std::chrono::microseconds(value);
}

}  // namespace

struct liveness_watchdog::round {
  std::size_t pending = 0;
  bool failed = false;
};

liveness_watchdog::liveness_watchdog(boost::asio::io_context& io, http::io_actor& io_actor,
                                     std::vector<caf::actor> probed,
                                     std::chrono::milliseconds interval,
                                     std::function<void()> alive)
    : timer_(io),
      io_actor_(io_actor),
      probed_(std::move(probed)),
      interval_(interval),
      alive_(std::move(alive)) {}

liveness_watchdog::~liveness_watchdog() {
  stop();
}

void liveness_watchdog::start() {
  tick();
}

void liveness_watchdog::stop() {
  timer_.cancel();
  current_.reset();
}

void liveness_watchdog::tick() {
  if (current_ && current_->pending > 0) {
    if (!unanswered_logged_)
      log::warn(component, current_->pending, " of ", probed_.size(),
                " actors did not answer within ", interval_.count(),
                " ms: no WATCHDOG=1 until they answer again");
    unanswered_logged_ = true;
  }
  probe();
  timer_.expires_after(interval_);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) tick();
  });
}

void liveness_watchdog::probe() {
  auto r = std::make_shared<round>();
  r->pending = probed_.size();
  current_ = r;
  std::weak_ptr<round> weak = r;
  // Runs on the io thread for each answer of this round; an answer to an older round finds
  // the round gone or replaced.
  auto answered = [this, weak](bool ok) {
    auto r = weak.lock();
    if (!r || r != current_ || r->pending == 0) return;
    r->failed = r->failed || !ok;
    if (--r->pending > 0 || r->failed) return;
    if (unanswered_logged_) log::info(component, "every actor answers again");
    unanswered_logged_ = false;
    alive_();
  };
  if (probed_.empty()) return alive_();
  for (const auto& actor : probed_) {
    // CAF answers (sys, get, "info") from the actor's own mailbox, before its behaviour:
    // (ok, "info", handle, name).
    io_actor_.request(actor, interval_, caf::sys_atom_v, caf::get_atom_v, std::string{"info"})
        .then([answered](caf::ok_atom, const std::string&, const caf::strong_actor_ptr&,
                         const std::string&) { answered(true); },
              [answered](caf::error&) { answered(false); });
  }
}

service_manager::service_manager(boost::asio::io_context& io, http::io_actor& io_actor,
                                 std::vector<caf::actor> probed)
    : io_(io), io_actor_(io_actor), probed_(std::move(probed)) {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  notify_ = socket != nullptr && *socket != '\0';
  if (!notify_) return;
  watchdog_period_ = watchdog_period();
}

service_manager::~service_manager() = default;

void service_manager::ready(const std::string& status) {
  if (!notify_) return;
  notify("READY=1\nSTATUS=" + status);
  log::info(component, "READY=1 sent");
  if (!watchdog_period_) return;
  // systemd's own advice: ping at half the period, so one late ping is not fatal.
  const auto interval =
      std::max(std::chrono::milliseconds(1),
               std::chrono::duration_cast<std::chrono::milliseconds>(*watchdog_period_ / 2));
  watchdog_ = std::make_unique<liveness_watchdog>(io_, io_actor_, probed_, interval,
                                                  [] { notify("WATCHDOG=1"); });
  log::info(component, "watchdog: WATCHDOG=1 every ", interval.count(), " ms while ",
            probed_.size(), " actors and the io thread answer");
  watchdog_->start();
}

void service_manager::stopping() {
  if (!notify_) return;
  if (watchdog_) watchdog_->stop();
  notify("STOPPING=1\nSTATUS=stopping");
}

struct test_wedge::gate {
  std::mutex mutex;
  std::condition_variable opened;
  bool open = true;
};

namespace {

// Blocks the worker running it until the gate opens: a stuck cooperative actor.
caf::behavior wedge_behavior(caf::event_based_actor*, std::shared_ptr<test_wedge::gate> gate);

}  // namespace

test_wedge::test_wedge(boost::asio::io_context& io, caf::actor_system& sys) {
  const char* on = std::getenv("MIXERD_TEST_WEDGE_ON_SIGNAL");
  if (on == nullptr || std::string_view(on) != "1") return;
  gate_ = std::make_shared<gate>();
  blocker_ = sys.spawn(wedge_behavior, gate_);
  signal_.emplace(io, SIGUSR2);
  log::warn(component, "test hook MIXERD_TEST_WEDGE_ON_SIGNAL: SIGUSR2 wedges the actors");
  wait_signal();
}

test_wedge::~test_wedge() {
  release();
}

void test_wedge::wait_signal() {
  signal_->async_wait([this](const boost::system::error_code& ec, int) {
    if (ec) return;
    bool wedge = false;
    {
      std::lock_guard<std::mutex> lock(gate_->mutex);
      wedge = gate_->open;
      gate_->open = !wedge;
    }
    if (wedge) {
      log::warn(component, "test hook: SIGUSR2: an actor blocks the cooperative actors");
      caf::anon_send(blocker_, caf::ok_atom_v);
    } else {
      gate_->opened.notify_all();
      log::warn(component, "test hook: SIGUSR2: the blocked actor goes on");
    }
    wait_signal();
  });
}

void test_wedge::release() {
  if (!gate_) return;
  signal_->cancel();
  {
    std::lock_guard<std::mutex> lock(gate_->mutex);
    gate_->open = true;
  }
  gate_->opened.notify_all();
  caf::anon_send_exit(blocker_, caf::exit_reason::user_shutdown);
  gate_.reset();
}

namespace {

caf::behavior wedge_behavior(caf::event_based_actor*, std::shared_ptr<test_wedge::gate> gate) {
  return {[gate](caf::ok_atom) {
    std::unique_lock<std::mutex> lock(gate->mutex);
    gate->opened.wait(lock, [&] { return gate->open; });
  }};
}

}  // namespace

}  // namespace mixerd
