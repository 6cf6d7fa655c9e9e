// A router over a directory of published views, as the daemon wires it, for the gateways' unit
// tests.
#pragma once

#include <doctest/doctest.h>

#include <boost/asio/post.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actors/support/directory.hpp"
#include "gateways/http/io_actor.hpp"
#include "gateways/http/router.hpp"
#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/io_thread.hpp"
#include "tools/mixerd/capability_table.hpp"
#include "tools/mixerd/system.hpp"

namespace mixerd::test {

// make_router over a directory of published views, with an actor system and the io actor on an
// io thread, as the daemon wires it. Requests are handed to the router on the io thread; no
// socket is involved.
struct router_fixture {
  mixerd::test::io_thread io;  // first: destroyed last
  // Every command of the daemon's rows, run against the stand-ins registered in `dir`; before the
  // actors, which may still run a command while the actor system waits for them.
  mixerd::directory dir;
  mixerd::command_table commands{mixerd::commands_of(mixerd::capability_table())};
  mixerd::command_runner runner{commands, dir};
  mixerd::test::actor_fixture actors;
  std::unique_ptr<http::io_actor> actor = std::make_unique<http::io_actor>(actors.sys, io.io);
  std::optional<http::listener_policy> policy;
  http::handler router;

  router_fixture() = default;
  router_fixture(const router_fixture&) = delete;
  router_fixture& operator=(const router_fixture&) = delete;
  // The io actor belongs to the io thread: it is stopped and destroyed there.
  ~router_fixture() {
    CHECK(io.run_here([this] {
      router = nullptr;
      actor.reset();
    }));
  }

  void use(http::listener_policy p) {
    policy = std::move(p);
    router = http::make_router(runner, *actor, *policy);
  }

  // Hands a request to the router on the io thread; the answer arrives in the future.
  std::future<http::response> send(std::string method, std::string target,
                                   std::vector<std::pair<std::string, std::string>> headers = {},
                                   std::string body = {}) {
    http::request req;
    req.method = std::move(method);
    req.target = target;
    auto q = target.find('?');
    req.path = target.substr(0, q);
    req.query = q == std::string::npos ? std::string() : target.substr(q + 1);
    req.headers = std::move(headers);
    req.body = std::move(body);
    req.client_address = "192.0.2.7";
    auto answer = std::make_shared<std::promise<http::response>>();
    auto future = answer->get_future();
    boost::asio::post(io.io, [this, req = std::move(req), answer]() mutable {
      router(std::move(req), [answer](http::response res) { answer->set_value(std::move(res)); });
    });
    return future;
  }

  static http::response wait(std::future<http::response>& answer) {
    REQUIRE_MESSAGE(answer.wait_for(std::chrono::seconds(5)) == std::future_status::ready,
                    "no answer within 5 s");
    return answer.get();
  }

  http::response call(std::string method, std::string target,
                      std::vector<std::pair<std::string, std::string>> headers = {},
                      std::string body = {}) {
    auto answer = send(std::move(method), std::move(target), std::move(headers), std::move(body));
    return wait(answer);
  }
};

inline nlohmann::json body_of(const http::response& res) {
  return nlohmann::json::parse(res.body);
}

inline std::string header_of(const http::response& res, std::string_view name) {
  for (const auto& [n, v] : res.headers)
    if (n == name) return v;
  return {};
}

}  // namespace mixerd::test
