// The simulated device seen from the host side of its pty: the tests open the port like mixerd
// does and check the firmware answers, the input commands and unplug/replug.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <cerrno>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/unit/support/files.hpp"
#include "tools/mixer-sim/simulated_device.hpp"

namespace {

namespace asio = boost::asio;
using mixerd::sim::device_options;

constexpr int read_timeout_ms = 2000;

// The device on its own io thread, as mixerd --simulate runs it.
struct running_device {
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work = asio::make_work_guard(io);
  std::unique_ptr<mixerd::sim::simulated_device> device;
  std::thread runner;

  explicit running_device(device_options options = {})
      : device(mixerd::sim::start_simulated_device(io, std::move(options))),
        runner([this] { io.run(); }) {}
  ~running_device() {
    device.reset();
    work.reset();
    io.stop();
    runner.join();
  }
  std::string command(std::string_view line) { return device->command(line); }
};

enum class outcome { line, timeout, hangup };

struct read_result {
  outcome what = outcome::timeout;
  std::string text;
};

// The host end: the pty opened like a serial port.
class host_port {
 public:
  explicit host_port(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_NOCTTY)) {
    if (fd_ < 0) return;
    termios tio{};
    ::tcgetattr(fd_, &tio);
    ::cfmakeraw(&tio);
    ::tcsetattr(fd_, TCSANOW, &tio);
  }
  ~host_port() { close(); }
  host_port(const host_port&) = delete;
  host_port& operator=(const host_port&) = delete;

  bool is_open() const { return fd_ >= 0; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  bool write_line(const std::string& line) {
    std::string data = line + "\n";
    return ::write(fd_, data.data(), data.size()) == static_cast<ssize_t>(data.size());
  }

  read_result read_line() {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(read_timeout_ms);
    for (;;) {
      if (auto end = pending_.find('\n'); end != std::string::npos) {
        read_result r{outcome::line, pending_.substr(0, end)};
        pending_.erase(0, end + 1);
        return r;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) return {};
      pollfd p{fd_, POLLIN, 0};
      int n = ::poll(&p, 1, static_cast<int>(left));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return {};
      char buf[512];
      ssize_t got = ::read(fd_, buf, sizeof buf);
      if (got > 0) {
        pending_.append(buf, static_cast<std::size_t>(got));
      } else if (got == 0 || errno == EIO) {
        return {outcome::hangup, {}};
      }
    }
  }

  // The next line, or a description of why there is none, for readable CHECK failures.
  std::string next() {
    auto r = read_line();
    if (r.what == outcome::timeout) return "<timeout>";
    if (r.what == outcome::hangup) return "<hangup>";
    return r.text;
  }

 private:
  int fd_;
  std::string pending_;
};

void check_handshake(host_port& host) {
  REQUIRE(host.write_line("READY"));
  CHECK(host.next() == "STATE,CONNECTED");
  CHECK(host.next() == "ACK,READY");
  CHECK(host.next() == "DEV_TYPE,Mixlar Mix");
  CHECK(host.next() == "FW_VER,2.0.0");
}

std::string link_target(const std::string& link) {
  char buf[256];
  ssize_t n = ::readlink(link.c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

TEST_CASE("simulated device answers the handshake like the firmware") {
  running_device sim;
  host_port host(sim.device->port_path());
  REQUIRE(host.is_open());
  check_handshake(host);

  host.write_line("PING");
  CHECK(host.next() == "PONG");
  host.write_line("VER");
  CHECK(host.next() == "VER,2.0.0");
  host.write_line("DEV_TYPE");
  CHECK(host.next() == "DEV_TYPE,Mixlar Mix");
  host.write_line("VOL,0,Music,50");
  CHECK(host.next() == "ACK,VOL,0,Music,50");
  host.write_line("MACRO,3,Mic\\, off,");
  CHECK(host.next() == "ACK,MACRO,3,Mic\\, off,");
  host.write_line("MUTE,MASTER,1");
  CHECK(host.next() == "ACK,MUTE,MASTER,1");
  host.write_line("MASTER,40");
  CHECK(host.next() == "ACK,MASTER,40");
  host.write_line("MPAGE,2");
  CHECK(host.next() == "ACK,MPAGE,2");
  host.write_line("BRIGHTNESS,150");
  CHECK(host.next() == "ACK,BRIGHTNESS,100");
  host.write_line("BRIGHTNESS,30");
  CHECK(host.next() == "ACK,BRIGHTNESS,30");
  // Unknown lines get no answer: the next answer is the PING's.
  host.write_line("ENTER_QA");
  host.write_line("PING");
  CHECK(host.next() == "PONG");
  host.write_line("REBOOT");
  CHECK(host.next() == "REBOOTING");
}

TEST_CASE("simulated device greets the first line whatever it is") {
  running_device sim;
  host_port host(sim.device->port_path());
  REQUIRE(host.is_open());
  host.write_line("PING");
  CHECK(host.next() == "STATE,CONNECTED");
  CHECK(host.next() == "PONG");
  host.write_line("PING");
  CHECK(host.next() == "PONG");
}

TEST_CASE("simulated device accepts carriage returns and a firmware option") {
  device_options options;
  options.firmware_version = "9.9.9";
  running_device sim(options);
  host_port host(sim.device->port_path());
  REQUIRE(host.is_open());
  host.write_line("VER\r");
  CHECK(host.next() == "STATE,CONNECTED");
  CHECK(host.next() == "VER,9.9.9");
}

TEST_CASE("simulated device sends input commands with wire indices") {
  running_device sim;
  host_port host(sim.device->port_path());
  REQUIRE(host.is_open());
  check_handshake(host);

  CHECK(sim.command("slider 2 57") == "");
  CHECK(host.next() == "SLIDER,1,57");
  CHECK(sim.command("mute master") == "");
  CHECK(host.next() == "MUTE,MASTER,PRESS");
  CHECK(sim.command("mute 1") == "");
  CHECK(host.next() == "MUTE,0,PRESS");
  CHECK(sim.command("press 9") == "");
  CHECK(host.next() == "MACRO,8,PRESS");
  CHECK(sim.command("release 1") == "");
  CHECK(host.next() == "MACRO,0,RELEASE");
  CHECK(sim.command("encoder -2") == "");
  CHECK(host.next() == "ENCODER,-2");
  CHECK(sim.command("encoder +3") == "");
  CHECK(host.next() == "ENCODER,3");
  CHECK(sim.command("encoder press") == "");
  CHECK(host.next() == "ENCODER,PRESS");
  CHECK(sim.command("encoder release") == "");
  CHECK(host.next() == "ENCODER,RELEASE");
  CHECK(sim.command("page MAIN") == "");
  CHECK(host.next() == "PAGE,MAIN");
  CHECK(sim.command("mpage 2") == "");
  CHECK(host.next() == "MPAGE,2");
  CHECK(sim.command("  raw ADC: OK  ") == "");
  CHECK(host.next() == "ADC: OK");
}

TEST_CASE("simulated device rejects bad commands with a message") {
  running_device sim;
  CHECK(sim.command("") == "");
  CHECK(sim.command("foo") == "unknown command 'foo' (try 'help')");
  CHECK(sim.command("slider 5 10") == "slider index must be 1-4");
  CHECK(sim.command("slider 0 10") == "slider index must be 1-4");
  CHECK(sim.command("slider 1 101") == "slider value must be 0-100");
  CHECK(sim.command("slider 1 5x") == "slider value must be 0-100");
  CHECK(sim.command("slider 1") == "usage: slider <1-4> <0-100>");
  CHECK(sim.command("press 0") == "macro button must be 1-9");
  CHECK(sim.command("release 10") == "macro button must be 1-9");
  CHECK(sim.command("mute 5") == "mute index must be 1-4 or 'master'");
  CHECK(sim.command("encoder 0") == "encoder delta must be a non-zero integer from -1000 to 1000");
  CHECK(sim.command("encoder +-1") ==
        "encoder delta must be a non-zero integer from -1000 to 1000");
  CHECK(sim.command("mpage 4") == "macro page must be 0-3");
  CHECK(sim.command("page") == "usage: page <NAME>");
  CHECK(sim.command("raw") == "usage: raw <line>");
  CHECK(sim.command("demo maybe") == "usage: demo on|off");
  CHECK(sim.command("help").find("slider <1-4> <0-100>") != std::string::npos);
  CHECK(mixerd::sim::command_help().find("mpage <0-3>") != std::string_view::npos);
}

TEST_CASE("simulated device drops input while no host has the port open") {
  running_device sim;
  CHECK(sim.command("slider 1 5") == "no host has the port open; SLIDER,0,5 was dropped");
  host_port host(sim.device->port_path());
  REQUIRE(host.is_open());
  // Nothing stale arrives first.
  host.write_line("PING");
  CHECK(host.next() == "STATE,CONNECTED");
  CHECK(host.next() == "PONG");
}

TEST_CASE("simulated device keeps serving when the host closes the port") {
  running_device sim;
  {
    host_port host(sim.device->port_path());
    REQUIRE(host.is_open());
    check_handshake(host);
  }
  host_port again(sim.device->port_path());
  REQUIRE(again.is_open());
  // Still the same plug: no second greeting.
  again.write_line("PING");
  CHECK(again.next() == "PONG");
}

TEST_CASE("simulated device traces both directions") {
  std::mutex mutex;
  std::vector<std::string> seen;
  device_options options;
  options.trace = [&](std::string_view direction, std::string_view line) {
    std::lock_guard<std::mutex> lock(mutex);
    seen.push_back(std::string(direction) + " " + std::string(line));
  };
  running_device sim(options);
  host_port host(sim.device->port_path());
  REQUIRE(host.is_open());
  check_handshake(host);
  std::lock_guard<std::mutex> lock(mutex);
  CHECK(seen == std::vector<std::string>{"<- READY", "-> STATE,CONNECTED", "-> ACK,READY",
                                         "-> DEV_TYPE,Mixlar Mix", "-> FW_VER,2.0.0"});
}

TEST_CASE("simulated device unplug hangs up and replug serves a new pty") {
  mixerd::test::temp_dir dir;  // a private folder for the link
  device_options options;
  options.link_path = dir.file("ttyMIX");
  auto sim = std::make_unique<running_device>(options);
  CHECK(sim->device->port_path() == options.link_path);
  std::string first_pty = link_target(options.link_path);
  CHECK(first_pty.rfind("/dev/pts/", 0) == 0);

  host_port host(options.link_path);
  REQUIRE(host.is_open());
  check_handshake(host);

  CHECK(sim->command("unplug") == "");
  CHECK(host.next() == "<hangup>");
  CHECK(sim->command("slider 1 5") == "device is unplugged");
  CHECK(sim->command("raw X") == "device is unplugged");
  CHECK(sim->command("unplug") == "device is already unplugged");

  CHECK(sim->command("replug") == "");
  std::string second_pty = link_target(options.link_path);
  CHECK(second_pty.rfind("/dev/pts/", 0) == 0);
  CHECK(second_pty != first_pty);
  host_port fresh(options.link_path);
  REQUIRE(fresh.is_open());
  fresh.write_line("PING");
  CHECK(fresh.next() == "STATE,CONNECTED");
  CHECK(fresh.next() == "PONG");

  // A replug while plugged re-seats the cable: the open port hangs up too.
  CHECK(sim->command("replug") == "");
  CHECK(fresh.next() == "<hangup>");

  sim.reset();
  struct stat st {};
  CHECK(::lstat(options.link_path.c_str(), &st) != 0);
}

TEST_CASE("simulated device demo mode moves the sliders") {
  device_options options;
  options.demo = true;
  running_device sim(options);
  host_port host(sim.device->port_path());
  REQUIRE(host.is_open());
  // The sliders move whether or not the host has spoken yet.
  std::string line = host.next();
  CHECK(line.rfind("SLIDER,", 0) == 0);
  CHECK(sim.command("demo off") == "");
  CHECK(sim.command("demo on") == "");
}
