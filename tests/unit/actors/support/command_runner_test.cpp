#include "actors/support/command_runner.hpp"

#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <optional>

#include "protocol/mixer.hpp"
#include "tests/unit/support/actors.hpp"

using nlohmann::json;
namespace m = mixerd;
using m::test::playing;
using m::test::receive_within;

namespace {

// A command like the mixer's, asking whatever plays the mixer.
void set_value(const m::command_call_ptr& call) {
  const auto index = call->integer("index");
  call->ask(
      call->dir().get<m::mixer_actor>(),
      m::set_slider_value{static_cast<int>(index) - 1, static_cast<int>(call->integer("value"))},
      [index](const m::command_call_ptr& c, int now) {
        c->ok({{"index", index}, {"value", now}});
      });
}

std::vector<m::command> test_commands() {
  namespace c = m::commands;
  return {
      {"slider.set",
       "Sets a slider",
       {c::integer("index", 1, 4, "i"), c::integer("value", 0, 100, "v")},
       c::permission::control,
       "Mixer not available",
       set_value},
      {"raw.send",
       "Local only",
       {},
       c::permission::local,
       "Nothing",
       [](const m::command_call_ptr& call) {
         call->ok({{"sent", true}});
       }},
  };
}

struct runner_fixture {
  // Before the actors, which may still run a command while the actor system waits for them.
  m::directory dir;
  m::command_table table{test_commands()};
  m::command_runner runner{table, dir};
  m::test::actor_fixture actors;
  caf::scoped_actor mixer{actors.sys};

  // Runs `name` from an event-based actor (as a front end does) and returns its result.
  m::command_result run(const std::string& name, json input, m::command_origin origin = {}) {
    caf::scoped_actor waiter{actors.sys};
    // The name goes in as a spawn argument: CAF 0.17.6 dereferences a null argument tuple when
    // a function is spawned with none (UBSan reports it).
    auto front_end = actors.sys.spawn(
        [&, input, origin](caf::event_based_actor* self, const std::string& command_name) {
          runner.run(self, origin, command_name, input,
                     [self, w = caf::actor{waiter}](m::command_result r) {
                       self->send(w, std::move(r.status), r.body, r.error);
                       self->quit();
                     });
        },
        name);
    actors.track(front_end);
    m::command_result out;
    waiter->receive([&](int status, const json& body, const std::string& error) {
      out.status = status;
      out.body = body;
      out.error = error;
    });
    return out;
  }
};

}  // namespace

TEST_CASE_FIXTURE(runner_fixture, "an unknown name is 404, a bad argument 400 naming it") {
  auto unknown = run("slider.nope", json::object());
  CHECK(unknown.status == 404);
  CHECK(unknown.error == "Unknown command: slider.nope");
  auto bad = run("slider.set", {{"index", 9}, {"value", 1}});
  CHECK(bad.status == 400);
  CHECK(bad.error == "index must be an integer from 1 to 4");
}

TEST_CASE_FIXTURE(runner_fixture,
                  "a command asks its owner with the owner's index and maps the reply") {
  dir.add(playing<m::mixer_actor>(mixer));
  std::optional<m::command_result> result;
  std::thread t([&] { result = run("slider.set", {{"index", 2}, {"value", 40}}); });
  REQUIRE(receive_within(mixer, [](const m::set_slider_value& req) {
    CHECK(req.index == 1);  // the API's 2, converted in the command
    return req.value + 1;
  }));
  t.join();
  REQUIRE(result);
  CHECK(result->status == 200);
  CHECK(result->body == json{{"index", 2}, {"value", 41}});
}

TEST_CASE_FIXTURE(runner_fixture, "an owner that does not run is 503 with its sentence") {
  auto r = run("slider.set", {{"index", 1}, {"value", 1}});
  CHECK(r.status == 503);
  CHECK(r.error == "Mixer not available");
}

TEST_CASE_FIXTURE(runner_fixture, "a command needs its permission") {
  auto refused = run("raw.send", json::object());
  CHECK(refused.status == 403);
  m::command_origin local;
  local.grants = {m::commands::permission::local};
  CHECK(run("raw.send", json::object(), local).body == json{{"sent", true}});
}

TEST_CASE("the table lists each command with its parameters, and refuses a name twice") {
  m::command_table table{test_commands()};
  const auto listed = table.to_json()["commands"];
  REQUIRE(listed.size() == 2);
  CHECK(listed[0]["name"] == "raw.send");  // sorted by name
  CHECK(listed[0]["permission"] == "local");
  CHECK(listed[1]["params"][1]["max"] == 100);
  CHECK_THROWS(table.add(test_commands()[0]));
}
