#include "actors/hub/hub_actor.hpp"

#include <doctest/doctest.h>

#include <caf/all.hpp>

#include "protocol/mixer.hpp"
#include "protocol/profiles.hpp"
#include "tests/unit/support/actors.hpp"

using namespace mixerd;
using mixerd::test::actor_fixture;
using mixerd::test::as;
using mixerd::test::next_event;
using mixerd::test::receive_within;
using mixerd::test::state_of;

namespace {

constexpr std::size_t many = 16;  // subscriber limit for the tests that do not test it

event_kind_set every_topic() {
  return event_kind_set().set();
}

void subscribe(caf::scoped_actor& who, const hub_actor& hub,
               event_kind_set topics = every_topic()) {
  who->send(hub, caf::subscribe_atom_v, caf::actor{who}, topics);
}

void publish(caf::scoped_actor& from, const hub_actor& hub, event e) {
  from->send(hub, caf::publish_atom_v, std::move(e));
}

}  // namespace

TEST_CASE("hub delivers a published event to every subscriber") {
  actor_fixture f;
  auto hub = f.spawn(hub_behavior, many);
  caf::scoped_actor a{f.sys};
  caf::scoped_actor b{f.sys};
  subscribe(a, hub);
  subscribe(b, hub);
  publish(a, hub, slider_change{2, 57});
  for (auto* who : {&a, &b}) {
    auto change = as<slider_change>(next_event(*who));
    CHECK(change.index == 2);
    CHECK(change.value == 57);
  }
  publish(b, hub, mute_change{protocol::master_index, true});
  for (auto* who : {&a, &b}) {
    auto change = as<mute_change>(next_event(*who));
    CHECK(change.index == protocol::master_index);
    CHECK(change.muted);
  }
}

TEST_CASE("hub delivers events in the order they were published") {
  actor_fixture f;
  auto hub = f.spawn(hub_behavior, many);
  caf::scoped_actor a{f.sys};
  subscribe(a, hub);
  for (int v = 0; v < 20; ++v)
    publish(a, hub, slider_change{1, v});
  for (int v = 0; v < 20; ++v)
    CHECK(as<slider_change>(next_event(a)).value == v);
}

TEST_CASE("hub delivers once to a subscriber that subscribed twice") {
  actor_fixture f;
  auto hub = f.spawn(hub_behavior, many);
  caf::scoped_actor a{f.sys};
  subscribe(a, hub);
  subscribe(a, hub);
  publish(a, hub, volume_change{10});
  publish(a, hub, volume_change{20});
  // A duplicate delivery of the first event would come before the second one.
  CHECK(as<volume_change>(next_event(a)).volume == 10);
  CHECK(as<volume_change>(next_event(a)).volume == 20);
}

TEST_CASE("hub stops delivering to an unsubscribed actor") {
  actor_fixture f;
  auto hub = f.spawn(hub_behavior, many);
  caf::scoped_actor a{f.sys};
  caf::scoped_actor b{f.sys};
  subscribe(a, hub);
  subscribe(b, hub);
  a->send(hub, caf::unsubscribe_atom_v, caf::actor{a});
  publish(a, hub, volume_change{1});
  CHECK(as<volume_change>(next_event(b)).volume == 1);
  // Subscribe again and publish a second event: if the first had reached `a`, it would come
  // first in its mailbox.
  subscribe(a, hub);
  publish(a, hub, volume_change{2});
  CHECK(as<volume_change>(next_event(a)).volume == 2);
  CHECK(as<volume_change>(next_event(b)).volume == 2);
}

TEST_CASE("hub drops a subscriber that exits and keeps serving the others") {
  actor_fixture f;
  auto hub = f.spawn(hub_behavior, many);
  caf::scoped_actor b{f.sys};
  {
    caf::scoped_actor short_lived{f.sys};
    subscribe(short_lived, hub);
    subscribe(b, hub);
    publish(b, hub, profile_change{"first"});
    CHECK(as<profile_change>(next_event(short_lived)).profile == "first");
    CHECK(as<profile_change>(next_event(b)).profile == "first");
  }  // short_lived terminates here; the hub monitors it
  publish(b, hub, profile_change{"after"});
  CHECK(as<profile_change>(next_event(b)).profile == "after");

  // b received the second event, so the hub has handled the down message sent before it.
  CHECK(state_of<hub_state>(hub).subscribers.size() == 1);
}

TEST_CASE("hub drops a subscriber that was killed") {
  actor_fixture f;
  auto hub = f.spawn(hub_behavior, many);
  caf::scoped_actor b{f.sys};
  // CAF 0.17 binds a null reference when a function-based actor takes no arguments (UBSan
  // reports it in caf/detail/init_fun_factory.hpp), so the victim takes one it ignores.
  auto victim = f.sys.spawn(
      [](caf::event_based_actor*, int) -> caf::behavior { return {[](const event&) {}}; }, 0);
  // CAF notifies monitors newest first, so b monitors before the hub does: the victim then
  // enqueues its down message at the hub before b's, and b's publish lands behind it.
  b->monitor(victim);
  b->send(hub, caf::subscribe_atom_v, victim, every_topic());
  subscribe(b, hub);
  // Once b has this event, the hub has handled both subscriptions: it monitors the victim while
  // it is alive (monitoring a dead actor would queue the down message behind the publish below).
  publish(b, hub, serial_raw{"subscribed"});
  CHECK(as<serial_raw>(next_event(b)).line == "subscribed");
  caf::anon_send_exit(victim, caf::exit_reason::kill);
  CHECK(receive_within(b, [](const caf::down_msg&) {}));
  publish(b, hub, serial_raw{"ADC: OK"});
  CHECK(as<serial_raw>(next_event(b)).line == "ADC: OK");
  CHECK(state_of<hub_state>(hub).subscribers.size() == 1);
}

TEST_CASE("hub refuses subscribers beyond its limit") {
  actor_fixture f;
  auto hub = f.spawn(hub_behavior, std::size_t{2});
  caf::scoped_actor a{f.sys};
  caf::scoped_actor b{f.sys};
  caf::scoped_actor c{f.sys};
  subscribe(a, hub);
  subscribe(a, hub);  // a repeated subscription does not take a second place
  subscribe(b, hub);
  subscribe(c, hub);  // refused: two already
  publish(a, hub, volume_change{1});
  CHECK(as<volume_change>(next_event(a)).volume == 1);
  CHECK(as<volume_change>(next_event(b)).volume == 1);

  // Once a place is free, c may subscribe; had the refused subscription counted, the first
  // event would reach c before the second.
  a->send(hub, caf::unsubscribe_atom_v, caf::actor{a});
  subscribe(c, hub);
  publish(a, hub, volume_change{2});
  CHECK(as<volume_change>(next_event(c)).volume == 2);
  CHECK(as<volume_change>(next_event(b)).volume == 2);
}

TEST_CASE("hub delivers to a subscriber only the topics it named") {
  actor_fixture f;
  auto hub = f.spawn(hub_behavior, many);
  caf::scoped_actor sliders{f.sys};
  caf::scoped_actor device{f.sys};
  subscribe(sliders, hub, kinds_of<slider_change>());
  subscribe(device, hub, kinds_of<device_status, serial_raw>());
  publish(sliders, hub, volume_change{10});  // nobody's topic
  publish(sliders, hub, slider_change{1, 5});
  publish(sliders, hub, serial_raw{"ADC: OK"});
  publish(sliders, hub, device_status{true, "/dev/ttyACM0"});
  publish(sliders, hub, slider_change{2, 6});
  // Each gets its own topics in order; an event of another topic would have come first.
  CHECK(as<slider_change>(next_event(sliders)).value == 5);
  CHECK(as<slider_change>(next_event(sliders)).value == 6);
  CHECK(as<serial_raw>(next_event(device)).line == "ADC: OK");
  CHECK(as<device_status>(next_event(device)).connected);
  // Nothing else is on its way: a probe published now is the next thing each receives.
  publish(sliders, hub, slider_change{3, 7});
  publish(sliders, hub, serial_raw{"probe"});
  CHECK(as<slider_change>(next_event(sliders)).value == 7);
  CHECK(as<serial_raw>(next_event(device)).line == "probe");
}

TEST_CASE("hub: subscribing again replaces the topics") {
  actor_fixture f;
  auto hub = f.spawn(hub_behavior, many);
  caf::scoped_actor a{f.sys};
  subscribe(a, hub, kinds_of<volume_change>());
  publish(a, hub, volume_change{1});
  CHECK(as<volume_change>(next_event(a)).volume == 1);
  subscribe(a, hub, kinds_of<mute_change>());
  publish(a, hub, volume_change{2});  // no longer its topic
  publish(a, hub, mute_change{1, true});
  CHECK(as<mute_change>(next_event(a)).muted);
  CHECK(state_of<hub_state>(hub).subscribers.size() == 1);
}

TEST_CASE("hub: a subscriber with no topics receives nothing but keeps its place") {
  actor_fixture f;
  auto hub = f.spawn(hub_behavior, std::size_t{1});
  caf::scoped_actor a{f.sys};
  caf::scoped_actor b{f.sys};
  subscribe(a, hub, event_kind_set{});
  subscribe(b, hub);  // refused: the one place is a's
  publish(b, hub, profile_change{"ignored"});
  subscribe(a, hub, kinds_of<profile_change>());
  publish(b, hub, profile_change{"seen"});
  CHECK(as<profile_change>(next_event(a)).profile == "seen");
  // a's event came after b's subscription was handled: b was refused.
  const auto& subscribers = state_of<hub_state>(hub).subscribers;
  REQUIRE(subscribers.size() == 1);
  CHECK(subscribers[0].who == caf::actor{a});
}
