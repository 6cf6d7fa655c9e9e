// WebSocket upgrades on the HTTP server core, against Beast's client on loopback (raw sockets
// where the test needs the exact HTTP bytes of a refused upgrade).
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>
#include <httplib.h>

#include "gateways/http/server.hpp"
#include "tests/unit/support/http.hpp"
#include "tests/unit/support/ws_client.hpp"

namespace mh = mixerd::http;
using namespace mixerd::test;

namespace {

using plain_client = ws_client<tcp::socket>;

std::shared_ptr<const std::string> frame(std::string text) {
  return std::make_shared<const std::string>(std::move(text));
}

mh::response plain_text(std::string body) {
  mh::response r;
  r.content_type = "text/plain";
  r.body = std::move(body);
  return r;
}

// Route table state the tests inspect from their own thread.
struct recorder {
  std::mutex mutex;
  std::vector<std::shared_ptr<mh::websocket>> sockets;
  std::vector<std::string> messages;
  std::optional<mh::request> last_request;
  std::atomic<int> closes{0};

  std::size_t socket_count() {
    std::lock_guard lock(mutex);
    return sockets.size();
  }
  std::shared_ptr<mh::websocket> socket(std::size_t i) {
    std::lock_guard lock(mutex);
    return sockets.at(i);
  }
  std::vector<std::string> received() {
    std::lock_guard lock(mutex);
    return messages;
  }
};

// Accepts every upgrade; echoes "echo:<text>" and records what it sees.
mh::listener_options echo_options(recorder& rec) {
  auto options = test_options();
  options.upgrade = [&rec](const mh::request& req, std::shared_ptr<mh::websocket> socket,
                           mh::response&) -> std::optional<mh::websocket_events> {
    {
      std::lock_guard lock(rec.mutex);
      rec.sockets.push_back(socket);
      rec.last_request = req;
    }
    // Queued before the handshake has even been answered: must arrive first.
    socket->send(frame("hello"));
    std::weak_ptr<mh::websocket> weak = socket;
    mh::websocket_events events;
    events.on_message = [&rec, weak](std::string text) {
      {
        std::lock_guard lock(rec.mutex);
        rec.messages.push_back(text);
      }
      if (auto s = weak.lock()) s->send(frame("echo:" + text));
    };
    events.on_close = [&rec] { ++rec.closes; };
    return events;
  };
  return options;
}

mh::handler answer_ok() {
  return [](mh::request&&, mh::responder reply) { reply(plain_text("ok")); };
}

const std::string kUpgradeRequest =
    "GET /ws?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";

}  // namespace

TEST_CASE("a websocket exchanges text frames both ways in order") {
  recorder rec;
  test_server server(echo_options(rec), answer_ok());
  REQUIRE(server.ok());

  plain_client client;
  REQUIRE_FALSE(client.connect(server.port(), "/live%20feed?token=abc", {{"X-Custom", "v"}}));
  CHECK(client.read() == "hello");
  for (int i = 0; i < 20; ++i) {
    REQUIRE_FALSE(client.write("m" + std::to_string(i)));
  }
  for (int i = 0; i < 20; ++i) {
    CHECK(client.read() == "echo:m" + std::to_string(i));
  }
  const auto received = rec.received();
  REQUIRE(received.size() == 20);
  CHECK(received.front() == "m0");
  CHECK(received.back() == "m19");

  std::lock_guard lock(rec.mutex);
  REQUIRE(rec.last_request);
  CHECK(rec.last_request->method == "GET");
  CHECK(rec.last_request->path == "/live feed");
  CHECK(rec.last_request->query == "token=abc");
  CHECK(rec.last_request->header("x-custom") == "v");
  CHECK(rec.last_request->header("upgrade") == "websocket");
  CHECK(rec.last_request->client_address == "127.0.0.1");
}

TEST_CASE("one shared frame reaches two websockets") {
  recorder rec;
  test_server server(echo_options(rec), answer_ok());
  REQUIRE(server.ok());
  plain_client first;
  plain_client second;
  REQUIRE_FALSE(first.connect(server.port()));
  REQUIRE_FALSE(second.connect(server.port()));
  CHECK(first.read() == "hello");
  CHECK(second.read() == "hello");
  REQUIRE(rec.socket_count() == 2);

  // From a thread that is not the io thread, as an actor would.
  const auto shared = frame("broadcast");
  rec.socket(0)->send(shared);
  rec.socket(1)->send(shared);
  CHECK(first.read() == "broadcast");
  CHECK(second.read() == "broadcast");
  CHECK(*shared == "broadcast");
}

TEST_CASE("a refused upgrade answers the handler response") {
  std::atomic<int> requests{0};
  auto options = test_options();
  options.upgrade = [](const mh::request& req, std::shared_ptr<mh::websocket> socket,
                       mh::response& refusal) -> std::optional<mh::websocket_events> {
    // Refused sockets are never connected: using them must be harmless.
    socket->send(frame("ignored"));
    socket->close();
    if (req.query == "x=1") {
      refusal.status = 401;
      refusal.body = "{\"error\":\"token required\"}";
      refusal.headers.emplace_back("WWW-Authenticate", "Bearer");
    }
    return std::nullopt;
  };
  test_server server(options, [&](mh::request&&, mh::responder reply) {
    ++requests;
    reply(plain_text("routed"));
  });
  REQUIRE(server.ok());

  raw_client client(server.port());
  client.send(kUpgradeRequest);
  const auto res = client.read_response();
  CHECK(res.rfind("HTTP/1.1 401", 0) == 0);
  CHECK(has_header(res, "WWW-Authenticate: Bearer"));
  CHECK(body_of(res) == "{\"error\":\"token required\"}");

  // Untouched, the refusal is the listener's own 400; the connection stays plain HTTP.
  auto other = kUpgradeRequest;
  other.replace(other.find("?x=1"), 4, "");
  client.send(other);
  const auto default_refusal = client.read_response();
  CHECK(default_refusal.rfind("HTTP/1.1 400", 0) == 0);
  CHECK(body_of(default_refusal) == "{\"error\":\"WebSocket upgrade refused\"}");
  client.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(body_of(client.read_response()) == "routed");
  CHECK(requests == 1);
}

TEST_CASE("without an upgrade handler an upgrade request is an ordinary request") {
  test_server server(test_options(), [](mh::request&& req, mh::responder reply) {
    reply(plain_text("plain " + std::string(req.header("Upgrade"))));
  });
  REQUIRE(server.ok());
  raw_client client(server.port());
  client.send(kUpgradeRequest);
  const auto res = client.read_response();
  CHECK(res.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(body_of(res) == "plain websocket");
}

TEST_CASE("an upgrade handler that throws answers 500") {
  auto options = test_options();
  options.upgrade = [](const mh::request&, std::shared_ptr<mh::websocket>,
                       mh::response&) -> std::optional<mh::websocket_events> {
    throw std::runtime_error("broken route");
  };
  test_server server(options, answer_ok());
  REQUIRE(server.ok());
  raw_client client(server.port());
  client.send(kUpgradeRequest);
  const auto res = client.read_response();
  CHECK(res.rfind("HTTP/1.1 500", 0) == 0);
  CHECK(body_of(res) == "{\"error\":\"Internal server error\"}");
}

TEST_CASE("on_close fires once when the client closes") {
  recorder rec;
  test_server server(echo_options(rec), answer_ok());
  REQUIRE(server.ok());
  plain_client client;
  REQUIRE_FALSE(client.connect(server.port()));
  CHECK(client.read() == "hello");
  CHECK_FALSE(client.close());
  CHECK(eventually([&] { return rec.closes == 1; }));

  // A handle outliving its connection is a no-op, however it is used.
  auto socket = rec.socket(0);
  socket->send(frame("late"));
  socket->close();
  server.on_io([] {});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(rec.closes == 1);
}

TEST_CASE("on_close fires once per socket when the listener stops") {
  recorder rec;
  test_server server(echo_options(rec), answer_ok());
  REQUIRE(server.ok());
  plain_client first;
  plain_client second;
  REQUIRE_FALSE(first.connect(server.port()));
  REQUIRE_FALSE(second.connect(server.port()));
  CHECK(first.read() == "hello");
  CHECK(second.read() == "hello");

  server.listener().stop();
  server.on_io([] {});
  CHECK(rec.closes == 2);
  CHECK_FALSE(first.read());
  CHECK_FALSE(second.read());
  rec.socket(0)->send(frame("late"));
  rec.socket(1)->close();
  server.on_io([] {});
  CHECK(rec.closes == 2);
}

TEST_CASE("close from the route table flushes queued frames then sends 1000") {
  recorder rec;
  test_server server(echo_options(rec), answer_ok());
  REQUIRE(server.ok());
  plain_client client;
  REQUIRE_FALSE(client.connect(server.port()));
  CHECK(client.read() == "hello");

  auto socket = rec.socket(0);
  socket->send(frame("one"));
  socket->send(frame("two"));
  socket->close();
  socket->send(frame("after close"));
  CHECK(client.read() == "one");
  CHECK(client.read() == "two");
  CHECK_FALSE(client.read());
  CHECK(client.error() == bws::error::closed);
  CHECK(client.reason().code == bws::close_code::normal);
  CHECK(eventually([&] { return rec.closes == 1; }));
}

TEST_CASE("a client that does not read is dropped when its queue overflows") {
  recorder rec;
  auto options = echo_options(rec);
  options.max_queued_frames = 4;
  test_server server(options, answer_ok());
  REQUIRE(server.ok());
  plain_client client;
  REQUIRE_FALSE(client.connect(server.port()));
  CHECK(client.read() == "hello");

  // Paced so that a reading client would keep up: only a full socket buffer (the client has
  // stopped reading) lets frames pile up in the queue.
  const auto big = frame(std::string(256 * 1024, 'x'));
  auto socket = rec.socket(0);
  for (int i = 0; i < 2000 && rec.closes == 0; ++i) {
    socket->send(big);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(eventually([&] { return rec.closes == 1; }));

  auto cli = httplib::Client("127.0.0.1", server.port());
  cli.set_read_timeout(5, 0);
  auto res = cli.Get("/still-there");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->body == "ok");
  CHECK(rec.closes == 1);
}

TEST_CASE("a client that does not read is dropped once its bytes waiting pass the bound") {
  recorder rec;
  auto options = echo_options(rec);
  options.max_queued_frames = 100000;  // only the bytes count here
  options.max_queued_bytes = 1024 * 1024;
  test_server server(options, answer_ok());
  REQUIRE(server.ok());
  plain_client client;
  REQUIRE_FALSE(client.connect(server.port()));
  CHECK(client.read() == "hello");

  // The kernel takes a few megabytes first; past them, 1 MiB waiting drops the client.
  const auto big = frame(std::string(256 * 1024, 'x'));
  auto socket = rec.socket(0);
  int sent = 0;
  for (; sent < 400 && rec.closes == 0; ++sent) {
    socket->send(big);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(eventually([&] { return rec.closes == 1; }));
  CHECK(sent < 400);
  auto cli = httplib::Client("127.0.0.1", server.port());
  cli.set_read_timeout(5, 0);
  auto res = cli.Get("/still-there");
  REQUIRE(res);
  CHECK(res->status == 200);
}

TEST_CASE("a message over max_message_bytes closes the socket with 1009") {
  recorder rec;
  auto options = echo_options(rec);
  options.max_message_bytes = 100;
  test_server server(options, answer_ok());
  REQUIRE(server.ok());
  plain_client client;
  REQUIRE_FALSE(client.connect(server.port()));
  CHECK(client.read() == "hello");

  REQUIRE_FALSE(client.write(std::string(100, 'a')));
  CHECK(client.read() == "echo:" + std::string(100, 'a'));
  REQUIRE_FALSE(client.write(std::string(101, 'b')));
  CHECK_FALSE(client.read());
  CHECK(client.error() == bws::error::closed);
  CHECK(client.reason().code == bws::close_code::too_big);
  CHECK(eventually([&] { return rec.closes == 1; }));
  CHECK(rec.received().size() == 1);
}

TEST_CASE("a binary frame closes the socket with 1003") {
  recorder rec;
  test_server server(echo_options(rec), answer_ok());
  REQUIRE(server.ok());
  plain_client client;
  REQUIRE_FALSE(client.connect(server.port()));
  CHECK(client.read() == "hello");
  REQUIRE_FALSE(client.write("\x01\x02", true));
  CHECK_FALSE(client.read());
  CHECK(client.error() == bws::error::closed);
  CHECK(client.reason().code == bws::close_code::unknown_data);
  CHECK(eventually([&] { return rec.closes == 1; }));
  CHECK(rec.received().empty());
}

TEST_CASE("binary frames reach on_binary in order with the text ones") {
  recorder rec;
  auto options = echo_options(rec);
  const auto accept = options.upgrade;
  options.upgrade = [&rec, accept](const mh::request& req, std::shared_ptr<mh::websocket> socket,
                                   mh::response& refusal) -> std::optional<mh::websocket_events> {
    auto events = accept(req, socket, refusal);
    std::weak_ptr<mh::websocket> weak = socket;
    events->on_binary = [&rec, weak](std::string bytes) {
      {
        std::lock_guard lock(rec.mutex);
        rec.messages.push_back("binary:" + bytes);
      }
      if (auto s = weak.lock()) s->send(frame("size:" + std::to_string(bytes.size())));
    };
    return events;
  };
  test_server server(options, answer_ok());
  REQUIRE(server.ok());
  plain_client client;
  REQUIRE_FALSE(client.connect(server.port()));
  CHECK(client.read() == "hello");
  REQUIRE_FALSE(client.write("a"));
  REQUIRE_FALSE(client.write(std::string("\x01\x00\xff", 3), true));
  REQUIRE_FALSE(client.write("", true));
  REQUIRE_FALSE(client.write("b"));
  CHECK(client.read() == "echo:a");
  CHECK(client.read() == "size:3");
  CHECK(client.read() == "size:0");
  CHECK(client.read() == "echo:b");
  CHECK(rec.received() ==
        std::vector<std::string>{"a", "binary:" + std::string("\x01\x00\xff", 3), "binary:", "b"});
  CHECK(rec.closes == 0);
}

TEST_CASE("upgrade_headers appear in the 101 response") {
  recorder rec;
  auto options = echo_options(rec);
  options.upgrade_headers = {{"Access-Control-Allow-Origin", "*"},
                             {"X-Injected", "a\r\nSet-Cookie: x=1"}};
  test_server server(options, answer_ok());
  REQUIRE(server.ok());
  plain_client client;
  // Offered as browsers and Node's ws do; socket.io 4 servers decline it, and so does the core.
  bws::permessage_deflate deflate;
  deflate.client_enable = true;
  client.stream().set_option(deflate);
  bws::response_type response;
  REQUIRE_FALSE(client.connect(server.port(), "/ws", {}, &response));
  CHECK(response.result_int() == 101);
  CHECK(response["Access-Control-Allow-Origin"] == "*");
  CHECK(response["Server"] == "mixerd");
  CHECK(response.find("X-Injected") == response.end());
  CHECK(response.find("Set-Cookie") == response.end());
  CHECK(response.find("Sec-WebSocket-Extensions") == response.end());
  CHECK(client.read() == "hello");
}
