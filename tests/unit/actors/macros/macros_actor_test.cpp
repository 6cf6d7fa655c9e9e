#include "actors/macros/macros_actor.hpp"

#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/ip/tcp.hpp>

#include "actors/support/http_client.hpp"
#include "protocol/device_codec.hpp"
#include "protocol/music.hpp"
#include "protocol/plugins.hpp"
#include "protocol/profiles.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/stream.hpp"
#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/io_thread.hpp"
#include "tools/mixerd/capability_table.hpp"
#include "tools/mixerd/system.hpp"

using json = nlohmann::json;
namespace m = mixerd;
namespace protocol = mixerd::protocol;
using mixerd::test::as;
using mixerd::test::playing;
using mixerd::test::receive_within;
using namespace std::chrono_literals;

namespace {

// The macro actor with scoped actors standing in for the device, the hub, the settings actor and
// the mixer; the other capabilities a test needs are registered in its directory (link), where
// the commands its macros run find them. Command macros run on a real io thread.
struct macro_fixture {
  m::test::io_thread io;  // first: destroyed last
  m::http_client http{io.io, m::macros::max_http_in_flight};
  // mixerd's listeners, as the daemon publishes them: http macros may never call them.
  std::shared_ptr<m::published<m::http_targets::own_listeners>> own =
      std::make_shared<m::published<m::http_targets::own_listeners>>(
          m::http_targets::own_listeners{{5000, 8889}});
  // Every command of the daemon, their owners found here. Before the actors: a macro may still
  // run a command while the actor system waits for its actors at the end.
  m::directory dir;
  m::command_table commands{m::commands_of(m::capability_table())};
  m::command_runner runner{commands, dir};
  m::test::actor_fixture actors;
  caf::scoped_actor device{actors.sys};
  caf::scoped_actor hub{actors.sys};
  caf::scoped_actor settings{actors.sys};
  caf::scoped_actor mixer{actors.sys};
  caf::scoped_actor profiles{actors.sys};
  caf::scoped_actor music{actors.sys};
  caf::scoped_actor plugins{actors.sys};
  std::shared_ptr<m::published<m::macros_view>> view;
  m::macros_impl macros;

  // A stand-in for the capability of interface Handle, from now on.
  template <class Handle>
  void link(caf::scoped_actor& stand_in) {
    dir.add(playing<Handle>(stand_in));
  }

  void start(const json& initial = json::object()) {
    view = std::make_shared<m::published<m::macros_view>>(
        m::macros_view_of(m::macros::pages_from_settings(initial)));
    link<m::mixer_actor>(mixer);
    m::macros_wiring wiring{playing<m::device_actor>(device),
                            playing<m::hub_actor>(hub),
                            playing<m::settings_actor>(settings),
                            &io.io,
                            &runner,
                            {"plugin.intercept"},
                            &http,
                            own};
    macros = actors.spawn(m::macros_behavior, wiring, initial, view);
    REQUIRE(receive_within(settings, [&](m::watch_atom, const caf::actor&) {}));
  }

  // A settings.json "macros" value with `slot` at page `page`, index `index`.
  static json with_slot(int page, int index, const json& slot, int current = 0) {
    auto set = m::macros::to_json(m::macros::default_pages());
    set["current_page"] = current;
    set["pages"][std::to_string(page)][index] = slot;
    return {{"macros", set}};
  }

  std::vector<std::string> device_lines(std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) {
      protocol::host_command cmd;
      REQUIRE_MESSAGE(receive_within(device, [&](const protocol::host_command& c) { cmd = c; }),
                      "the device got no command within 2 s");
      out.push_back(protocol::encode_host_command(cmd).text);
    }
    return out;
  }

  m::event next_published() { return m::test::next_published(hub); }

  // The next macro_executed, skipping nothing else (the caller knows what comes).
  m::macro_executed next_executed() { return as<m::macro_executed>(next_published()); }

  m::macro_trigger_outcome trigger(int index, std::optional<int> page = std::nullopt,
                                   int depth = 0) {
    return m::test::ask<m::macro_trigger_outcome>(hub, macros,
                                                  m::macro_trigger{page, index, depth});
  }

  void from_device(protocol::device_event input) {
    hub->send(macros, m::event{m::device_input{std::move(input)}});
  }

  std::pair<std::string, json> next_put() { return mixerd::test::next_put(settings); }
};

json command(std::vector<std::string> argv, const char* name = "cmd") {
  return {{"type", "command"}, {"name", name}, {"icon", ""}, {"argv", argv}};
}

}  // namespace

TEST_CASE_FIXTURE(macro_fixture, "a device connect gets MPAGE and the 9 buttons of the page") {
  start(
      with_slot(1, 4, {{"type", "mute"}, {"name", "Mic, off"}, {"icon", "mic"}, {"target", 1}}, 1));
  hub->send(macros, m::event{m::device_status{true, "/dev/ttyACM0"}});
  auto lines = device_lines(10);
  CHECK(lines[0] == "MPAGE,1");
  CHECK(lines[1] == "MACRO,0,,");
  CHECK(lines[5] == "MACRO,4,Mic\\, off,mic");
  CHECK(lines[9] == "MACRO,8,,");
  CHECK(view->load()->set.current_page == 1);
}

TEST_CASE_FIXTURE(macro_fixture, "MPAGE from the device changes the page, persists it, tells") {
  start();
  from_device(protocol::dev_macro_page{3});
  auto put = next_put();
  CHECK(put.first == "macros");
  CHECK(put.second["current_page"] == 3);
  CHECK(as<m::macro_page_change>(next_published()).page == 3);
  auto lines = device_lines(10);
  CHECK(lines[0] == "MPAGE,3");
  CHECK(view->load()->set.current_page == 3);
  // A press now runs a slot of page 3 (empty here: nothing runs).
  CHECK(trigger(0).page == 3);
  CHECK(trigger(0).what == m::macro_trigger_outcome::result::empty);
}

TEST_CASE_FIXTURE(macro_fixture,
                  "a button press runs the slot, a second one while it runs is 409") {
  start(with_slot(0, 2, {{"type", "mute"}, {"name", "Mute 2"}, {"icon", ""}, {"target", 2}}));
  from_device(protocol::dev_macro{2, true});
  // The mixer is asked to toggle mute 2 (0-based 1) and has not answered yet.
  caf::response_promise pending;
  REQUIRE(receive_within(mixer, [&](const m::toggle_mute& req) {
    CHECK(req.index == 1);
    pending = mixer->make_response_promise();
  }));
  auto busy = trigger(2);
  CHECK(busy.what == m::macro_trigger_outcome::result::running);
  CHECK(busy.name == "Mute 2");
  pending.deliver(true);
  auto done = next_executed();
  CHECK(done.ok);
  CHECK(done.page == 0);
  CHECK(done.index == 2);
  CHECK(done.name == "Mute 2");
  // A release does nothing; the API's trigger runs it again.
  from_device(protocol::dev_macro{2, false});
  CHECK(trigger(2).what == m::macro_trigger_outcome::result::started);
  REQUIRE(receive_within(mixer, [&](const m::toggle_mute&) { return false; }));
  CHECK(next_executed().ok);
}

TEST_CASE_FIXTURE(macro_fixture, "a volume step is relative to the mixer's value, kept in range") {
  start(with_slot(0, 0, {{"type", "volume"}, {"target", "master"}, {"step", 30}}));
  trigger(0);
  REQUIRE(receive_within(mixer, [&](caf::get_atom) {
    m::mixer_snapshot mix;
    mix.master_volume = 90;
    return mix;
  }));
  REQUIRE(receive_within(mixer, [&](const m::set_master_volume& req) {
    CHECK(req.volume == 100);
    return req.volume;
  }));
  CHECK(next_executed().ok);
}

TEST_CASE_FIXTURE(macro_fixture, "later capabilities fail with 'not available'") {
  json set = m::macros::to_json(m::macros::default_pages());
  set["pages"]["0"][0] = {{"type", "smarthome"}, {"entity_id", "light.a"}, {"action", "toggle"}};
  set["pages"]["0"][1] = {{"type", "media"}, {"action", "next"}};
  set["pages"]["0"][2] = {{"type", "stream_scene"}, {"scene_name", "BRB"}};
  set["pages"]["0"][3] = {{"type", "plugin"}, {"plugin_type", "x"}};
  set["pages"]["0"][4] = {{"type", "profile"}, {"profile", "Gaming"}};
  start({{"macros", set}});
  const char* expected[] = {"Smart home not available", "Music player not available",
                            "Streaming software not available", "Plugins not available",
                            "Profiles not available"};
  for (int i = 0; i < 5; ++i) {
    CAPTURE(i);
    trigger(i);
    auto done = next_executed();
    CHECK_FALSE(done.ok);
    CHECK(done.error == expected[i]);
  }
}

TEST_CASE_FIXTURE(macro_fixture, "a profile macro asks the profiles actor it was linked to") {
  start(with_slot(0, 0, {{"type", "profile"}, {"profile", "Gaming"}}));
  link<m::profiles_actor>(profiles);
  trigger(0);
  REQUIRE(receive_within(profiles, [&](const m::profile_load& req) {
    CHECK(req.name == "Gaming");
    return m::profile_outcome{
        m::profile_outcome::result::not_found, "Profile 'Gaming' not found", {}};
  }));
  auto done = next_executed();
  CHECK_FALSE(done.ok);
  CHECK(done.error == "Profile 'Gaming' not found");
}

TEST_CASE_FIXTURE(macro_fixture, "a smarthome macro asks the smart-home actor it was linked to") {
  json set = m::macros::to_json(m::macros::default_pages());
  set["pages"]["0"][0] = {{"type", "smarthome"}, {"entity_id", "light.a"}, {"action", "toggle"}};
  set["pages"]["0"][1] = {
      {"type", "smarthome"}, {"entity_id", "light.a"}, {"action", "turn_on"}, {"brightness", 40}};
  set["pages"]["0"][2] = {
      {"type", "smarthome"}, {"entity_id", "switch.b"}, {"action", "turn_off"}, {"brightness", 40}};
  start({{"macros", set}});
  caf::scoped_actor home{actors.sys};
  link<m::smarthome_actor>(home);
  using action = m::smarthome_command::action;
  trigger(0);
  REQUIRE(receive_within(home, [&](const m::smarthome_command& req) {
    CHECK(req.entity_id == "light.a");
    CHECK(req.what == action::toggle);
    CHECK_FALSE(req.brightness);
    return m::smarthome_outcome{m::smarthome_outcome::result::ok, {}, {}};
  }));
  CHECK(next_executed().ok);
  trigger(1);
  REQUIRE(receive_within(home, [&](const m::smarthome_command& req) {
    CHECK(req.what == action::turn_on);
    CHECK(req.brightness == 40);
    return m::smarthome_outcome{
        m::smarthome_outcome::result::not_connected, "Smart home not connected", {}};
  }));
  auto done = next_executed();
  CHECK_FALSE(done.ok);
  CHECK(done.error == "Smart home not connected");
  trigger(2);  // turn_off ignores the brightness
  REQUIRE(receive_within(home, [&](const m::smarthome_command& req) {
    CHECK(req.what == action::turn_off);
    CHECK_FALSE(req.brightness);
    return m::smarthome_outcome{
        m::smarthome_outcome::result::timeout, "Home Assistant did not answer within 3 s", {}};
  }));
  CHECK(next_executed().error == "Home Assistant did not answer within 3 s");
}

TEST_CASE_FIXTURE(macro_fixture, "stream macros ask the stream actor they were linked to") {
  caf::scoped_actor stream{actors.sys};
  auto set = with_slot(0, 0, {{"type", "stream_scene"}, {"scene_name", "Live"}})["macros"];
  set["pages"]["0"][1] = {{"type", "stream_source"}, {"source_name", "Cam"}};
  set["pages"]["0"][2] = {{"type", "stream_source"}, {"source_name", "Cam"}, {"visible", false}};
  start({{"macros", set}});
  link<m::stream_actor>(stream);
  trigger(0);
  REQUIRE(receive_within(stream, [&](const m::stream_scene_set& req) {
    CHECK(req.scene_name == "Live");
    return m::stream_outcome{m::stream_outcome::result::ok, {}, {}};
  }));
  CHECK(next_executed().ok);
  trigger(1);  // "toggle" by default: no value
  REQUIRE(receive_within(stream, [&](const m::stream_source_set& req) {
    CHECK(req.source_name == "Cam");
    CHECK_FALSE(req.visible.has_value());
    return m::stream_outcome{
        m::stream_outcome::result::not_connected, "Streaming software not connected", {}};
  }));
  auto done = next_executed();
  CHECK_FALSE(done.ok);
  CHECK(done.error == "Streaming software not connected");
  trigger(2);
  REQUIRE(receive_within(stream, [&](const m::stream_source_set& req) {
    CHECK(req.visible == std::optional<bool>(false));
    return m::stream_outcome{m::stream_outcome::result::ok, {}, {}};
  }));
  CHECK(next_executed().ok);
}

TEST_CASE_FIXTURE(macro_fixture, "a media macro asks the music actor, its answer is the outcome") {
  json set = m::macros::to_json(m::macros::default_pages());
  set["pages"]["0"][0] = {{"type", "media"}, {"action", "next"}};
  set["pages"]["0"][1] = {{"type", "media"}, {"action", "play_pause"}};
  start({{"macros", set}});
  link<m::music_actor>(music);
  trigger(0);
  REQUIRE(receive_within(music, [&](const m::media_command& req) {
    CHECK(req.action == "next");
    return m::media_outcome{true, ""};
  }));
  CHECK(next_executed().ok);
  trigger(1);
  REQUIRE(receive_within(music, [&](const m::media_command& req) {
    CHECK(req.action == "play_pause");
    return m::media_outcome{false, "No music player running"};
  }));
  auto done = next_executed();
  CHECK_FALSE(done.ok);
  CHECK(done.error == "No music player running");
}

TEST_CASE_FIXTURE(macro_fixture, "the plugins are asked first, True means handled, not run") {
  json set = m::macros::to_json(m::macros::default_pages());
  set["pages"]["0"][0] = {{"type", "mute"}, {"name", "Mic"}, {"icon", ""}, {"target", 1}};
  start({{"macros", set}});
  link<m::plugins_actor>(plugins);
  trigger(0);
  REQUIRE(receive_within(plugins, [&](const m::plugin_macro_ask& req) {
    CHECK(req.macro["name"] == "Mic");
    return true;
  }));
  auto done = next_executed();
  CHECK(done.ok);
  CHECK(done.name == "Mic");
  // False: the macro runs as usual, and while the plugins are asked the slot counts as running.
  trigger(0);
  CHECK(trigger(0).what == m::macro_trigger_outcome::result::running);
  REQUIRE(receive_within(plugins, [&](const m::plugin_macro_ask&) { return false; }));
  REQUIRE(receive_within(mixer, [&](const m::toggle_mute& req) {
    CHECK(req.index == 0);  // mute 1, 0-based
    return true;
  }));
  CHECK(next_executed().ok);
  // The mixer got that one toggle only: the handled run sent none.
  bool another = false;
  mixer->receive([&](const m::toggle_mute&) { another = true; },
                 caf::after(std::chrono::milliseconds(0)) >> [] {});
  CHECK_FALSE(another);
}

TEST_CASE_FIXTURE(macro_fixture,
                  "a plugin macro runs through the bridge, its outcome is the run's") {
  start(with_slot(0, 0,
                  {{"type", "plugin"},
                   {"name", "Count"},
                   {"icon", ""},
                   {"plugin_type", "counter"},
                   {"step", 2}}));
  link<m::plugins_actor>(plugins);
  trigger(0);
  REQUIRE(receive_within(plugins, [&](const m::plugin_macro_ask&) { return false; }));
  REQUIRE(receive_within(plugins, [&](const m::plugin_macro_run& req) {
    CHECK(req.macro["plugin_type"] == "counter");
    CHECK(req.macro["step"] == 2);
    return m::plugin_macro_outcome{false, "no running plugin handles plugin_type 'counter'"};
  }));
  auto done = next_executed();
  CHECK_FALSE(done.ok);
  CHECK(done.error == "no running plugin handles plugin_type 'counter'");
}

TEST_CASE_FIXTURE(macro_fixture, "a sequence runs its steps in order, waits its delays, stops") {
  json steps = json::array({{{"type", "mute"}, {"target", 1}},
                            {{"type", "delay"}, {"ms", 150}},
                            {{"type", "mute"}, {"target", "master"}},
                            {{"type", "smarthome"}, {"entity_id", "light.a"}, {"action", "toggle"}},
                            {{"type", "mute"}, {"target", 4}}});
  start(with_slot(0, 5, {{"type", "sequence"}, {"name", "Seq"}, {"steps", steps}}));
  trigger(5);
  std::chrono::steady_clock::time_point first;
  REQUIRE(receive_within(mixer, [&](const m::toggle_mute& req) {
    CHECK(req.index == 0);
    first = std::chrono::steady_clock::now();
    return true;
  }));
  REQUIRE(receive_within(mixer, [&](const m::toggle_mute& req) {
    CHECK(req.index == protocol::master_index);
    CHECK(std::chrono::steady_clock::now() - first >= 150ms);
    return true;
  }));
  auto done = next_executed();
  CHECK_FALSE(done.ok);
  CHECK(done.error == "steps[3] (smarthome): Smart home not available");
  // The step after the failure never ran.
  mixer->send(macros, m::macro_trigger{0, 0});
  bool answered = false;
  mixer->receive([&](const m::macro_trigger_outcome&) { answered = true; },
                 [&](const m::toggle_mute&) { FAIL("a step after the failure ran"); },
                 caf::after(2s) >> [] {});
  CHECK(answered);
}

TEST_CASE_FIXTURE(macro_fixture, "a command runs without a shell, its exit status decides") {
  json set = m::macros::to_json(m::macros::default_pages());
  set["pages"]["0"][0] = command({"/bin/sh", "-c", "echo hello; exit 3"}, "three");
  set["pages"]["0"][1] = command({"true"}, "true");
  set["pages"]["0"][2] = command({"no-such-program-mixerd"}, "none");
  start({{"macros", set}});
  trigger(0);
  auto failed = next_executed();
  CHECK_FALSE(failed.ok);
  CHECK(failed.error == "exited with status 3");
  trigger(1);
  CHECK(next_executed().ok);
  trigger(2);
  CHECK(next_executed().error == "program 'no-such-program-mixerd' not found in PATH");
}

TEST_CASE_FIXTURE(macro_fixture, "an http macro to a closed port fails, named") {
  auto settings =
      with_slot(0, 0, {{"type", "http"}, {"url", "http://127.0.0.1:1/x"}, {"method", "GET"}});
  settings["http_macro_allow"] = {"127.0.0.1"};
  start(settings);
  trigger(0);
  auto done = next_executed();
  CHECK_FALSE(done.ok);
  CHECK(done.error == "could not reach 127.0.0.1");
}

TEST_CASE_FIXTURE(macro_fixture, "an http macro to this machine, not allowed, reads as closed") {
  // A server that would answer: the macro never reaches it, and its outcome is the sentence of
  // a closed port (no scanner).
  boost::asio::ip::tcp::acceptor listening(io.io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  const auto port = listening.local_endpoint().port();
  auto set = with_slot(0, 0,
                       {{"type", "http"},
                        {"url", "http://127.0.0.1:" + std::to_string(port) + "/"},
                        {"method", "GET"}});
  set["macros"]["pages"]["0"][1] = {
      {"type", "http"}, {"url", "http://localhost:5000/api/status"}, {"method", "GET"}};
  set["http_macro_allow"] = {"localhost"};
  start(set);
  trigger(0);
  CHECK(next_executed().error == "could not reach 127.0.0.1");
  // Allowed by name, but mixerd's own listener: refused all the same.
  trigger(1);
  CHECK(next_executed().error == "could not reach localhost");
  CHECK(view->load()->http_allow.size() == 1);
}

TEST_CASE_FIXTURE(macro_fixture, "a run asked through more than 4 runs is refused") {
  start(with_slot(0, 0, {{"type", "http"}, {"url", "http://127.0.0.1:1/x"}, {"method", "GET"}}));
  CHECK(trigger(0, std::nullopt, 5).what == m::macro_trigger_outcome::result::too_deep);
  CHECK(trigger(0, std::nullopt, 4).what == m::macro_trigger_outcome::result::started);
  next_executed();
}

TEST_CASE_FIXTURE(macro_fixture, "a slot runs at most 10 times in 2 s, the daemon 20 in 1 s") {
  auto set =
      with_slot(0, 0, {{"type", "http"}, {"url", "http://127.0.0.1:1/x"}, {"method", "GET"}});
  for (int i = 1; i < 4; ++i)
    set["macros"]["pages"]["0"][i] = set["macros"]["pages"]["0"][0];
  start(set);
  for (int i = 0; i < 10; ++i) {
    REQUIRE(trigger(0).what == m::macro_trigger_outcome::result::started);
    next_executed();
  }
  auto refused = trigger(0);
  CHECK(refused.what == m::macro_trigger_outcome::result::too_often);
  CHECK(refused.retry_after >= 1);
}

TEST_CASE_FIXTURE(macro_fixture, "the daemon runs at most 20 macros in 1 s") {
  auto set =
      with_slot(0, 0, {{"type", "http"}, {"url", "http://127.0.0.1:1/x"}, {"method", "GET"}});
  for (int i = 1; i < 4; ++i)
    set["macros"]["pages"]["0"][i] = set["macros"]["pages"]["0"][0];
  start(set);
  int started = 0;
  int refused = 0;
  for (int round = 0; round < 8; ++round)
    for (int slot = 0; slot < 4; ++slot) {
      auto out = trigger(slot);
      if (out.what == m::macro_trigger_outcome::result::started) {
        ++started;
        next_executed();
      } else if (out.what == m::macro_trigger_outcome::result::too_often) {
        ++refused;
      }
    }
  CHECK(started == 20);
  CHECK(refused == 12);
}

TEST_CASE_FIXTURE(macro_fixture, "an edit persists, tells the clients and reaches the device") {
  start();
  std::string error;
  auto value = *m::macros::parse_macro({{"type", "mute"}, {"name", "M"}, {"target", 1}},
                                       m::macros::origin::api, error);
  auto stored = m::test::ask<m::macro_edit_outcome>(hub, macros, m::macro_edit{0, 3, value, true});
  CHECK(stored.what == m::macro_edit_outcome::result::stored);
  CHECK(stored.stored.fields == value.fields);
  CHECK(next_put().second["pages"]["0"][3]["name"] == "M");
  // The slot first, then the whole set, which clients that read the slot's event do not need.
  auto slot = as<m::macro_change>(next_published());
  CHECK(slot.to_json() == nlohmann::json{{"page", 0}, {"index", 3}, {"macro", value.fields}});
  auto change = as<m::macros_change>(next_published());
  CHECK(change.set["pages"]["0"][3]["target"] == 1);
  CHECK(m::event(change).replaced_by() == "macro_change");
  auto lines = device_lines(10);
  CHECK(lines[4] == "MACRO,3,M,");
  CHECK(view->load()->set.pages[0][3].type() == "mute");

  // Another page: persisted and told, but the device shows page 0 and hears nothing.
  m::test::ask<m::macro_edit_outcome>(hub, macros, m::macro_edit{2, 0, value, true});
  next_put();
  as<m::macro_change>(next_published());
  as<m::macros_change>(next_published());
  CHECK(m::test::ask<std::string>(hub, macros, m::macro_page_rename{2, "Games"}) == "Games");
  CHECK(next_put().second["page_names"]["2"] == "Games");
  CHECK(as<m::macro_page_name_change>(next_published()).to_json() ==
        nlohmann::json{{"page", 2}, {"name", "Games"}});
  CHECK(m::event(as<m::macros_change>(next_published())).replaced_by() == "macro_page_name_change");
  bool quiet = true;
  device->receive([&](const protocol::host_command&) { quiet = false; },
                  caf::after(100ms) >> [] {});
  CHECK(quiet);
}

TEST_CASE_FIXTURE(macro_fixture, "from the API a command macro is deleted, never written over") {
  start(with_slot(0, 0, command({"/bin/true"})));
  std::string error;
  auto mute =
      *m::macros::parse_macro({{"type", "mute"}, {"target", 1}}, m::macros::origin::api, error);
  auto kept = m::test::ask<m::macro_edit_outcome>(hub, macros, m::macro_edit{0, 0, mute, true});
  CHECK(kept.what == m::macro_edit_outcome::result::kept_command);
  CHECK(kept.stored.type() == "command");
  CHECK(view->load()->set.pages[0][0].type() == "command");
  auto emptied =
      m::test::ask<m::macro_edit_outcome>(hub, macros, m::macro_edit{0, 0, m::macro{}, true});
  CHECK(emptied.stored.type() == "none");
  CHECK(view->load()->set.pages[0][0].type() == "none");
}

TEST_CASE_FIXTURE(macro_fixture, "an edit past the set's bound is refused and changes nothing") {
  start();
  // Sequences of two http steps with 15 KiB bodies: about 30 KiB each, under the macro's own
  // 32 KiB, so that fewer than 36 of them fill the set's 1 MiB.
  std::string error;
  auto big = [&](char c) {
    const json step = {
        {"type", "http"}, {"url", "http://127.0.0.1:9/"}, {"body", std::string(15 * 1024, c)}};
    auto parsed = m::macros::parse_macro({{"type", "sequence"}, {"steps", {step, step}}},
                                         m::macros::origin::api, error);
    REQUIRE_MESSAGE(parsed, error);
    return *parsed;
  };
  const auto one = m::macros::macro_bytes(big('a'));
  REQUIRE(one <= m::macros::max_macro_bytes);
  const std::size_t fit = m::macros::max_set_bytes / one;
  REQUIRE(fit < 36);
  for (std::size_t i = 0; i < fit; ++i) {
    auto out = m::test::ask<m::macro_edit_outcome>(
        hub, macros,
        m::macro_edit{static_cast<int>(i / 9), static_cast<int>(i % 9), big('a'), true});
    REQUIRE(out.what == m::macro_edit_outcome::result::stored);
  }
  const int page = static_cast<int>(fit / 9);
  const int index = static_cast<int>(fit % 9);
  auto refused =
      m::test::ask<m::macro_edit_outcome>(hub, macros, m::macro_edit{page, index, big('b'), true});
  CHECK(refused.what == m::macro_edit_outcome::result::set_too_large);
  CHECK(refused.set_bytes > m::macros::max_set_bytes);
  CHECK(refused.stored.empty());
  CHECK(view->load()->set.pages[page][index].empty());
  CHECK(m::macros::set_bytes(view->load()->set.pages) <= m::macros::max_set_bytes);
  // Emptying a slot always works, and makes room.
  auto emptied =
      m::test::ask<m::macro_edit_outcome>(hub, macros, m::macro_edit{0, 0, m::macro{}, true});
  CHECK(emptied.what == m::macro_edit_outcome::result::stored);
  CHECK(m::test::ask<m::macro_edit_outcome>(hub, macros, m::macro_edit{page, index, big('b'), true})
            .what == m::macro_edit_outcome::result::stored);
}

TEST_CASE_FIXTURE(macro_fixture, "a profile's macros replace the pages and keep the current page") {
  start(with_slot(0, 0, {{"type", "mute"}, {"target", 1}}, 2));
  auto fresh = m::macros::default_pages();
  fresh.page_names[2] = "Loaded";
  std::string error;
  fresh.pages[2][8] = *m::macros::parse_macro({{"type", "mute"}, {"name", "L"}, {"target", 4}},
                                              m::macros::origin::settings, error);
  CHECK(m::test::ask<bool>(hub, macros, m::macro_replace{fresh.page_names, fresh.pages}));
  auto put = next_put().second;
  CHECK(put["current_page"] == 2);
  CHECK(put["pages"]["0"][0]["type"] == "none");
  CHECK(as<m::macros_change>(next_published()).set["page_names"]["2"] == "Loaded");
  auto lines = device_lines(10);
  CHECK(lines[0] == "MPAGE,2");
  CHECK(lines[9] == "MACRO,8,L,");
}

TEST_CASE_FIXTURE(macro_fixture, "a settings reload re-reads the macros") {
  start();
  auto reloaded = with_slot(1, 0, {{"type", "mute"}, {"name", "R"}, {"target", 1}}, 1);
  hub->send(macros, m::settings_reloaded{reloaded});
  CHECK(as<m::macro_page_change>(next_published()).page == 1);
  CHECK(as<m::macros_change>(next_published()).set["pages"]["1"][0]["name"] == "R");
  auto lines = device_lines(10);
  CHECK(lines[0] == "MPAGE,1");
  CHECK(lines[1] == "MACRO,0,R,");
  CHECK(view->load()->set.current_page == 1);
}
