#include "gateways/socketio/broadcaster.hpp"

#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "actors/hub/hub_actor.hpp"
#include "protocol/audio.hpp"
#include "protocol/device.hpp"
#include "protocol/macros.hpp"
#include "protocol/mixer.hpp"
#include "protocol/music.hpp"
#include "protocol/plugins.hpp"
#include "protocol/profiles.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/stream.hpp"
#include "tests/unit/support/actors.hpp"

using json = nlohmann::json;
using mixerd::event;
using mixerd::socketio::encode_event;
using mixerd::test::playing;
using mixerd::test::receive_within;
namespace protocol = mixerd::protocol;
using namespace std::chrono_literals;

namespace {

mixerd::assignment app_of(std::vector<std::string> names) {
  mixerd::assignment a;
  a.type = mixerd::assignment_type::app;
  a.names = std::move(names);
  return a;
}

// An encoded event as a Socket.IO client reads it: "42" then [name, payload].
json wire(const std::string& text) {
  REQUIRE(text.rfind("42", 0) == 0);
  return json::parse(text.substr(2));
}

// What `deliver` was handed, in order (it is called on an actor's thread).
class delivered {
 public:
  mixerd::socketio::deliver_fn sink() {
    return [this](mixerd::socketio::client_frame frame) {
      std::lock_guard<std::mutex> lock(mutex_);
      texts_.push_back(std::move(frame.text));
      replaced_by_.push_back(std::string(frame.replaced_by));
      changed_.notify_all();
    };
  }
  // The next text, nullopt when none came within `limit`.
  std::optional<std::string> next(std::chrono::milliseconds limit = 2s) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!changed_.wait_for(lock, limit, [&] { return !texts_.empty(); })) return std::nullopt;
    auto text = texts_.front();
    texts_.pop_front();
    last_replaced_by_ = replaced_by_.front();
    replaced_by_.pop_front();
    REQUIRE(text != nullptr);
    return *text;
  }
  // The replaced_by of the text next() returned last.
  const std::string& last_replaced_by() const { return last_replaced_by_; }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::shared_ptr<const std::string>> texts_;
  std::deque<std::string> replaced_by_;
  std::string last_replaced_by_;
};

// One of every event that clients see, and the two that they do not.
std::vector<event> client_events() {
  return {mixerd::slider_change{1, 5},
          mixerd::assignment_change{2, app_of({"vlc"}), "Video"},
          mixerd::mute_change{3, true},
          mixerd::mute_change{protocol::master_index, false},
          mixerd::volume_change{33},
          mixerd::profile_change{"Gaming"},
          mixerd::device_status{true, "/dev/ttyACM0"},
          mixerd::audio_status{false, "pulseaudio 16.1"}};
}

// What the capabilities declare: every event type, the internal ones included.
mixerd::event_kind_list declared_events() {
  using namespace mixerd;
  return list_of_kinds<slider_change, assignment_change, mute_change, volume_change, profile_change,
                       macro_executed, macro_page_change, macros_change, macro_change,
                       macro_page_name_change, device_status, audio_status, smarthome_change,
                       smarthome_status, stream_change, stream_status, music_change, plugin_status,
                       serial_raw, device_input>();
}

}  // namespace

TEST_CASE("encode_event writes each client event as a Socket.IO event message") {
  CHECK(encode_event(mixerd::slider_change{1, 5}) ==
        R"(42["slider_change",{"index":1,"pickup":false,"position":null,"value":5}])");
  CHECK(wire(encode_event(mixerd::assignment_change{2, app_of({"vlc"}), "Video"})) ==
        json::array({"assignment_change",
                     {{"index", 2},
                      {"assignment", {{"type", "app"}, {"names", {"vlc"}}}},
                      {"label", "Video"}}}));
  CHECK(wire(encode_event(mixerd::mute_change{3, true})) ==
        json::array({"mute_change", {{"index", 3}, {"muted", true}}}));
  CHECK(wire(encode_event(mixerd::mute_change{protocol::master_index, false})) ==
        json::array({"mute_change", {{"index", "master"}, {"muted", false}}}));
  CHECK(wire(encode_event(mixerd::volume_change{33})) ==
        json::array({"volume_change", {{"volume", 33}}}));
  CHECK(wire(encode_event(mixerd::profile_change{"Gaming"})) ==
        json::array({"profile_change", {{"profile", "Gaming"}}}));
  CHECK(wire(encode_event(mixerd::device_status{true, "/dev/ttyACM0"})) ==
        json::array({"device_status", {{"connected", true}, {"port", "/dev/ttyACM0"}}}));
  CHECK(wire(encode_event(mixerd::audio_status{false, "pulseaudio 16.1"})) ==
        json::array({"audio_status", {{"connected", false}, {"server", "pulseaudio 16.1"}}}));
}

TEST_CASE("encode_event: name and payload are the event's own") {
  for (const auto& e : client_events()) {
    CAPTURE(e.wire_name());
    CHECK(e.for_clients());
    CHECK(wire(encode_event(e)) == json::array({std::string(e.wire_name()), e.payload()}));
  }
  // Text that is not valid UTF-8 (from the device) cannot make the encoding throw.
  CHECK_NOTHROW(encode_event(mixerd::profile_change{"\xff\xfe"}));
}

TEST_CASE("sio_broadcaster subscribes to the client topics and delivers one text per event") {
  mixerd::test::actor_fixture f;
  caf::scoped_actor hub{f.sys};
  delivered out;
  auto broadcaster = f.spawn(mixerd::socketio::sio_broadcaster, playing<mixerd::hub_actor>(hub),
                             mixerd::client_kinds(declared_events()), out.sink());
  caf::actor subscriber;
  mixerd::event_kind_set topics;
  REQUIRE(receive_within(hub,
                         [&](caf::subscribe_atom, const caf::actor& who, mixerd::event_kind_set t) {
                           subscriber = who;
                           topics = t;
                         }));
  CHECK(subscriber == broadcaster);
  CHECK(topics == mixerd::client_kinds(declared_events()));

  // The hub hands it each event of those topics; each becomes exactly one text, in order.
  const auto events = client_events();
  for (const auto& e : events)
    hub->send(broadcaster, e);
  for (const auto& e : events) {
    CAPTURE(e.wire_name());
    CHECK(out.next() == encode_event(e));
  }
  // Nothing more: a duplicate would come before this marker.
  hub->send(broadcaster, event{mixerd::profile_change{"marker"}});
  CHECK(out.next() == encode_event(mixerd::profile_change{"marker"}));
  CHECK(out.last_replaced_by().empty());

  // The whole macro set after an edit names the slot's event, which carries the same change.
  hub->send(broadcaster, event{mixerd::macro_change{1, 2, json{{"type", "none"}}}});
  CHECK(wire(*out.next()) ==
        json::array({"macro_change", {{"page", 1}, {"index", 2}, {"macro", {{"type", "none"}}}}}));
  CHECK(out.last_replaced_by().empty());
  hub->send(broadcaster, event{mixerd::macros_change{json{{"current_page", 0}}, "macro_change"}});
  CHECK(wire(*out.next())[0] == "macros_change");
  CHECK(out.last_replaced_by() == "macro_change");
  hub->send(broadcaster, event{mixerd::macros_change{json{{"current_page", 0}}}});
  CHECK(out.next().has_value());
  CHECK(out.last_replaced_by().empty());
}

TEST_CASE("sio_broadcaster behind a real hub gets only what clients see") {
  mixerd::test::actor_fixture f;
  auto hub = f.spawn(mixerd::hub_behavior, std::size_t{4});
  delivered out;
  auto broadcaster = f.spawn(mixerd::socketio::sio_broadcaster, hub,
                             mixerd::client_kinds(declared_events()), out.sink());
  caf::scoped_actor producer{f.sys};
  // Its subscription is on its way to the hub while the producer publishes (two senders: no
  // order between them). Volume changes until one arrives, then a marker; all up to it skipped.
  bool subscribed = false;
  for (int attempt = 0; attempt < 50 && !subscribed; ++attempt) {
    producer->send(hub, caf::publish_atom_v, event{mixerd::volume_change{attempt}});
    subscribed = out.next(100ms).has_value();
  }
  REQUIRE(subscribed);
  const auto marker = encode_event(mixerd::profile_change{"ready"});
  producer->send(hub, caf::publish_atom_v, event{mixerd::profile_change{"ready"}});
  for (auto text = out.next(); text != marker; text = out.next()) {
    REQUIRE(text.has_value());
    CHECK(wire(*text)[0] == "volume_change");
  }
  producer->send(hub, caf::publish_atom_v, event{mixerd::serial_raw{"ADC: OK"}});
  producer->send(hub, caf::publish_atom_v,
                 event{mixerd::device_input{protocol::dev_slider{0, 57}}});
  producer->send(hub, caf::publish_atom_v, event{mixerd::slider_change{1, 57}});
  // Had either internal event been delivered, it would come before the slider change.
  CHECK(out.next() == encode_event(mixerd::slider_change{1, 57}));
}
