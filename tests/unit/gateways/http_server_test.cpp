// The HTTP server core against real clients on loopback: cpp-httplib for ordinary requests, raw
// sockets where the test needs control over framing (keep-alive, chunking, malformed input).
#include "gateways/http/server.hpp"

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>
#include <httplib.h>

#include "tests/unit/support/http.hpp"

namespace mh = mixerd::http;
using namespace mixerd::test;

namespace {

httplib::Client make_client(std::uint16_t port) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_tcp_nodelay(true);
  cli.set_read_timeout(5, 0);
  return cli;
}

mh::response text(std::string body, int status = 200) {
  mh::response r;
  r.status = status;
  r.content_type = "text/plain";
  r.body = std::move(body);
  return r;
}

}  // namespace

TEST_CASE("a GET reaches the handler and its response reaches the client") {
  std::mutex mutex;
  std::optional<mh::request> seen;
  test_server server([&](mh::request&& req, mh::responder reply) {
    {
      std::lock_guard lock(mutex);
      seen = req;
    }
    mh::response r = text("hello", 201);
    r.headers.emplace_back("X-Test", "yes");
    reply(std::move(r));
  });
  REQUIRE(server.ok());

  auto cli = make_client(server.port());
  auto res = cli.Get("/api/some%20thing%2Fx?x=1&y=%20", {{"X-Custom", "abc"}});
  REQUIRE(res);
  CHECK(res->status == 201);
  CHECK(res->body == "hello");
  CHECK(res->get_header_value("X-Test") == "yes");
  CHECK(res->get_header_value("Content-Type") == "text/plain");
  CHECK(res->get_header_value("Server") == "mixerd");
  CHECK(res->get_header_value("Content-Length") == "5");

  std::lock_guard lock(mutex);
  REQUIRE(seen);
  CHECK(seen->method == "GET");
  CHECK(seen->target == "/api/some%20thing%2Fx?x=1&y=%20");
  CHECK(seen->path == "/api/some thing/x");
  CHECK(seen->query == "x=1&y=%20");
  CHECK(seen->header("x-custom") == "abc");
  CHECK(seen->header("X-CUSTOM") == "abc");
  CHECK(seen->header("X-Missing").empty());
  CHECK(seen->body.empty());
  CHECK(seen->client_address == "127.0.0.1");
}

TEST_CASE("a POST body reaches the handler") {
  test_server server([](mh::request&& req, mh::responder reply) {
    reply(text(req.method + ":" + req.body + ":" + std::string(req.header("Content-Type"))));
  });
  REQUIRE(server.ok());
  auto cli = make_client(server.port());
  auto res = cli.Post("/echo", "{\"a\":1}", "application/json");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->body == "POST:{\"a\":1}:application/json");
}

TEST_CASE("a responder called from another thread answers the request") {
  std::mutex mutex;
  std::vector<std::thread> workers;
  test_server server([&](mh::request&& req, mh::responder reply) {
    std::lock_guard lock(mutex);
    workers.emplace_back([reply, path = req.path] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      reply(text("late " + path));
    });
  });
  REQUIRE(server.ok());
  auto cli = make_client(server.port());
  cli.set_keep_alive(true);
  for (int i = 0; i < 3; ++i) {
    auto res = cli.Get("/n" + std::to_string(i));
    REQUIRE(res);
    CHECK(res->body == "late /n" + std::to_string(i));
  }
  std::lock_guard lock(mutex);
  for (auto& w : workers)
    w.join();
}

TEST_CASE("keep-alive serves several requests on one connection") {
  std::atomic<int> calls{0};
  test_server server([&](mh::request&& req, mh::responder reply) {
    ++calls;
    reply(text("got " + req.path));
  });
  REQUIRE(server.ok());
  raw_client client(server.port());
  REQUIRE(client.connected());

  client.send("GET /one HTTP/1.1\r\nHost: x\r\n\r\n");
  auto first = client.read_response();
  CHECK(first.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(body_of(first) == "got /one");
  CHECK_FALSE(has_header(first, "Connection: close"));

  client.send("GET /two HTTP/1.1\r\nHost: x\r\n\r\n");
  auto second = client.read_response();
  CHECK(body_of(second) == "got /two");

  client.send("GET /three HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  auto third = client.read_response();
  CHECK(body_of(third) == "got /three");
  CHECK(has_header(third, "Connection: close"));
  CHECK(client.closed_by_server());
  CHECK(calls == 3);
}

TEST_CASE("HTTP/1.0 closes unless keep-alive is asked for") {
  test_server server([](mh::request&&, mh::responder reply) { reply(text("x")); });
  REQUIRE(server.ok());
  {
    raw_client client(server.port());
    client.send("GET / HTTP/1.0\r\n\r\n");
    auto res = client.read_response();
    CHECK(res.rfind("HTTP/1.0 200", 0) == 0);
    CHECK(client.closed_by_server());
  }
  {
    raw_client client(server.port());
    client.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    auto res = client.read_response();
    CHECK(has_header(res, "Connection: keep-alive"));
    client.send("GET / HTTP/1.0\r\n\r\n");
    CHECK(body_of(client.read_response()) == "x");
    CHECK(client.closed_by_server());
  }
}

TEST_CASE("204 and HEAD responses carry no body and keep the connection usable") {
  test_server server([](mh::request&& req, mh::responder reply) {
    if (req.path == "/empty") return reply(text("ignored", 204));
    reply(text("hello"));
  });
  REQUIRE(server.ok());
  raw_client client(server.port());

  client.send("DELETE /empty HTTP/1.1\r\nHost: x\r\n\r\n");
  auto no_content = client.read_response();
  CHECK(no_content.rfind("HTTP/1.1 204", 0) == 0);
  CHECK(no_content.find("Content-Length") == std::string::npos);
  CHECK(body_of(no_content).empty());

  client.send("HEAD /page HTTP/1.1\r\nHost: x\r\n\r\n");
  client.expect_head();
  auto head = client.read_response();
  CHECK(has_header(head, "Content-Length: 5"));
  CHECK(body_of(head).empty());

  client.send("GET /page HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(body_of(client.read_response()) == "hello");
}

TEST_CASE("a body of exactly the limit is accepted and one byte more gets 413") {
  std::atomic<int> calls{0};
  test_server server([&](mh::request&& req, mh::responder reply) {
    ++calls;
    reply(text(std::to_string(req.body.size())));
  });
  REQUIRE(server.ok());

  auto cli = make_client(server.port());
  auto ok = cli.Post("/upload", std::string(65536, 'a'), "application/octet-stream");
  REQUIRE(ok);
  CHECK(ok->status == 200);
  CHECK(ok->body == "65536");

  auto cli2 = make_client(server.port());
  auto too_big = cli2.Post("/upload", std::string(65537, 'a'), "application/octet-stream");
  REQUIRE(too_big);
  CHECK(too_big->status == 413);
  CHECK(too_big->body == "{\"error\":\"Request body too large (limit 65536 bytes)\"}");
  CHECK(too_big->get_header_value("Connection") == "close");
  CHECK(calls == 1);
}

TEST_CASE("a chunked body over the limit gets 413 and a small one is accepted") {
  test_server server([](mh::request&& req, mh::responder reply) { reply(text(req.body)); });
  REQUIRE(server.ok());
  {
    raw_client client(server.port());
    client.send(
        "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
    CHECK(body_of(client.read_response()) == "abcde");
  }
  {
    raw_client client(server.port());
    client.send("POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    client.send("8000\r\n" + std::string(0x8000, 'a') + "\r\n");
    client.send("8001\r\n" + std::string(0x8001, 'a') + "\r\n0\r\n\r\n");
    auto res = client.read_response();
    CHECK(res.rfind("HTTP/1.1 413", 0) == 0);
    CHECK(body_of(res) == "{\"error\":\"Request body too large (limit 65536 bytes)\"}");
    CHECK(client.closed_by_server());
  }
}

TEST_CASE("Expect 100-continue gets an interim response before the body") {
  test_server server([](mh::request&& req, mh::responder reply) { reply(text(req.body)); });
  REQUIRE(server.ok());
  raw_client client(server.port());
  client.send("PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
  CHECK(client.read_response() == "HTTP/1.1 100 Continue\r\n\r\n");
  client.send("data");
  CHECK(body_of(client.read_response()) == "data");
}

TEST_CASE("a malformed request gets 400 and the connection is closed") {
  std::atomic<int> calls{0};
  test_server server([&](mh::request&&, mh::responder reply) {
    ++calls;
    reply(text("x"));
  });
  REQUIRE(server.ok());
  raw_client client(server.port());
  client.send("THIS IS NOT HTTP\r\n\r\n");
  auto res = client.read_response();
  CHECK(res.rfind("HTTP/1.1 400", 0) == 0);
  CHECK(body_of(res).rfind("{\"error\":\"Malformed request", 0) == 0);
  CHECK(client.closed_by_server());
  CHECK(calls == 0);
}

TEST_CASE("headers over 16 KiB get 431") {
  test_server server([](mh::request&&, mh::responder reply) { reply(text("x")); });
  REQUIRE(server.ok());
  raw_client client(server.port());
  client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(17000, 'b') + "\r\n\r\n");
  auto res = client.read_response();
  CHECK(res.rfind("HTTP/1.1 431", 0) == 0);
  CHECK(body_of(res) == "{\"error\":\"Request headers too large (limit 16384 bytes)\"}");
}

TEST_CASE("port 0 binds a real port and binding it twice fails") {
  test_server server([](mh::request&&, mh::responder reply) { reply(text("x")); });
  REQUIRE(server.ok());
  CHECK(server.port() != 0);
  auto cli = make_client(server.port());
  auto res = cli.Get("/");
  REQUIRE(res);
  CHECK(res->body == "x");

  mh::listener_options options;
  options.bind_address = "127.0.0.1";
  options.port = server.port();
  std::error_code ec;
  auto second = mh::start_listener(server.io(), options, {}, ec);
  CHECK(second == nullptr);
  CHECK(ec == std::errc::address_in_use);

  options.bind_address = "not an address";
  options.port = 0;
  auto third = mh::start_listener(server.io(), options, {}, ec);
  CHECK(third == nullptr);
  CHECK(ec == std::errc::invalid_argument);
}

TEST_CASE("the any address listener reports IPv4 clients as IPv4") {
  std::promise<std::string> address;
  test_server server(
      [&](mh::request&& req, mh::responder reply) {
        address.set_value(req.client_address);
        reply(text("x"));
      },
      "::");
  if (!server.ok()) {
    MESSAGE("IPv6 unavailable here: " << server.error().message());
    return;
  }
  auto cli = make_client(server.port());
  REQUIRE(cli.Get("/"));
  CHECK(address.get_future().get() == "127.0.0.1");
}

TEST_CASE("a responder answers at most once and a dropped one answers 500") {
  test_server server([](mh::request&& req, mh::responder reply) {
    if (req.path == "/drop") return;
    reply(text("a" + req.path));
    reply(text("b" + req.path));
  });
  REQUIRE(server.ok());
  raw_client client(server.port());
  client.send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(body_of(client.read_response()) == "a/1");
  client.send("GET /2 HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(body_of(client.read_response()) == "a/2");
  client.send("GET /drop HTTP/1.1\r\nHost: x\r\n\r\n");
  auto dropped = client.read_response();
  CHECK(dropped.rfind("HTTP/1.1 500", 0) == 0);
  CHECK(body_of(dropped) == "{\"error\":\"The request was not answered\"}");
}

TEST_CASE("stop closes the acceptor and live sessions") {
  std::mutex mutex;
  std::optional<mh::responder> parked;
  test_server server([&](mh::request&& req, mh::responder reply) {
    if (req.path == "/park") {
      std::lock_guard lock(mutex);
      parked = std::move(reply);
      return;
    }
    reply(text("x"));
  });
  REQUIRE(server.ok());
  const auto port = server.port();

  raw_client idle(port);
  idle.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(body_of(idle.read_response()) == "x");
  raw_client waiting(port);
  waiting.send("GET /park HTTP/1.1\r\nHost: x\r\n\r\n");
  for (int i = 0; i < 500; ++i) {
    {
      std::lock_guard lock(mutex);
      if (parked) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  // From a non-io thread, as a supervisor would; the io thread then runs it before our probe.
  server.listener().stop();
  server.on_io([] {});
  CHECK(idle.closed_by_server());
  CHECK(waiting.closed_by_server());
  raw_client late(port);
  CHECK_FALSE(late.connected());

  // The session is gone: answering now must be a harmless no-op.
  std::lock_guard lock(mutex);
  REQUIRE(parked);
  (*parked)(text("too late"));
  server.on_io([] {});
}

TEST_CASE("each answer is reported with the route tag its handler noted, untagged ones are not") {
  std::mutex mutex;
  std::vector<std::pair<std::uint32_t, int>> answered;
  auto options = test_options();
  options.answered = [&](std::uint32_t tag, int status) {
    std::lock_guard lock(mutex);
    answered.emplace_back(tag, status);
  };
  test_server server(std::move(options), [](mh::request&& req, mh::responder reply) {
    REQUIRE(req.route_tag);
    // The route table notes its route; "/untagged" is answered without one.
    if (req.path != "/untagged") req.route_tag->store(req.path == "/seven" ? 7 : 3);
    reply(text("ok", req.path == "/seven" ? 404 : 200));
  });
  REQUIRE(server.ok());
  auto cli = make_client(server.port());
  REQUIRE(cli.Get("/seven"));
  REQUIRE(cli.Get("/three"));
  REQUIRE(cli.Get("/untagged"));
  // A request the core refuses before any handler sees it is not reported either.
  raw_client raw(server.port());
  raw.send("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n");
  CHECK(raw.read_response().rfind("HTTP/1.1 400", 0) == 0);
  std::lock_guard lock(mutex);
  CHECK(answered == std::vector<std::pair<std::uint32_t, int>>{{7, 404}, {3, 200}});
}
