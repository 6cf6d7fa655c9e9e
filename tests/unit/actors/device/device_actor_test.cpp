#include "actors/device/device_actor.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <termios.h>
#include <unistd.h>

#include <caf/all.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "protocol/device_codec.hpp"
#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/io_thread.hpp"

using namespace mixerd;
using mixerd::test::as;
using mixerd::test::next_published;
using mixerd::test::playing;

namespace {

// A pseudo-terminal: the test plays the device on the master, the daemon opens the slave.
struct pty {
  int master = -1;
  int slave = -1;
  std::string path;
  std::string pending;  // bytes read from the master but not yet returned as a line

  pty() {
    REQUIRE(::openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
    termios tio{};
    REQUIRE(::tcgetattr(slave, &tio) == 0);
    ::cfmakeraw(&tio);
    REQUIRE(::tcsetattr(slave, TCSANOW, &tio) == 0);
    path = ::ttyname(slave);
  }
  ~pty() {
    close_master();
    if (slave >= 0) ::close(slave);
  }
  pty(const pty&) = delete;
  pty& operator=(const pty&) = delete;

  void close_master() {
    if (master >= 0) ::close(master);
    master = -1;
  }

  void write(const std::string& bytes) {
    REQUIRE(::write(master, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  }

  // The next line the daemon wrote (without '\n'), nullopt after 2 s without one.
  std::optional<std::string> read_line() {
    const auto deadline = std::chrono::steady_clock::now() + test::wait_limit;
    for (;;) {
      if (auto nl = pending.find('\n'); nl != std::string::npos) {
        std::string line = pending.substr(0, nl);
        pending.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{master, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[256];
      auto n = ::read(master, buf, sizeof buf);
      if (n <= 0) return std::nullopt;
      pending.append(buf, static_cast<std::size_t>(n));
    }
  }

  // The next line that is not a keep-alive PING.
  std::optional<std::string> read_command() {
    for (;;) {
      auto line = read_line();
      if (!line || *line != "PING") return line;
    }
  }
};

struct device_fixture {
  test::io_thread io;  // first: destroyed last
  test::actor_fixture actors;
  pty port;
  caf::scoped_actor hub{actors.sys};
  std::shared_ptr<published<device_view>> view = std::make_shared<published<device_view>>();
  device_actor device;

  device_fixture() {
    device = actors.spawn(
        device_behavior,
        device_config{&io.io, port.path, playing<hub_actor>(hub), {}, std::nullopt}, view);
  }

  // Asked through the device's interface; the published status must agree with the answer.
  device_view status() {
    auto out = test::ask<device_view>(hub, device, caf::get_atom_v, status_atom_v);
    auto seen = view->load();
    REQUIRE(seen != nullptr);
    CHECK(seen->connected == out.connected);
    CHECK(seen->port == out.port);
    CHECK(seen->page == out.page);
    CHECK(seen->firmware_version == out.firmware_version);
    CHECK(seen->device_type == out.device_type);
    return out;
  }

  // Plays the handshake: READY from the daemon, ACK,READY and FW_VER from the device.
  void connect() {
    REQUIRE(port.read_line() == std::optional<std::string>("READY"));
    port.write("ACK,READY\nFW_VER,2.0.0\n");
    auto change = as<device_status>(next_published(hub));
    CHECK(change.connected);
    CHECK(change.port == port.path);
    auto ack = as<device_input>(next_published(hub));
    REQUIRE(std::holds_alternative<protocol::dev_ack>(ack.input));
    CHECK(std::get<protocol::dev_ack>(ack.input).command == "READY");
    auto version = as<device_input>(next_published(hub));
    REQUIRE(std::holds_alternative<protocol::dev_version>(version.input));
    CHECK(std::get<protocol::dev_version>(version.input).version == "2.0.0");
  }
};

}  // namespace

TEST_CASE_FIXTURE(device_fixture, "device actor sends READY and connects on ACK READY") {
  const device_view before = status();
  CHECK_FALSE(before.connected);
  CHECK(before.firmware_version.empty());

  connect();
  const device_view after = status();
  CHECK(after.connected);
  CHECK(after.port == port.path);
  CHECK(after.firmware_version == "2.0.0");
}

TEST_CASE_FIXTURE(device_fixture, "device actor publishes device input and raw lines") {
  connect();
  port.write("SLIDER,0,57\n");
  auto input = as<device_input>(next_published(hub));
  REQUIRE(std::holds_alternative<protocol::dev_slider>(input.input));
  CHECK(std::get<protocol::dev_slider>(input.input).index == 0);
  CHECK(std::get<protocol::dev_slider>(input.input).value == 57);

  port.write("ADC: OK\r\n");
  CHECK(as<serial_raw>(next_published(hub)).line == "ADC: OK");

  port.write("MUTE,MASTER,PRESS\nPAGE,Mixer\n");
  input = as<device_input>(next_published(hub));
  REQUIRE(std::holds_alternative<protocol::dev_mute_press>(input.input));
  CHECK(std::get<protocol::dev_mute_press>(input.input).index == protocol::master_index);
  input = as<device_input>(next_published(hub));
  REQUIRE(std::holds_alternative<protocol::dev_page>(input.input));
  CHECK(status().page == "Mixer");
}

TEST_CASE_FIXTURE(device_fixture, "device actor connects on any first line") {
  REQUIRE(port.read_line() == std::optional<std::string>("READY"));
  port.write("SLIDER,2,10\n");
  auto change = as<device_status>(next_published(hub));
  CHECK(change.connected);
  auto input = as<device_input>(next_published(hub));
  CHECK(std::holds_alternative<protocol::dev_slider>(input.input));
}

TEST_CASE_FIXTURE(device_fixture, "device actor writes host commands as lines") {
  REQUIRE(port.read_line() == std::optional<std::string>("READY"));
  // Not connected yet: the command is dropped (the mixer pushes everything on connect).
  hub->send(device, protocol::host_command{protocol::cmd_master{10}});
  port.write("ACK,READY\n");
  CHECK(as<device_status>(next_published(hub)).connected);

  hub->send(device, protocol::host_command{protocol::cmd_master{30}});
  CHECK(port.read_command() == std::optional<std::string>("MASTER,30"));
  hub->send(device, protocol::host_command{protocol::cmd_vol{1, "Music, Games", 40}});
  hub->send(device, protocol::host_command{protocol::cmd_mute{protocol::master_index, true}});
  CHECK(port.read_command() == std::optional<std::string>("VOL,1,Music\\, Games,40"));
  CHECK(port.read_command() == std::optional<std::string>("MUTE,MASTER,1"));
}

TEST_CASE_FIXTURE(device_fixture, "device actor announces the disconnect when the port hangs up") {
  connect();
  port.close_master();
  auto change = as<device_status>(next_published(hub));
  CHECK_FALSE(change.connected);
  CHECK(change.port == port.path);
  const device_view after = status();
  CHECK_FALSE(after.connected);
}
