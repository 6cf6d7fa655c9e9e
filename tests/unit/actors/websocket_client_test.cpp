// The WebSocket client for outside services (actors/websocket_client) against a Beast server on
// its own thread: what reaches the owner, in which order, with which generation and close code.
#include "actors/websocket_client.hpp"

#include <doctest/doctest.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <caf/all.hpp>
#include <functional>
#include <string>
#include <thread>

#include "protocol/messages.hpp"
#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/io_thread.hpp"

namespace m = mixerd;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace bws = boost::beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using m::test::receive_within;

namespace {

using server_stream = bws::stream<tcp::socket>;

// Accepts one WebSocket connection (answering the subprotocol asked for) and runs `session` on
// it; the request's target and subprotocol are kept. Every test connects, so accept returns.
struct one_connection_server {
  net::io_context io;
  tcp::acceptor acceptor{io, {net::ip::make_address("127.0.0.1"), 0}};
  std::string target;
  std::string subprotocol;
  std::thread thread;

  explicit one_connection_server(std::function<void(server_stream&)> session) {
    thread = std::thread([this, session = std::move(session)] {
      tcp::socket socket{io};
      beast::error_code ec;
      acceptor.accept(socket, ec);
      if (ec) return;
      beast::flat_buffer buffer;
      bhttp::request<bhttp::string_body> req;
      bhttp::read(socket, buffer, req, ec);
      if (ec) return;
      target = std::string(req.target());
      subprotocol = std::string(req[bhttp::field::sec_websocket_protocol]);
      server_stream ws{std::move(socket)};
      ws.set_option(bws::stream_base::decorator([p = subprotocol](bws::response_type& res) {
        if (!p.empty()) res.set(bhttp::field::sec_websocket_protocol, p);
      }));
      ws.accept(req, ec);
      if (!ec) session(ws);
    });
  }
  ~one_connection_server() { finish(); }
  // Waits for the session to end.
  void finish() {
    if (thread.joinable()) thread.join();
  }

  m::websocket_endpoint endpoint(const std::string& path = "/api/websocket") const {
    m::websocket_endpoint e;
    e.url = *m::uri::split_url(
        "ws://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()) + path,
        m::uri::url_family::ws);
    e.open_timeout = std::chrono::milliseconds(2000);
    return e;
  }
};

std::string read_text(server_stream& ws) {
  beast::flat_buffer buffer;
  beast::error_code ec;
  ws.read(buffer, ec);
  return ec ? "" : beast::buffers_to_string(buffer.data());
}

struct client_fixture {
  m::test::io_thread io;  // outlives the links
  m::test::actor_fixture actors;
  caf::scoped_actor owner{actors.sys};

  std::shared_ptr<m::websocket_client> open(m::websocket_endpoint e, std::uint64_t gen) {
    return m::open_websocket(io.io, std::move(e), caf::actor{owner}, gen);
  }

  bool opened(std::uint64_t gen) {
    bool ok = false;
    bool got = receive_within(owner, [&](m::opened_atom, std::uint64_t g) { ok = g == gen; });
    return got && ok;
  }

  std::string line(std::uint64_t gen) {
    std::string text = "(none)";
    receive_within(owner, [&](m::line_atom, std::uint64_t g, const std::string& t) {
      text = g == gen ? t : "(wrong generation)";
    });
    return text;
  }

  std::pair<std::string, std::int32_t> closed(std::uint64_t gen) {
    std::pair<std::string, std::int32_t> out{"(none)", -1};
    receive_within(owner,
                   [&](m::closed_atom, std::uint64_t g, const std::string& why, std::int32_t code) {
                     out = {g == gen ? why : "(wrong generation)", code};
                   });
    return out;
  }

  bool silent_for(std::chrono::milliseconds d) {
    bool quiet = true;
    owner->receive([&](caf::message&) { quiet = false; }, caf::after(d) >> [] {});
    return quiet;
  }
};

}  // namespace

TEST_CASE_FIXTURE(client_fixture, "text both ways, queued before the open, then the peer's close") {
  one_connection_server server([](server_stream& ws) {
    auto first = read_text(ws);
    ws.write(net::buffer("echo:" + first));
    ws.close(bws::close_reason(static_cast<bws::close_code>(4009), "bye"));
    beast::flat_buffer rest;
    beast::error_code ec;
    ws.read(rest, ec);  // until the client's close answer
  });
  auto e = server.endpoint("/base/api/websocket");
  e.subprotocol = "obswebsocket.json";
  auto link = open(e, 7);
  link->send("hello");  // before the open: waits in the queue
  REQUIRE(opened(7));
  CHECK(line(7) == "echo:hello");
  auto [why, code] = closed(7);
  CHECK(code == 4009);
  CHECK(why.find("4009") != std::string::npos);
  CHECK(why.find("bye") != std::string::npos);
  CHECK(silent_for(std::chrono::milliseconds(200)));  // exactly once
  CHECK(server.target == "/base/api/websocket");
  CHECK(server.subprotocol == "obswebsocket.json");
}

TEST_CASE_FIXTURE(client_fixture, "nothing listening: one closed message, code 0") {
  int port = 0;
  {
    net::io_context io;
    tcp::acceptor probe{io, {net::ip::make_address("127.0.0.1"), 0}};
    port = probe.local_endpoint().port();
  }
  m::websocket_endpoint e;
  e.url = *m::uri::split_url("ws://127.0.0.1:" + std::to_string(port), m::uri::url_family::ws);
  auto link = open(e, 3);
  auto [why, code] = closed(3);
  CHECK(code == 0);
  CHECK(why.find("could not connect") == 0);
  CHECK(silent_for(std::chrono::milliseconds(200)));
}

TEST_CASE_FIXTURE(client_fixture,
                  "close() by the owner: the peer sees a close, the owner nothing") {
  std::string server_saw;
  one_connection_server server([&](server_stream& ws) {
    beast::flat_buffer buffer;
    beast::error_code ec;
    ws.read(buffer, ec);
    server_saw =
        ec == bws::error::closed ? "closed " + std::to_string(ws.reason().code) : ec.message();
  });
  auto link = open(server.endpoint(), 1);
  REQUIRE(opened(1));
  link->close();
  CHECK(silent_for(std::chrono::milliseconds(300)));
  server.finish();
  CHECK(server_saw == "closed 1000");
}

TEST_CASE_FIXTURE(client_fixture, "a message over the limit or a binary one ends the link") {
  SUBCASE("too big") {
    one_connection_server server([](server_stream& ws) {
      ws.write(net::buffer(std::string(100, 'x')));
      beast::flat_buffer rest;
      beast::error_code ec;
      ws.read(rest, ec);
    });
    auto e = server.endpoint();
    e.max_message_bytes = 16;
    auto link = open(e, 2);
    REQUIRE(opened(2));
    auto [why, code] = closed(2);
    CHECK(why == "a message larger than 16 bytes");
    CHECK(code == 0);
  }
  SUBCASE("binary") {
    one_connection_server server([](server_stream& ws) {
      ws.binary(true);
      ws.write(net::buffer(std::string("\x01\x02")));
      beast::flat_buffer rest;
      beast::error_code ec;
      ws.read(rest, ec);
    });
    auto link = open(server.endpoint(), 5);
    REQUIRE(opened(5));
    CHECK(closed(5).first == "a binary message (text only)");
  }
}
