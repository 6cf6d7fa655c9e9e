#include "actors/mixer/mixer_actor.hpp"

#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "actors/hub/hub_actor.hpp"
#include "protocol/device_codec.hpp"
#include "protocol/json.hpp"
#include "tests/unit/support/actors.hpp"

using json = nlohmann::json;
using mixerd::assignment;
using mixerd::assignment_change;
using mixerd::assignment_type;
using mixerd::device_input;
using mixerd::device_status;
using mixerd::event;
using mixerd::mixer_snapshot;
using mixerd::mixer_view;
using mixerd::mute_change;
using mixerd::slider_change;
using mixerd::volume_change;
using mixerd::test::as;
using mixerd::test::playing;
using mixerd::test::receive_within;
namespace protocol = mixerd::protocol;

namespace {

// Everything a reader sees of the mixer, compared field by field.
void check_same(const mixer_snapshot& a, const mixer_snapshot& b) {
  for (std::size_t i = 0; i < a.sliders.size(); ++i) {
    CAPTURE(i);
    CHECK(a.sliders[i].value == b.sliders[i].value);
    CHECK(a.sliders[i].assigned == b.sliders[i].assigned);
    CHECK(a.sliders[i].label == b.sliders[i].label);
    CHECK(a.sliders[i].muted == b.sliders[i].muted);
    CHECK(a.sliders[i].enforce_volume == b.sliders[i].enforce_volume);
  }
  CHECK(a.mutes.individual == b.mutes.individual);
  CHECK(a.mutes.master == b.mutes.master);
  CHECK(a.master_volume == b.master_volume);
}

// The mixer with four scoped actors standing in for the device, the hub, the settings actor and
// the audio actor (each through its interface), so that every message it sends is observed.
// Device input and device connects reach the mixer from the hub: the capability table subscribes it
// to mixer_subscriptions(); here the scoped hub sends them itself.
struct mixer_fixture : mixerd::test::actor_fixture {
  caf::scoped_actor device{sys};
  caf::scoped_actor hub{sys};
  caf::scoped_actor settings{sys};
  caf::scoped_actor audio{sys};
  std::shared_ptr<mixerd::published<mixer_view>> view;
  mixerd::mixer_actor mixer;

  // Spawns the mixer as the capability table does and takes its watch messages.
  void start(const json& initial = json::object()) {
    view = std::make_shared<mixerd::published<mixer_view>>(
        mixerd::mixer_view_of(mixerd::mixer_from_settings(initial)));
    mixerd::mixer_wiring wiring{
        playing<mixerd::device_actor>(device), playing<mixerd::hub_actor>(hub),
        playing<mixerd::settings_actor>(settings), playing<mixerd::audio_actor>(audio)};
    mixer = spawn(mixerd::mixer_behavior, wiring, initial, view);
    caf::actor watcher;
    caf::actor audio_watcher;
    REQUIRE(
        receive_within(settings, [&](mixerd::watch_atom, const caf::actor& a) { watcher = a; }));
    REQUIRE(
        receive_within(audio, [&](mixerd::watch_atom, const caf::actor& a) { audio_watcher = a; }));
    CHECK(watcher == caf::actor_cast<caf::actor>(mixer));
    CHECK(audio_watcher == caf::actor_cast<caf::actor>(mixer));
  }

  // The next message the audio actor got, of type T.
  template <class T>
  T next_audio() {
    T out;
    REQUIRE_MESSAGE(receive_within(audio, [&](const T& m) { out = m; }),
                    "the audio actor got nothing within 2 s");
    return out;
  }

  // Device input and status arrive through the hub.
  void from_device(protocol::device_event input) { hub->send(mixer, event{device_input{input}}); }

  std::string next_line() {
    protocol::host_command cmd;
    REQUIRE_MESSAGE(receive_within(device, [&](const protocol::host_command& c) { cmd = c; }),
                    "the device got no command within 2 s");
    return protocol::encode_host_command(cmd).text;
  }

  event next_published() { return mixerd::test::next_published(hub); }

  std::pair<std::string, json> next_put() { return mixerd::test::next_put(settings); }

  // Checks that `who` got nothing from the mixer before the mixer answered a probe sent now:
  // messages between two actors keep their order.
  void expect_quiet(caf::scoped_actor& who) {
    who->send(mixer, caf::get_atom_v);
    bool answered = false;
    std::string unexpected;
    who->receive([&](const mixer_snapshot&) { answered = true; },
                 [&](const protocol::host_command& c) {
                   unexpected = "device command " + protocol::encode_host_command(c).text;
                 },
                 [&](caf::publish_atom, const event& e) {
                   unexpected = "published " + std::string(e.wire_name());
                 },
                 [&](caf::put_atom, const std::string& key, const json&) {
                   unexpected = "settings put " + key;
                 },
                 caf::after(mixerd::test::wait_limit) >> [] {});
    CHECK_MESSAGE(unexpected.empty(), unexpected);
    CHECK(answered);
  }

  // Asked through the mixer's interface. Every change is published before the mixer handles
  // its next message, so the published view agrees with the answer.
  mixer_snapshot snapshot() {
    auto out = mixerd::test::ask<mixer_snapshot>(device, mixer, caf::get_atom_v);
    auto seen = view->load();
    REQUIRE(seen != nullptr);
    check_same(seen->mix, out);
    return out;
  }
};

json mutes(std::vector<bool> individual, bool master) {
  return {{"individual", individual}, {"master", master}};
}

}  // namespace

TEST_CASE_FIXTURE(mixer_fixture, "mixer watches the settings and the audio actor") {
  start();  // checks both
  expect_quiet(device);
  expect_quiet(hub);  // the mixer does not subscribe itself: the capability table does
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer topics are device input and device connects") {
  CHECK(mixerd::mixer_subscriptions() ==
        mixerd::kinds_of<mixerd::device_input, mixerd::device_status>());
  start();
  // Wired as the capability table wires it: a real hub, the mixer subscribed to its topics.
  auto real_hub = spawn(mixerd::hub_behavior, std::size_t{4});
  hub->send(real_hub, caf::subscribe_atom_v, caf::actor_cast<caf::actor>(mixer),
            mixerd::mixer_subscriptions());
  hub->send(real_hub, caf::publish_atom_v, event{device_input{protocol::dev_slider{0, 57}}});
  CHECK(as<slider_change>(next_published()).value == 57);
  hub->send(real_hub, caf::publish_atom_v, event{device_status{true, "/dev/ttyACM0"}});
  CHECK(next_line() == "VOL,0,Slider 1,57");
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer pushes labels volumes mutes and master on connect") {
  start();
  hub->send(mixer, event{device_status{true, "x"}});
  const std::vector<std::string> expected = {
      "VOL,0,Slider 1,50", "VOL,1,Slider 2,50", "VOL,2,Slider 3,50", "VOL,3,Slider 4,50",
      "MUTE,0,0",          "MUTE,1,0",          "MUTE,2,0",          "MUTE,3,0",
      "MUTE,MASTER,0",     "MASTER,50"};
  for (const auto& line : expected)
    CHECK(next_line() == line);
  expect_quiet(device);
  expect_quiet(hub);
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer pushes nothing when the device disconnects") {
  start();
  hub->send(mixer, event{device_status{false, "x"}});
  expect_quiet(device);
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer publishes a slider move and tells the device nothing") {
  start();
  from_device(protocol::dev_slider{0, 57});
  auto change = as<slider_change>(next_published());
  CHECK(change.index == 1);
  CHECK(change.value == 57);
  CHECK(change.position == 57);
  CHECK_FALSE(change.pickup);
  expect_quiet(device);
  // The value is kept for the next start, as live state of its own key.
  auto [key, value] = next_put();
  CHECK(key == "slider_values");
  CHECK(value == json::array({57, 50, 50, 50}));
  expect_quiet(settings);

  from_device(protocol::dev_slider{0, 57});  // the same position again
  expect_quiet(hub);
  from_device(protocol::dev_slider{3, 0});
  change = as<slider_change>(next_published());
  CHECK(change.index == 4);
  CHECK(change.value == 0);
  expect_quiet(device);
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer toggles a mute on a button press") {
  start();
  from_device(protocol::dev_mute_press{1});
  CHECK(next_line() == "MUTE,1,1");
  auto change = as<mute_change>(next_published());
  CHECK(change.index == 2);
  CHECK(change.muted);
  auto [key, value] = next_put();
  CHECK(key == "mutes");
  CHECK(value == mutes({false, true, false, false}, false));

  from_device(protocol::dev_mute_press{1});
  CHECK(next_line() == "MUTE,1,0");
  change = as<mute_change>(next_published());
  CHECK(change.index == 2);
  CHECK_FALSE(change.muted);
  CHECK(next_put().second == mutes({false, false, false, false}, false));
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer toggles the master mute") {
  start();
  from_device(protocol::dev_mute_press{protocol::master_index});
  CHECK(next_line() == "MUTE,MASTER,1");
  auto change = as<mute_change>(next_published());
  CHECK(change.index == protocol::master_index);
  CHECK(change.muted);
  CHECK(event{change}.payload() == json{{"index", "master"}, {"muted", true}});
  auto [key, value] = next_put();
  CHECK(key == "mutes");
  CHECK(value == mutes({false, false, false, false}, true));
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer turns the master volume with the encoder") {
  start();
  from_device(protocol::dev_encoder_turn{2});
  CHECK(next_line() == "MASTER,54");
  CHECK(as<volume_change>(next_published()).volume == 54);
  auto [key, value] = next_put();
  CHECK(key == "master_volume");
  CHECK(value == 54);

  from_device(protocol::dev_encoder_turn{-3});
  CHECK(next_line() == "MASTER,48");
  CHECK(as<volume_change>(next_published()).volume == 48);
  CHECK(next_put().second == 48);
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer clamps the encoder at 0 and 100") {
  start();
  from_device(protocol::dev_encoder_turn{100});
  CHECK(next_line() == "MASTER,100");
  CHECK(as<volume_change>(next_published()).volume == 100);
  CHECK(next_put().second == 100);

  // At the end stop the request is still answered, but nothing changed.
  from_device(protocol::dev_encoder_turn{1});
  CHECK(next_line() == "MASTER,100");
  expect_quiet(hub);
  expect_quiet(settings);

  from_device(protocol::dev_encoder_turn{-1000});
  CHECK(next_line() == "MASTER,0");
  CHECK(as<volume_change>(next_published()).volume == 0);
  CHECK(next_put().second == 0);
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer snapshot reflects device input") {
  start();
  from_device(protocol::dev_slider{0, 57});
  from_device(protocol::dev_mute_press{1});
  from_device(protocol::dev_mute_press{protocol::master_index});
  from_device(protocol::dev_encoder_turn{2});
  const mixer_snapshot m = snapshot();
  CHECK(m.sliders[0].value == 57);
  CHECK(m.sliders[1].value == 50);
  CHECK(m.sliders[1].muted);
  CHECK_FALSE(m.sliders[0].muted);
  CHECK(m.mutes.individual[1]);
  CHECK_FALSE(m.mutes.individual[0]);
  CHECK(m.mutes.master);
  CHECK(m.master_volume == 54);
  for (int i = 0; i < 4; ++i) {
    CHECK(m.sliders[i].label == mixerd::default_slider_label(i + 1));
    CHECK(m.sliders[i].assigned == assignment{});
  }
}

TEST_CASE("mixer_from_settings reads labels assignments mutes and master volume") {
  const json s = {{"sliders",
                   {{{"label", "Music"}, {"assignment", {{"type", "app"}, {"names", {"spotify"}}}}},
                    {{"label", "Mic"}, {"assignment", {{"type", "system_default_input"}}}},
                    {{"assignment", {{"type", "specific_app"}, {"names", {"steam"}}}}}}},
                  {"mutes", mutes({false, true, false, true}, true)},
                  {"master_volume", 30}};
  const mixer_snapshot m = mixerd::mixer_from_settings(s);
  CHECK(m.sliders[0].label == "Music");
  CHECK(m.sliders[0].assigned.type == assignment_type::app);
  CHECK(m.sliders[0].assigned.names == std::vector<std::string>{"spotify"});
  CHECK(m.sliders[1].label == "Mic");
  CHECK(m.sliders[1].assigned.type == assignment_type::system_default_input);
  CHECK(m.sliders[2].label == "Slider 3");
  CHECK(m.sliders[2].assigned.names == std::vector<std::string>{"steam"});
  CHECK(m.sliders[3].label == "Slider 4");
  CHECK(m.sliders[3].assigned == assignment{});
  CHECK(m.sliders[1].muted);
  CHECK(m.sliders[3].muted);
  CHECK_FALSE(m.sliders[0].muted);
  CHECK(m.mutes.master);
  CHECK(m.master_volume == 30);
  for (const auto& slider : m.sliders)
    CHECK(slider.value == 50);
}

TEST_CASE("mixer_from_settings keeps the defaults for absent keys") {
  for (const json& s : {json::object(), json{{"sliders", json::array()}, {"mutes", json::object()}},
                        json{{"unrelated", 1}}}) {
    CAPTURE(s.dump());
    const mixer_snapshot m = mixerd::mixer_from_settings(s);
    for (int i = 0; i < 4; ++i) {
      CHECK(m.sliders[i].label == mixerd::default_slider_label(i + 1));
      CHECK(m.sliders[i].value == 50);
      CHECK(m.sliders[i].assigned == assignment{});
      CHECK_FALSE(m.sliders[i].muted);
      CHECK_FALSE(m.mutes.individual[i]);
    }
    CHECK_FALSE(m.mutes.master);
    CHECK(m.master_volume == 50);
  }
  // Only the given parts change.
  const mixer_snapshot m =
      mixerd::mixer_from_settings({{"mutes", {{"master", true}}}, {"master_volume", 150}});
  CHECK(m.mutes.master);
  CHECK_FALSE(m.mutes.individual[0]);
  CHECK(m.master_volume == 100);
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer pushes the persisted state on connect") {
  start({{"sliders", {{{"label", "Music"}}}},
         {"mutes", mutes({false, true, false, false}, true)},
         {"master_volume", 30}});
  hub->send(mixer, event{device_status{true, "/dev/ttyACM0"}});
  const std::vector<std::string> expected = {
      "VOL,0,Music,50", "VOL,1,Slider 2,50", "VOL,2,Slider 3,50", "VOL,3,Slider 4,50", "MUTE,0,0",
      "MUTE,1,1",       "MUTE,2,0",          "MUTE,3,0",          "MUTE,MASTER,1",     "MASTER,30"};
  for (const auto& line : expected)
    CHECK(next_line() == line);
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer applies a renamed slider from reloaded settings") {
  start();
  const json reloaded = {
      {"sliders",
       {json::object(),
        {{"label", "Game"}, {"assignment", {{"type", "app"}, {"names", {"steam"}}}}}}}};
  settings->send(mixer, mixerd::settings_reloaded{reloaded});
  CHECK(next_line() == "VOL,1,Game,50");
  auto change = as<assignment_change>(next_published());
  CHECK(change.index == 2);
  CHECK(change.label == "Game");
  CHECK(change.assigned.type == assignment_type::app);
  CHECK(change.assigned.names == std::vector<std::string>{"steam"});
  expect_quiet(device);
  expect_quiet(hub);
  CHECK(snapshot().sliders[1].label == "Game");

  // The same settings again change nothing.
  settings->send(mixer, mixerd::settings_reloaded{reloaded});
  expect_quiet(device);
  expect_quiet(hub);
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer applies mutes from reloaded settings") {
  start();
  settings->send(mixer,
                 mixerd::settings_reloaded{{{"mutes", mutes({false, false, true, false}, false)}}});
  CHECK(next_line() == "MUTE,2,1");
  auto change = as<mute_change>(next_published());
  CHECK(change.index == 3);
  CHECK(change.muted);
  CHECK(next_put().second == mutes({false, false, true, false}, false));
  expect_quiet(device);
  CHECK(snapshot().sliders[2].muted);
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer hands slider levels, mutes and master to the audio actor") {
  start();
  from_device(protocol::dev_slider{2, 61});
  auto level = next_audio<mixerd::audio_slider_level>();
  CHECK(level.index == 2);
  CHECK(level.volume == 61);
  CHECK_FALSE(level.muted);
  from_device(protocol::dev_mute_press{2});
  level = next_audio<mixerd::audio_slider_level>();
  CHECK(level.index == 2);
  CHECK(level.volume == 61);
  CHECK(level.muted);
  from_device(protocol::dev_encoder_turn{-1});
  auto master = next_audio<mixerd::audio_master_level>();
  CHECK(master.volume == 48);
  CHECK_FALSE(master.muted);
  from_device(protocol::dev_mute_press{protocol::master_index});
  master = next_audio<mixerd::audio_master_level>();
  CHECK(master.volume == 48);
  CHECK(master.muted);
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer hands a new assignment and its enforce flag to audio") {
  start();
  mixerd::set_slider_assignment req{1, assignment{assignment_type::app, {"vlc"}}, std::nullopt,
                                    false};
  device->request(mixer, mixerd::test::wait_limit, req)
      .receive([](const assignment&) {}, [](const caf::error&) {});
  auto target = next_audio<mixerd::audio_slider_target>();
  CHECK(target.index == 1);
  CHECK(target.assigned.names == std::vector<std::string>{"vlc"});
  CHECK_FALSE(target.enforce);
  CHECK_FALSE(snapshot().sliders[1].enforce_volume);
  auto put = next_put();
  CHECK(put.first == "sliders");
  CHECK(put.second[1]["enforce_volume"] == false);
}

TEST_CASE_FIXTURE(mixer_fixture,
                  "mixer takes an outside master change as state, not as a request") {
  start();
  audio->send(mixer, mixerd::master_observed{37, true});
  CHECK(next_line() == "MASTER,37");
  CHECK(as<volume_change>(next_published()).volume == 37);
  CHECK(next_line() == "MUTE,MASTER,1");
  auto mute = as<mute_change>(next_published());
  CHECK(mute.index == protocol::master_index);
  CHECK(mute.muted);
  auto m = snapshot();
  CHECK(m.master_volume == 37);
  CHECK(m.mutes.master);
  expect_quiet(audio);  // nothing echoed back to the audio server
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer drops an outside master change that crossed its own") {
  start();
  from_device(protocol::dev_encoder_turn{1});  // master 52, sent to audio as change 1
  CHECK(next_line() == "MASTER,52");
  CHECK(next_audio<mixerd::audio_master_level>().seq == 1);
  CHECK(as<volume_change>(next_published()).volume == 52);
  next_put();
  audio->send(mixer, mixerd::master_observed{30, false, 0});  // seen before change 1 arrived
  expect_quiet(device);
  CHECK(snapshot().master_volume == 52);
  audio->send(mixer, mixerd::master_observed{31, false, 1});
  CHECK(next_line() == "MASTER,31");
  CHECK(snapshot().master_volume == 31);
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer publishes one view per message that changed something") {
  start({{"master_volume", 30}, {"sliders", {{{"label", "Music"}}}}});
  auto first = view->load();
  REQUIRE(first != nullptr);
  CHECK(first->mix.master_volume == 30);
  CHECK(first->mix.sliders[0].label == "Music");
  // GET /api/sliders is answered from the view's body, encoded on the first read.
  CHECK(json::parse(first->sliders_body.get([&] {
          return mixerd::json::sliders_to_json(first->mix).dump();
        })) == mixerd::json::sliders_to_json(first->mix));

  from_device(protocol::dev_slider{0, 57});
  CHECK(as<slider_change>(next_published()).value == 57);
  snapshot();  // the mixer has handled the move
  auto second = view->load();
  CHECK(second != first);
  CHECK(second->mix.sliders[0].value == 57);
  CHECK(first->mix.sliders[0].value == 50);  // a published view never changes

  from_device(protocol::dev_slider{0, 57});  // no change: no new view
  snapshot();
  CHECK(view->load() == second);
}

TEST_CASE_FIXTURE(mixer_fixture, "mixer_apply applies each difference as its own request would") {
  start();
  auto next = snapshot();  // Slider N, unassigned, 50, enforce; nothing muted; master 50
  next.sliders[0].label = "Music";
  next.sliders[0].assigned = assignment{assignment_type::app, {"spotify"}};
  next.sliders[0].value = 30;
  next.sliders[2].value = 80;  // only the position
  next.sliders[3].enforce_volume = false;
  next.mutes.individual[1] = true;
  next.sliders[1].muted = true;
  next.mutes.master = true;
  next.master_volume = 20;
  CHECK(mixerd::test::ask<bool>(device, mixer, mixerd::mixer_apply{next}));

  // Every change emits its usual event, in the order of the state's fields ...
  auto assigned = as<assignment_change>(next_published());
  CHECK(assigned.index == 1);
  CHECK(assigned.label == "Music");
  CHECK(assigned.assigned.names == std::vector<std::string>{"spotify"});
  auto moved = as<slider_change>(next_published());
  CHECK((moved.index == 1 && moved.value == 30));
  moved = as<slider_change>(next_published());
  CHECK((moved.index == 3 && moved.value == 80));
  auto enforce = as<assignment_change>(next_published());
  CHECK(enforce.index == 4);
  auto muted = as<mute_change>(next_published());
  CHECK((muted.index == 2 && muted.muted));
  muted = as<mute_change>(next_published());
  CHECK((muted.index == protocol::master_index && muted.muted));
  CHECK(as<volume_change>(next_published()).volume == 20);
  expect_quiet(hub);

  // ... reaches the device (a new label goes out with the old position, then the new one) ...
  for (const char* line : {"VOL,0,Music,50", "VOL,0,Music,30", "VOL,2,Slider 3,80",
                           "VOL,3,Slider 4,50", "MUTE,1,1", "MUTE,MASTER,1", "MASTER,20"})
    CHECK(next_line() == line);
  expect_quiet(device);

  // ... and the audio server, and the settings keep what survives a restart.
  auto target = next_audio<mixerd::audio_slider_target>();
  CHECK((target.index == 0 && target.assigned.names == std::vector<std::string>{"spotify"}));
  auto level = next_audio<mixerd::audio_slider_level>();
  CHECK((level.index == 0 && level.volume == 30));
  level = next_audio<mixerd::audio_slider_level>();
  CHECK((level.index == 2 && level.volume == 80));
  target = next_audio<mixerd::audio_slider_target>();
  CHECK((target.index == 3 && !target.enforce));
  level = next_audio<mixerd::audio_slider_level>();
  CHECK((level.index == 1 && level.muted));
  auto master = next_audio<mixerd::audio_master_level>();
  CHECK((master.volume == 50 && master.muted));
  master = next_audio<mixerd::audio_master_level>();
  CHECK((master.volume == 20 && master.muted));
  std::vector<std::string> keys;
  for (int i = 0; i < 7; ++i)
    keys.push_back(next_put().first);
  CHECK(keys == std::vector<std::string>{"sliders", "slider_values", "slider_values", "sliders",
                                         "mutes", "mutes", "master_volume"});
  check_same(snapshot(), next);

  // The same state again changes nothing.
  CHECK(mixerd::test::ask<bool>(device, mixer, mixerd::mixer_apply{next}));
  expect_quiet(hub);
  expect_quiet(device);
  expect_quiet(settings);
}

// ---- Pick-up and deadband (protocol/README.md, "Sliders: pick-up and deadband") ----------------

namespace {

// The slider_change events the mixer publishes, until `value`/`position`/`pickup` match.
slider_change next_slider_change(mixer_fixture& f) {
  return as<slider_change>(f.next_published());
}

}  // namespace

TEST_CASE_FIXTURE(mixer_fixture, "a value set through the API waits for the slider to pick it up") {
  start();
  from_device(protocol::dev_slider{0, 30});
  CHECK(next_slider_change(*this).value == 30);
  CHECK(next_audio<mixerd::audio_slider_level>().volume == 30);
  CHECK(mixerd::test::ask<int>(device, mixer, mixerd::set_slider_value{0, 70}) == 70);
  auto set = next_slider_change(*this);
  CHECK((set.value == 70 && set.position == 30 && set.pickup));
  CHECK(next_audio<mixerd::audio_slider_level>().volume == 70);
  // Far from 70: only the ghost position moves; the audio actor hears nothing new.
  from_device(protocol::dev_slider{0, 40});
  auto ghost = next_slider_change(*this);
  CHECK((ghost.value == 70 && ghost.position == 40 && ghost.pickup));
  from_device(protocol::dev_slider{0, 50});
  ghost = next_slider_change(*this);
  CHECK((ghost.value == 70 && ghost.position == 50));
  expect_quiet(audio);
  CHECK(snapshot().sliders[0].value == 70);
  // Within 2: picked up, and the reading drives.
  from_device(protocol::dev_slider{0, 68});
  auto picked = next_slider_change(*this);
  CHECK((picked.value == 68 && picked.position == 68 && !picked.pickup));
  CHECK(next_audio<mixerd::audio_slider_level>().volume == 68);
  from_device(protocol::dev_slider{0, 20});
  CHECK(next_slider_change(*this).value == 20);
}

TEST_CASE_FIXTURE(mixer_fixture, "a slider that crosses the value picks it up") {
  start();
  from_device(protocol::dev_slider{1, 10});
  CHECK(next_slider_change(*this).value == 10);
  CHECK(mixerd::test::ask<int>(device, mixer, mixerd::set_slider_value{1, 50}) == 50);
  CHECK(next_slider_change(*this).pickup);
  from_device(protocol::dev_slider{1, 40});
  CHECK(next_slider_change(*this).pickup);
  from_device(protocol::dev_slider{1, 60});  // jumped over 50
  auto picked = next_slider_change(*this);
  CHECK((picked.value == 60 && !picked.pickup));
}

TEST_CASE_FIXTURE(mixer_fixture, "restored values hold at start-up and at a reconnect") {
  start(json{{"slider_values", {20, 80, 50, 50}}});
  auto s = snapshot();
  CHECK(s.sliders[0].value == 20);
  CHECK(s.sliders[1].value == 80);
  CHECK(s.sliders[0].pickup);
  CHECK_FALSE(s.sliders[0].position.has_value());
  hub->send(mixer, event{mixerd::device_status{true, "x"}});
  // The device's first readings never move the volume.
  from_device(protocol::dev_slider{0, 90});
  auto ghost = next_slider_change(*this);
  CHECK((ghost.value == 20 && ghost.position == 90 && ghost.pickup));
  from_device(protocol::dev_slider{0, 21});
  CHECK_FALSE(next_slider_change(*this).pickup);
  // A reconnect: every slider waits again, its position unknown.
  hub->send(mixer, event{mixerd::device_status{false, "x"}});
  hub->send(mixer, event{mixerd::device_status{true, "x"}});
  s = snapshot();
  for (const auto& slider : s.sliders) {
    CHECK(slider.pickup);
    CHECK_FALSE(slider.position.has_value());
  }
}

TEST_CASE_FIXTURE(mixer_fixture, "takeover jump follows the first reading") {
  start(json{{"slider_values", {20, 80, 50, 50}}, {"slider_takeover", "jump"}});
  CHECK_FALSE(snapshot().sliders[0].pickup);
  from_device(protocol::dev_slider{0, 90});
  CHECK(next_slider_change(*this).value == 90);
  CHECK(mixerd::test::ask<int>(device, mixer, mixerd::set_slider_value{0, 10}) == 10);
  CHECK_FALSE(next_slider_change(*this).pickup);
}

TEST_CASE_FIXTURE(mixer_fixture, "the deadband drops a small step back and nothing else") {
  start();
  for (int v : {40, 41, 40, 41, 40, 39, 38, 39, 60})
    from_device(protocol::dev_slider{2, v});
  // 40 (down from 50), 41 (back up by 1 against the move down: dropped), 40 (no move), [41
  // dropped], [40], 39, 38, [39: back by 1, dropped], 60.
  std::vector<int> seen;
  for (int i = 0; i < 4; ++i)
    seen.push_back(next_slider_change(*this).value);
  CHECK(seen == std::vector<int>{40, 39, 38, 60});
  expect_quiet(hub);
}

TEST_CASE_FIXTURE(mixer_fixture, "deadband 0 follows every reading") {
  start(json{{"slider_deadband", 0}});
  for (int v : {40, 41, 40})
    from_device(protocol::dev_slider{2, v});
  std::vector<int> seen;
  for (int i = 0; i < 3; ++i)
    seen.push_back(next_slider_change(*this).value);
  CHECK(seen == std::vector<int>{40, 41, 40});
}

TEST_CASE_FIXTURE(mixer_fixture,
                  "an app's own level (policy follow) moves the slider unless stale") {
  start();
  audio->send(mixer, mixerd::app_level_observed{0, 35, 0});
  auto change = next_slider_change(*this);
  CHECK((change.value == 35 && change.index == 1));
  CHECK(next_line() == "VOL,0,Slider 1,35");
  auto level = next_audio<mixerd::audio_slider_level>();
  CHECK(level.volume == 35);
  // An observation made before the mixer's latest level change of the slider is dropped.
  CHECK(mixerd::test::ask<int>(device, mixer, mixerd::set_slider_value{0, 60}) == 60);
  (void)next_slider_change(*this);
  level = next_audio<mixerd::audio_slider_level>();
  audio->send(mixer, mixerd::app_level_observed{0, 10, level.seq - 1});
  CHECK(mixerd::test::ask<int>(device, mixer, mixerd::set_slider_value{0, 60}) == 60);
  CHECK(snapshot().sliders[0].value == 60);
}
