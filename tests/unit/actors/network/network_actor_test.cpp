#include "actors/network/network_actor.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <caf/all.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/env.hpp"
#include "tests/unit/support/files.hpp"
#include "tests/unit/support/io_thread.hpp"

using mixerd::interface_address;
using mixerd::network_config;
using mixerd::network_snapshot;
namespace network = mixerd::network;
using namespace std::chrono_literals;

namespace {

const std::string status_json = R"({
  "BackendState": "Running",
  "Self": {"HostName": "mixer-pi", "DNSName": "mixer-pi.tail1234.ts.net.",
           "TailscaleIPs": ["100.101.102.103", "fd7a:115c:a1e0::1f01:6667"]}
})";

// The network actor on an io thread, with a folder of fake overlay commands first on PATH (set
// before the actor system starts, restored after it ended).
struct network_fixture {
  mixerd::test::temp_dir bin;
  mixerd::test::scoped_env path{"PATH", bin.path() + ":" + std::getenv("PATH")};
  mixerd::test::io_thread io;
  mixerd::test::actor_fixture actors;
  caf::scoped_actor client{actors.sys};
  mixerd::network_impl network;
  // Where the actor publishes the machine's names (host name "mixer-box", allowed
  // "studio.example").
  std::shared_ptr<mixerd::published<mixerd::machine_names>> names =
      std::make_shared<mixerd::published<mixerd::machine_names>>();

  void start(std::string overlay_command, std::chrono::milliseconds probe_timeout = 2000ms) {
    network_config config;
    config.io = &io.io;
    config.overlay_command = std::move(overlay_command);
    config.probe_timeout = probe_timeout;
    config.host_name = "mixer-box";
    config.allowed_hosts = {"studio.example"};
    config.names = names;
    network = actors.spawn(mixerd::network_behavior, config);
  }

  // Whether the names published now serve `host`.
  bool serves(const std::string& host) {
    auto now = names->load();
    REQUIRE(now);
    return mixerd::host_names::served(*now, host);
  }

  network_snapshot get() {
    return mixerd::test::ask<network_snapshot>(client, network, caf::get_atom_v);
  }

  // A fake overlay command in the folder on PATH; each run appends a line to `runs`.
  std::string command(const std::string& name, const std::string& body) {
    mixerd::test::write_script(bin.file(name), "echo run >> '" + bin.file("runs") + "'\n" + body);
    return name;
  }
  std::size_t runs() {
    if (!std::filesystem::exists(bin.file("runs"))) return 0;
    auto text = mixerd::test::read_file(bin.file("runs"));
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  }
};

bool has_loopback(const std::vector<interface_address>& interfaces) {
  return std::any_of(interfaces.begin(), interfaces.end(), [](const interface_address& a) {
    return a.address == "127.0.0.1" || a.address == "::1";
  });
}

}  // namespace

TEST_CASE_FIXTURE(network_fixture, "network actor answers with the machine's interfaces") {
  start("mixerd-unit-no-such-command");
  auto facts = get();
  CHECK(has_loopback(facts.interfaces));
  for (const auto& a : facts.interfaces) {
    CAPTURE(a.interface);
    CAPTURE(a.address);
    CHECK_FALSE(a.interface.empty());
    CHECK((network::is_ipv4(a.address) || network::is_ipv6(a.address)));
  }
  // Without the command, the interfaces tell the overlay's state; it is not installed.
  CHECK_FALSE(facts.overlay.installed);
  CHECK(facts.overlay.running == network::overlay_from_interfaces(facts.interfaces).running);
  CHECK(runs() == 0);
}

TEST_CASE_FIXTURE(network_fixture, "network actor reads the overlay from its status command") {
  start(command("fake-tailscale", "[ \"$1 $2\" = \"status --json\" ] || exit 1\ncat <<'END'\n" +
                                      status_json + "\nEND\n"));
  auto facts = get();
  CHECK(has_loopback(facts.interfaces));
  CHECK(facts.overlay.installed);
  CHECK(facts.overlay.running);
  CHECK(facts.overlay.ip == "100.101.102.103");
  CHECK(facts.overlay.hostname == "mixer-pi.tail1234.ts.net");
  CHECK(runs() == 1);
  // The answer is kept for a few seconds: a second request runs nothing.
  auto again = get();
  CHECK(again.overlay.ip == "100.101.102.103");
  CHECK(runs() == 1);
}

TEST_CASE_FIXTURE(network_fixture, "network actor answers requests made during a probe together") {
  start(command("slow-tailscale", "sleep 0.3\ncat <<'END'\n" + status_json + "\nEND\n"));
  client->send(network, caf::get_atom_v);
  client->send(network, caf::get_atom_v);
  for (int i = 0; i < 2; ++i) {
    CAPTURE(i);
    network_snapshot facts;
    REQUIRE(mixerd::test::receive_within(client, [&](const network_snapshot& s) { facts = s; }));
    CHECK(facts.overlay.running);
  }
  CHECK(runs() == 1);
}

TEST_CASE_FIXTURE(network_fixture, "a hanging overlay command is cut off at probe_timeout") {
  start(command("stuck-tailscale", "exec sleep 30\n"), 300ms);
  const auto started = std::chrono::steady_clock::now();
  auto facts = get();  // within the 2 s of the test's wait
  const auto took = std::chrono::steady_clock::now() - started;
  CHECK(took >= 300ms);
  CHECK(took < 1500ms);
  CHECK(has_loopback(facts.interfaces));
  // The command exists but gave no answer: installed, and the interfaces tell the rest.
  CHECK(facts.overlay.installed);
  CHECK(facts.overlay.ip == network::overlay_from_interfaces(facts.interfaces).ip);
}

TEST_CASE_FIXTURE(network_fixture, "an overlay command with a useless answer counts as installed") {
  start(command("odd-tailscale", "echo 'failed to connect to local tailscaled'\n"));
  auto facts = get();
  CHECK(facts.overlay.installed);
  CHECK(facts.overlay.running == network::overlay_from_interfaces(facts.interfaces).running);
}

TEST_CASE_FIXTURE(network_fixture,
                  "network actor publishes the machine's names, the overlay's once known") {
  start(command("fake-tailscale", "cat <<'END'\n" + status_json + "\nEND\n"));
  get();  // the actor has run its start-up by now
  CHECK(serves("mixer-box"));
  CHECK(serves("mixer-box.local:5000"));
  CHECK(serves("studio.example"));
  CHECK(serves("localhost"));
  CHECK_FALSE(serves("evil.example"));
  // The probe above reported the overlay's name; the answer came after it was published.
  CHECK(serves("mixer-pi.tail1234.ts.net"));
  CHECK(runs() == 1);
}

TEST_CASE_FIXTURE(network_fixture,
                  "network actor keeps the overlay's name unknown without a probe") {
  start("mixerd-unit-no-such-command");
  get();
  CHECK_FALSE(serves("mixer-pi.tail1234.ts.net"));
  CHECK(serves("mixer-box.local"));
}

TEST_CASE_FIXTURE(network_fixture, "a settings reload replaces the allowed host names") {
  start("mixerd-unit-no-such-command");
  client->send(network, mixerd::settings_reloaded{
                            nlohmann::json{{"allowed_hosts", {"new.example", "*.studio.lan"}}}});
  get();  // answered after the reload: one sender's messages arrive in order
  CHECK(serves("new.example"));
  CHECK(serves("desk.studio.lan"));
  CHECK_FALSE(serves("studio.example"));
  CHECK(serves("mixer-box"));
  client->send(network, mixerd::settings_reloaded{nlohmann::json::object()});
  get();
  CHECK_FALSE(serves("new.example"));
}
