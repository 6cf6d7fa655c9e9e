#include "actors/toast/toast_actor.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <caf/all.hpp>
#include <memory>
#include <string>

#include "protocol/device_codec.hpp"
#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/toast_handlers.hpp"

using json = nlohmann::json;
using mixerd::toast_admission;
using mixerd::toast_outcome;
using mixerd::test::playing;
using mixerd::test::receive_within;
namespace protocol = mixerd::protocol;

namespace {

const std::string key = "0123456789abcdef0123456789abcdef";

// Answers status requests like the device actor and passes host commands to `observer`.
mixerd::device_actor::behavior_type fake_device(mixerd::device_actor::pointer,
                                                std::shared_ptr<std::atomic<bool>> up,
                                                caf::actor observer) {
  return {
      [up](caf::get_atom, mixerd::status_atom) {
        mixerd::device_view s;
        s.connected = up->load();
        return s;
      },
      [observer](const protocol::host_command& c) { caf::anon_send(observer, c); },
  };
}

// The toast actor with a fake device and a scoped actor playing the settings actor. Events
// reach it from the hub: the capability table subscribes it to toast_subscriptions(); here the
// scoped `hub` sends them itself.
struct toast_fixture : mixerd::test::actor_fixture {
  caf::scoped_actor device_lines{sys};
  caf::scoped_actor hub{sys};
  caf::scoped_actor settings{sys};
  caf::scoped_actor client{sys};
  std::shared_ptr<std::atomic<bool>> up = std::make_shared<std::atomic<bool>>(true);
  std::shared_ptr<mixerd::published<mixerd::toast_view>> view =
      std::make_shared<mixerd::published<mixerd::toast_view>>();
  mixerd::device_actor device;
  mixerd::toast_actor toast;

  void start(json initial = json{{"toast_api_key", key}}) {
    device = spawn(fake_device, up, caf::actor{device_lines});
    toast = spawn(mixerd::toast_behavior,
                  mixerd::toast_wiring{device, playing<mixerd::settings_actor>(settings),
                                       mixerd::test::every_toast_handler()},
                  initial, view);
    REQUIRE(receive_within(settings, [&](mixerd::watch_atom, const caf::actor&) {}));
  }

  template <class T, class... Ts>
  T ask(Ts&&... xs) {
    return mixerd::test::ask<T>(client, toast, std::forward<Ts>(xs)...);
  }

  toast_admission admit(std::string address, std::string given, bool needs_key = true) {
    return ask<toast_admission>(
        mixerd::toast_admit{std::move(address), std::move(given), needs_key});
  }

  toast_outcome::result post(std::string handler, mixerd::toast_content t) {
    return ask<toast_outcome>(mixerd::toast_post{std::move(handler), std::move(t)}).what;
  }

  std::string next_line() {
    protocol::host_command cmd;
    REQUIRE_MESSAGE(receive_within(device_lines, [&](const protocol::host_command& c) { cmd = c; }),
                    "the device got no command within 2 s");
    return protocol::encode_host_command(cmd).text;
  }

  std::pair<std::string, json> next_put() { return mixerd::test::next_put(settings); }

  mixerd::toast_history history() {
    return ask<mixerd::toast_history>(caf::get_atom_v, mixerd::history_atom_v);
  }
};

mixerd::toast_content toast_of(std::string message, int duration_ms = 3000) {
  mixerd::toast_content t;
  t.message = std::move(message);
  t.duration_ms = duration_ms;
  return t;
}

using verdict = toast_admission::verdict;
using result = toast_outcome::result;

}  // namespace

TEST_CASE_FIXTURE(toast_fixture, "the key is checked only where needed, and must match") {
  start();
  CHECK(admit("127.0.0.1", key).what == verdict::ok);
  CHECK(admit("127.0.0.1", key + "0").what == verdict::unauthorized);
  CHECK(admit("127.0.0.1", key.substr(1)).what == verdict::unauthorized);
  CHECK(admit("127.0.0.1", "").what == verdict::unauthorized);
  CHECK(admit("127.0.0.1", "", false).what == verdict::ok);
}

TEST_CASE_FIXTURE(toast_fixture, "without a key in settings nothing is authorized") {
  start(json::object());
  CHECK(admit("127.0.0.1", "").what == verdict::unauthorized);
  CHECK(admit("127.0.0.1", "x").what == verdict::unauthorized);
}

TEST_CASE_FIXTURE(toast_fixture, "the 31st request of an address is refused, others pass") {
  start();
  for (int i = 0; i < 30; ++i)
    CHECK(admit("10.0.0.1", i % 2 ? key : "wrong").what != verdict::rate_limited);
  auto refused = admit("10.0.0.1", key);
  CHECK(refused.what == verdict::rate_limited);
  CHECK(refused.retry_after >= 59);
  CHECK(refused.retry_after <= 60);
  CHECK(admit("10.0.0.2", key).what == verdict::ok);
}

TEST_CASE_FIXTURE(toast_fixture, "a toast goes to the device with its handler's colour") {
  start();
  CHECK(post("api", toast_of("Build, done")) == result::shown);
  CHECK(next_line() == "TOAST,3000,bell,3B82F6,Build\\, done,");
  auto t = toast_of("Red");
  t.color = "FF0000";
  CHECK(post("api", t) == result::shown);
  CHECK(next_line() == "TOAST,3000,bell,FF0000,Red,");
}

TEST_CASE_FIXTURE(toast_fixture, "no device, a disabled or unknown handler: nothing is sent") {
  start();
  up->store(false);
  CHECK(post("api", toast_of("a")) == result::device_offline);
  up->store(true);
  CHECK(post("nope", toast_of("b")) == result::unknown_handler);
  mixerd::toast_switch_result sw =
      ask<mixerd::toast_switch_result>(mixerd::toast_switch{"api", false});
  CHECK(sw.found);
  CHECK_FALSE(sw.handler.enabled);
  CHECK(post("api", toast_of("c")) == result::handler_disabled);
  CHECK(post("system", toast_of("d")) == result::shown);
  CHECK(next_line() == "TOAST,3000,bell,6B7280,d,");
  auto h = history();
  REQUIRE(h.size() == 3);  // the unknown handler's toast is not a toast of mixerd's
  CHECK(h[0].outcome == result::device_offline);
  CHECK(h[1].outcome == result::handler_disabled);
  CHECK(h[2].outcome == result::shown);
}

TEST_CASE_FIXTURE(toast_fixture, "switches are persisted as toast_handlers") {
  start();
  auto sw = ask<mixerd::toast_switch_result>(mixerd::toast_switch{"music", false});
  CHECK(sw.handler.id == "music");
  CHECK(sw.handler.loaded);
  auto put = next_put();
  CHECK(put.first == "toast_handlers");
  CHECK(put.second == json{{"api", true},
                           {"system", true},
                           {"stream", true},
                           {"smarthome", true},
                           {"music", false},
                           {"plugins", true}});
  auto unknown = ask<mixerd::toast_switch_result>(mixerd::toast_switch{"calendar", false});
  CHECK_FALSE(unknown.found);
  auto list = ask<mixerd::toast_handler_list>(caf::get_atom_v, mixerd::handlers_atom_v);
  REQUIRE(list.size() == 6);
  CHECK_FALSE(list[4].enabled);
}

TEST_CASE_FIXTURE(toast_fixture, "switches and the key come from settings and their reload") {
  start(json{{"toast_api_key", key}, {"toast_handlers", {{"system", false}, {"future", true}}}});
  auto list = ask<mixerd::toast_handler_list>(caf::get_atom_v, mixerd::handlers_atom_v);
  CHECK_FALSE(list[1].enabled);
  CHECK(list[0].enabled);
  const std::string other = "fedcba9876543210fedcba9876543210";
  settings->send(toast, mixerd::settings_reloaded{json{{"toast_api_key", other}}});
  CHECK(admit("127.0.0.1", key).what == verdict::unauthorized);
  CHECK(admit("127.0.0.1", other).what == verdict::ok);
  list = ask<mixerd::toast_handler_list>(caf::get_atom_v, mixerd::handlers_atom_v);
  CHECK(list[1].enabled);
}

TEST_CASE_FIXTURE(toast_fixture, "regenerate: saved, answered after the save, old key refused") {
  start();
  client->send(toast, mixerd::regenerate_atom_v);
  auto put = next_put();
  CHECK(put.first == "toast_api_key");
  const std::string fresh = put.second.get<std::string>();
  CHECK(fresh.size() == 64);
  CHECK(fresh != key);
  REQUIRE(receive_within(settings, [](caf::flush_atom) { return true; }));
  std::string answered;
  REQUIRE(receive_within(client, [&](const std::string& k) { answered = k; }));
  CHECK(answered == fresh);
  CHECK(admit("127.0.0.1", key).what == verdict::unauthorized);
  CHECK(admit("127.0.0.1", fresh).what == verdict::ok);
}

TEST_CASE_FIXTURE(toast_fixture,
                  "one toast at a time: a newer one replaces it, and the history is bounded") {
  start();
  CHECK(post("api", toast_of("first", 30000)) == result::shown);
  CHECK(post("api", toast_of("second", 30000)) == result::shown);
  CHECK(next_line() == "TOAST,30000,bell,3B82F6,first,");
  CHECK(next_line() == "TOAST,30000,bell,3B82F6,second,");
  auto h = history();
  REQUIRE(h.size() == 2);
  CHECK(h[0].replaced);
  CHECK_FALSE(h[1].replaced);
  for (int i = 0; i < 40; ++i)
    post("api", toast_of("t" + std::to_string(i)));
  h = history();
  CHECK(h.size() == mixerd::limits::toast_history_size);
  CHECK(h.back().toast.message == "t39");
}

TEST_CASE_FIXTURE(toast_fixture, "the system handler announces the device's link") {
  start();
  hub->send(toast, mixerd::event{mixerd::device_status{true, "/dev/ttyACM0"}});
  CHECK(next_line() == "TOAST,3000,checkmark,6B7280,Mixer connected,");
  hub->send(toast, mixerd::event{mixerd::device_status{false, "/dev/ttyACM0"}});
  hub->send(toast, mixerd::event{mixerd::device_status{true, "/dev/ttyACM0"}});
  CHECK(next_line() == "TOAST,3000,checkmark,6B7280,Mixer reconnected,");
  auto h = history();
  REQUIRE(h.size() == 3);
  CHECK(h[1].toast.message == "Mixer disconnected");
  CHECK(h[1].outcome == result::device_offline);
  ask<mixerd::toast_switch_result>(mixerd::toast_switch{"system", false});
  hub->send(toast, mixerd::event{mixerd::device_status{true, "/dev/ttyACM0"}});
  CHECK(history().back().outcome == result::handler_disabled);
  // Nothing reached the device: the next line is this probe's.
  CHECK(post("api", toast_of("probe")) == result::shown);
  CHECK(next_line() == "TOAST,3000,bell,3B82F6,probe,");
}

TEST_CASE_FIXTURE(toast_fixture, "the audio server's loss is announced once, its return after it") {
  start();
  // A first connect is no news. A loss counts even when the connect before it was published
  // before this actor subscribed (here: never seen at all).
  hub->send(toast, mixerd::event{mixerd::audio_status{false, "PulseAudio 16.1"}});
  CHECK(next_line() == "TOAST,3000,warning,6B7280,Audio server lost,");
  hub->send(toast, mixerd::event{mixerd::audio_status{false, "PulseAudio 16.1"}});
  hub->send(toast, mixerd::event{mixerd::audio_status{true, "PulseAudio 16.1"}});
  CHECK(next_line() == "TOAST,3000,audio,6B7280,Audio server back,");
  hub->send(toast, mixerd::event{mixerd::audio_status{true, "PulseAudio 16.1"}});
  // Nothing else reached the device: the next line is this probe's.
  CHECK(post("api", toast_of("probe")) == result::shown);
  CHECK(next_line() == "TOAST,3000,bell,3B82F6,probe,");
}

TEST_CASE_FIXTURE(toast_fixture, "a first connect of the audio server is no news") {
  start();
  hub->send(toast, mixerd::event{mixerd::audio_status{true, "PulseAudio 16.1"}});
  CHECK(post("api", toast_of("probe")) == result::shown);
  CHECK(next_line() == "TOAST,3000,bell,3B82F6,probe,");
}

TEST_CASE_FIXTURE(toast_fixture, "an integration's toast shows only while its handler is on") {
  start();
  client->send(toast, mixerd::toast_notice{"music", toast_of("Now playing")});
  CHECK(next_line() == "TOAST,3000,bell,1DB954,Now playing,");
  ask<mixerd::toast_switch_result>(mixerd::toast_switch{"music", false});
  client->send(toast, mixerd::toast_notice{"music", toast_of("Next track")});
  client->send(toast, mixerd::toast_notice{"calendar", toast_of("Meeting")});
  CHECK(post("api", toast_of("probe")) == result::shown);
  CHECK(next_line() == "TOAST,3000,bell,3B82F6,probe,");
  auto h = history();
  REQUIRE(h.size() == 3);
  CHECK(h[1].handler == "music");
  CHECK(h[1].outcome == result::handler_disabled);
}

TEST_CASE_FIXTURE(toast_fixture, "the handler switches are published as a toast_view") {
  start(json{{"toast_api_key", key}, {"toast_handlers", {{"stream", false}}}});
  // The view is there as soon as the actor ran (the start took its watch message).
  auto first = view->load();
  REQUIRE(first != nullptr);
  REQUIRE(first->handlers.size() == 6);
  CHECK(first->handlers[2].id == "stream");
  CHECK_FALSE(first->handlers[2].enabled);

  ask<mixerd::toast_switch_result>(mixerd::toast_switch{"music", false});
  auto second = view->load();
  CHECK_FALSE(second->handlers[4].enabled);
  CHECK_FALSE(second->handlers[2].enabled);
  CHECK(first->handlers[4].enabled);  // a published view never changes

  settings->send(toast, mixerd::settings_reloaded{json{{"toast_api_key", key}}});
  auto list = ask<mixerd::toast_handler_list>(caf::get_atom_v, mixerd::handlers_atom_v);
  auto third = view->load();
  REQUIRE(third->handlers.size() == list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    CAPTURE(i);
    CHECK(third->handlers[i].id == list[i].id);
    CHECK(third->handlers[i].enabled);
    CHECK(list[i].enabled);
  }
}

TEST_CASE_FIXTURE(toast_fixture,
                  "the plugins handler is loaded while a plugin runs, reload or not") {
  start(json{{"toast_api_key", key}});
  auto list = ask<mixerd::toast_handler_list>(caf::get_atom_v, mixerd::handlers_atom_v);
  REQUIRE(list[5].id == "plugins");
  CHECK_FALSE(list[5].loaded);
  settings->send(toast, mixerd::toast_loaded{"plugins", true});
  list = ask<mixerd::toast_handler_list>(caf::get_atom_v, mixerd::handlers_atom_v);
  CHECK(list[5].loaded);
  CHECK(view->load()->handlers[5].loaded);
  // A hand-edited file changes the switches, not whether the plugins run.
  settings->send(toast, mixerd::settings_reloaded{json{{"toast_handlers", {{"plugins", false}}}}});
  list = ask<mixerd::toast_handler_list>(caf::get_atom_v, mixerd::handlers_atom_v);
  CHECK(list[5].loaded);
  CHECK_FALSE(list[5].enabled);
  settings->send(toast, mixerd::toast_loaded{"plugins", false});
  list = ask<mixerd::toast_handler_list>(caf::get_atom_v, mixerd::handlers_atom_v);
  CHECK_FALSE(list[5].loaded);
}

TEST_CASE("toast topics are device and audio server connects") {
  CHECK(mixerd::toast_subscriptions() ==
        mixerd::kinds_of<mixerd::device_status, mixerd::audio_status>());
}
