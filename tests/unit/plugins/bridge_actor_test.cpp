// The plugin bridge with real /usr/bin/python3 plugin processes running the SDK of the source
// tree: scoped actors play the hub, device, settings and toast actors.
#include "plugins/bridge/bridge_actor.hpp"

#include <doctest/doctest.h>
#include <signal.h>

#include <caf/all.hpp>
#include <cerrno>
#include <filesystem>
#include <functional>
#include <string>

#include "protocol/device_codec.hpp"
#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/files.hpp"
#include "tests/unit/support/wait.hpp"
#include "tools/mixerd/capability_table.hpp"
#include "tools/mixerd/system.hpp"

using json = nlohmann::json;
using mixerd::plugin_state;
using mixerd::test::playing;
using mixerd::test::receive_within;

namespace {

constexpr auto plugin_wait = std::chrono::seconds(10);

std::string manifest(const std::string& id, const std::string& cls = "P") {
  return json{{"id", id},
              {"name", id},
              {"version", "1.0"},
              {"api_version", "1.0"},
              {"type", "executable"},
              {"entry_point", "main.py"},
              {"main_class", cls}}
      .dump();
}

// Where the bridge's commands find the device and the toast actor (and the device's view). A
// base before the actor system: the system's destructor waits for the bridge, which may still
// run a command while it ends, so the table and the directory must outlive it.
struct bridge_commands {
  mixerd::directory dir;
  std::shared_ptr<mixerd::published<mixerd::device_view>> device_view =
      dir.slot(mixerd::device_view{});
  mixerd::command_table commands{mixerd::commands_of(mixerd::capability_table())};
  mixerd::command_runner runner{commands, dir};
};

struct bridge_fixture : bridge_commands, mixerd::test::actor_fixture {
  mixerd::test::temp_dir data;
  caf::scoped_actor hub{sys};
  caf::scoped_actor device{sys};
  caf::scoped_actor settings{sys};
  caf::scoped_actor toast{sys};
  caf::scoped_actor client{sys};
  std::shared_ptr<mixerd::published<mixerd::plugins_view>> view =
      std::make_shared<mixerd::published<mixerd::plugins_view>>();
  mixerd::plugins_actor bridge;
  std::string sdk_dir = MIXERD_TEST_SDK_DIR;

  std::string folder() const { return data.path() + "/plugins/executable"; }

  // A plugin folder with its manifest and main.py.
  std::string add(const std::string& name, const std::string& manifest_text,
                  const std::string& main) {
    const auto dir = folder() + "/" + name;
    std::filesystem::create_directories(dir);
    mixerd::test::write_file(dir + "/manifest.json", manifest_text);
    mixerd::test::write_file(dir + "/main.py", main);
    return dir;
  }

  void start(json initial = json::object()) {
    mixerd::device_view up;
    up.connected = true;
    up.port = "/dev/ttyTEST";
    device_view->store(up);
    mixerd::plugins_wiring w;
    w.folder = folder();
    w.sdk_dir = sdk_dir;
    w.hub = playing<mixerd::hub_actor>(hub);
    dir.add(playing<mixerd::device_actor>(device));
    dir.add(playing<mixerd::toast_actor>(toast));
    w.settings = playing<mixerd::settings_actor>(settings);
    w.commands = &runner;
    w.device_source = device_view;
    bridge = spawn(mixerd::plugins_behavior, w, initial, view);
    // Sent once the plugin list is published.
    REQUIRE(receive_within(settings, [&](mixerd::watch_atom, const caf::actor&) {}));
  }

  // Waits for a plugin_status of `id` in `state`; other events are skipped.
  mixerd::plugin_info await_status(const std::string& id, plugin_state state) {
    const auto deadline = std::chrono::steady_clock::now() + plugin_wait;
    mixerd::plugin_info seen;
    while (std::chrono::steady_clock::now() < deadline) {
      bool got = false;
      hub->receive(
          [&](caf::publish_atom, const mixerd::event& e) {
            if (auto* s = e.get_if<mixerd::plugin_status>(); s && s->plugin.id == id) {
              seen = s->plugin;
              got = seen.state == state;
            }
          },
          caf::after(std::chrono::milliseconds(100)) >> [] {});
      if (got) return seen;
    }
    FAIL("plugin ", id, " never became ", mixerd::to_string(state),
         "; last: ", mixerd::to_string(seen.state), " ", seen.last_error);
    return seen;
  }

  std::string next_device_line() {
    mixerd::protocol::host_command cmd;
    bool got = false;
    device->receive([&](const mixerd::protocol::host_command& c) { cmd = c, got = true; },
                    caf::after(plugin_wait) >> [] {});
    REQUIRE_MESSAGE(got, "the device got no line");
    return mixerd::protocol::encode_host_command(cmd).text;
  }

  void send(mixerd::event e) { caf::anon_send(bridge, std::move(e)); }
};

// Records each hook it gets into hooks.txt in its folder, one line each.
const std::string recorder = R"(
import os
from mixerd import Plugin
def note(*parts):
    with open("hooks.txt", "a") as f:
        f.write(" ".join(str(p) for p in parts) + "\n")
class P(Plugin):
    def on_load(self):
        note("on_load", os.getpid())
    def on_enable(self): note("on_enable")
    def on_disable(self): note("on_disable")
    def on_unload(self): note("on_unload")
    def on_slider_change(self, index, value):
        note("on_slider_change", index, value)
        self.send_serial(f"ECHO,{index},{value}")
    def on_macro_execute(self, macro):
        return macro.get("name") == "mine"
)";

std::string hooks_of(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir + "/hooks.txt", ec)) return {};
  return mixerd::test::read_file(dir + "/hooks.txt");
}

}  // namespace

TEST_CASE_FIXTURE(bridge_fixture,
                  "a plugin runs, gets a slider line's hook and its send_serial "
                  "reaches the device") {
  add("rec", manifest("test.recorder"), recorder);
  start();
  auto info = await_status("test.recorder", plugin_state::running);
  CHECK(info.enabled);
  CHECK(receive_within(toast, [](const mixerd::toast_loaded& l) { CHECK(l.loaded); }));
  send(mixerd::device_input{mixerd::protocol::parse_device_line("SLIDER,2,57")});
  CHECK(next_device_line() == "ECHO,3,57");
  CHECK(hooks_of(folder() + "/rec").find("on_slider_change 3 57") != std::string::npos);
  auto listed = view->load();
  REQUIRE(listed->plugins.size() == 1);
  CHECK(listed->plugins[0].state == plugin_state::running);
}

TEST_CASE_FIXTURE(bridge_fixture, "on_macro_execute answers the macro actor's ask") {
  add("rec", manifest("test.recorder"), recorder);
  start();
  await_status("test.recorder", plugin_state::running);
  CHECK(mixerd::test::ask<bool>(client, bridge, mixerd::plugin_macro_ask{json{{"name", "mine"}}}));
  CHECK_FALSE(
      mixerd::test::ask<bool>(client, bridge, mixerd::plugin_macro_ask{json{{"name", "other"}}}));
}

TEST_CASE_FIXTURE(bridge_fixture,
                  "disabling calls on_disable and on_unload, ends the process and "
                  "is persisted, enabling starts it again") {
  const auto dir = add("rec", manifest("test.recorder"), recorder);
  start();
  await_status("test.recorder", plugin_state::running);
  auto result = mixerd::test::ask<mixerd::plugin_switch_result>(
      client, bridge, mixerd::plugin_switch{"test.recorder", false});
  CHECK(result.found);
  CHECK_FALSE(result.plugin.enabled);
  CHECK(result.plugin.state == plugin_state::stopped);
  auto put = mixerd::test::next_put(settings);
  CHECK(put.first == "plugins");
  CHECK(put.second == json{{"test.recorder", {{"enabled", false}}}});
  CHECK(mixerd::test::eventually(
      [&] { return hooks_of(dir).find("on_unload") != std::string::npos; }));
  const auto text = hooks_of(dir);
  CHECK(text.find("on_disable") < text.find("on_unload"));
  // The process is gone (reaped): its pid no longer exists.
  const int pid = std::stoi(text.substr(text.find("on_load ") + 8));
  CHECK(mixerd::test::eventually([&] { return ::kill(pid, 0) != 0 && errno == ESRCH; }));

  mixerd::test::ask<mixerd::plugin_switch_result>(client, bridge,
                                                  mixerd::plugin_switch{"test.recorder", true});
  await_status("test.recorder", plugin_state::running);
  CHECK(mixerd::test::ask<mixerd::plugin_switch_result>(client, bridge,
                                                        mixerd::plugin_switch{"nope.x", true})
            .found == false);
}

TEST_CASE_FIXTURE(bridge_fixture, "a switch stored as false keeps the plugin stopped") {
  add("rec", manifest("test.recorder"), recorder);
  start(json{{"plugins", {{"test.recorder", {{"enabled", false}}}}}});
  auto listed = view->load();
  REQUIRE(listed->plugins.size() == 1);
  CHECK(listed->plugins[0].state == plugin_state::stopped);
  CHECK_FALSE(listed->plugins[0].enabled);
}

TEST_CASE_FIXTURE(bridge_fixture,
                  "broken and incompatible manifests are listed with the reason "
                  "and never run") {
  add("a_broken", "{\"id\": ", "");
  auto future = json::parse(manifest("test.future"));
  future["api_version"] = "2.0";
  add("b_future", future.dump(), "raise SystemExit(1)\n");
  add("c_noentry", manifest("test.noentry"), "");
  std::filesystem::remove(folder() + "/c_noentry/main.py");
  start();
  auto listed = view->load();
  REQUIRE(listed->plugins.size() == 3);
  CHECK(listed->plugins[0].id == "a_broken");
  CHECK(listed->plugins[0].state == plugin_state::invalid);
  CHECK(listed->plugins[0].last_error.rfind("manifest.json: not valid JSON", 0) == 0);
  CHECK(listed->plugins[1].state == plugin_state::incompatible);
  CHECK(listed->plugins[2].state == plugin_state::invalid);
  CHECK(listed->plugins[2].last_error == "the entry point main.py is missing");
}

TEST_CASE_FIXTURE(bridge_fixture,
                  "a plugin that exits is restarted after 1 s with restarts "
                  "counted") {
  add("crash", manifest("test.crash"), R"(
import os
from mixerd import Plugin
class P(Plugin):
    def on_load(self):
        os._exit(3)
)");
  start();
  auto crashed = await_status("test.crash", plugin_state::starting);
  // The first status is the start itself; the crash follows with its reason.
  while (crashed.last_error.empty())
    crashed = await_status("test.crash", plugin_state::starting);
  CHECK(crashed.last_error == "exited with status 3");
  CHECK(crashed.restarts == 0);
  const auto crash_at = std::chrono::steady_clock::now();
  auto again = await_status("test.crash", plugin_state::starting);
  while (again.restarts == 0)
    again = await_status("test.crash", plugin_state::starting);
  CHECK(again.restarts == 1);
  CHECK(std::chrono::steady_clock::now() - crash_at >= std::chrono::milliseconds(900));
}

TEST_CASE_FIXTURE(bridge_fixture,
                  "a plugin that cannot load is restarted with the runner's "
                  "fatal reason as last_error") {
  add("empty", manifest("test.empty"), "# no class P here\n");
  start();
  auto info = await_status("test.empty", plugin_state::starting);
  while (info.last_error.empty())
    info = await_status("test.empty", plugin_state::starting);
  CHECK(info.last_error.find("P") != std::string::npos);
}

// Not the SDK: a runner that speaks the protocol badly, to see the bridge's limits.
TEST_CASE_FIXTURE(bridge_fixture,
                  "a process that writes a line over 1 MiB or floods calls is "
                  "killed, and bad lines are only logged") {
  sdk_dir = data.path() + "/bad_sdk";
  std::filesystem::create_directories(sdk_dir + "/mixerd");
  mixerd::test::write_file(sdk_dir + "/mixerd/__init__.py", "");
  mixerd::test::write_file(sdk_dir + "/mixerd/runner.py", R"(
import os, sys, time
init = sys.stdin.readline()
out = os.fdopen(1, "w")
out.write("not json\n{\"type\": \"nonsense\"}\n")
out.write('{"type":"ready","hooks":[]}\n')
out.flush()
if os.path.basename(os.getcwd()) == "big":
    out.write("x" * (1024 * 1024 + 10) + "\n")
else:
    for i in range(300):
        out.write('{"type":"call","id":%d,"method":"get_slider_value","args":{"index":1}}\n' % (i + 1))
out.flush()
time.sleep(30)
)");
  add("big", manifest("test.big"), "");
  add("flood", manifest("test.flood"), "");
  start();
  auto big = await_status("test.big", plugin_state::starting);
  while (big.last_error.empty())
    big = await_status("test.big", plugin_state::starting);
  CHECK(big.last_error == "it wrote a line over 1 MiB");
  auto flood = await_status("test.flood", plugin_state::starting);
  while (flood.last_error.empty())
    flood = await_status("test.flood", plugin_state::starting);
  CHECK(flood.last_error == "flooding: over 200 calls within one second");
}

TEST_CASE_FIXTURE(bridge_fixture,
                  "at stop, running plugins get on_unload and their processes end") {
  const auto dir = add("rec", manifest("test.recorder"), recorder);
  start();
  await_status("test.recorder", plugin_state::running);
  caf::scoped_actor self{sys};
  self->send_exit(bridge, caf::exit_reason::user_shutdown);
  self->wait_for(bridge);
  const auto text = hooks_of(dir);
  CHECK(text.find("on_unload") != std::string::npos);
  CHECK(text.find("on_disable") == std::string::npos);
  const int pid = std::stoi(text.substr(text.find("on_load ") + 8));
  CHECK(mixerd::test::eventually([&] { return ::kill(pid, 0) != 0 && errno == ESRCH; }));
}
