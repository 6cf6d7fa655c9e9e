#include "actors/support/websocket_client.hpp"

#include <doctest/doctest.h>
#include <sys/socket.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <functional>
#include <string>
#include <thread>

#include "protocol/atoms.hpp"
#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/io_thread.hpp"

using namespace mixerd;
using namespace std::chrono_literals;

namespace {

namespace beast = boost::beast;
namespace bws = boost::beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// A one-connection WebSocket server on its own thread, running `script` on the accepted stream
// (blocking Beast calls: every script ends when the client's side closes or the test ends).
struct scripted_server {
  net::io_context io;
  tcp::acceptor acceptor{io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0)};
  std::string asked_protocol;
  std::thread thread;

  explicit scripted_server(std::function<void(bws::stream<tcp::socket>&)> script,
                           bool upgrade = true) {
    thread = std::thread([this, script = std::move(script), upgrade] {
      beast::error_code ec;
      tcp::socket socket(io);
      acceptor.accept(socket, ec);
      if (ec) return;
      bws::stream<tcp::socket> ws(std::move(socket));
      if (!upgrade) return script(ws);
      ws.set_option(bws::stream_base::decorator([this](bws::response_type& res) {
        if (!asked_protocol.empty()) res.set(beast::http::field::sec_websocket_protocol, "x.json");
      }));
      beast::flat_buffer buffer;
      beast::http::request<beast::http::string_body> req;
      beast::http::read(ws.next_layer(), buffer, req, ec);
      if (ec) return;
      asked_protocol = std::string(req[beast::http::field::sec_websocket_protocol]);
      ws.accept(req, ec);
      if (!ec) script(ws);
    });
  }
  ~scripted_server() { finish(); }
  // Waits for the script to end (after the client went, or for a connection that never came).
  void finish() {
    if (!thread.joinable()) return;
    // Wakes an accept still blocked when no client came (a failed test).
    ::shutdown(acceptor.native_handle(), SHUT_RDWR);
    thread.join();
  }
  uri::url_parts url() const {
    return {false, "127.0.0.1", acceptor.local_endpoint().port(), "/api/websocket"};
  }
};

std::string read_text(bws::stream<tcp::socket>& ws) {
  beast::flat_buffer buffer;
  beast::error_code ec;
  ws.read(buffer, ec);
  if (ec == bws::error::closed) return "<closed>";
  return ec ? "<" + ec.message() + ">" : beast::buffers_to_string(buffer.data());
}

struct closed_report {
  std::string reason;
  std::int32_t code = -1;
};

closed_report wait_closed(caf::scoped_actor& self, std::uint64_t gen) {
  closed_report out;
  bool got = test::receive_within(
      self, [&](closed_atom, std::uint64_t g, const std::string& reason, std::int32_t code) {
        CHECK(g == gen);
        out = {reason, code};
      });
  REQUIRE(got);
  return out;
}

}  // namespace

TEST_CASE("a websocket client exchanges text both ways and reports the peer's close code") {
  test::io_thread io;
  test::actor_fixture actors;
  caf::scoped_actor self{actors.sys};
  std::string first;
  std::string second;
  scripted_server server([&](bws::stream<tcp::socket>& ws) {
    first = read_text(ws);
    second = read_text(ws);
    ws.text(true);
    ws.write(net::buffer(std::string(R"({"type":"auth_ok"})")));
    ws.close(bws::close_reason(static_cast<bws::close_code>(4009), "Authentication failed"));
    read_text(ws);  // until the client's answer to the close
  });
  websocket_endpoint endpoint;
  endpoint.url = server.url();
  endpoint.subprotocol = "x.json";
  auto client = open_websocket(io.io, endpoint, caf::actor{self}, 7);
  // Queued before the link is open: sent once it is, in order.
  client->send("one");
  client->send("two");
  REQUIRE(test::receive_within(self, [](opened_atom, std::uint64_t gen) { CHECK(gen == 7); }));
  std::string text;
  REQUIRE(test::receive_within(self, [&](line_atom, std::uint64_t gen, const std::string& t) {
    CHECK(gen == 7);
    text = t;
  }));
  CHECK(text == R"({"type":"auth_ok"})");
  auto closed = wait_closed(self, 7);
  CHECK(closed.code == 4009);
  CHECK(closed.reason.find("Authentication failed") != std::string::npos);
  server.finish();
  CHECK(server.asked_protocol == "x.json");
  CHECK(first == "one");
  CHECK(second == "two");
}

TEST_CASE("a websocket client that cannot connect says so once, with code 0") {
  test::io_thread io;
  test::actor_fixture actors;
  caf::scoped_actor self{actors.sys};
  net::io_context probe;
  tcp::acceptor unused(probe, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  const auto port = unused.local_endpoint().port();
  unused.close();  // nobody listens there now
  websocket_endpoint endpoint;
  endpoint.url = {false, "127.0.0.1", port, "/"};
  auto client = open_websocket(io.io, endpoint, caf::actor{self}, 1);
  auto closed = wait_closed(self, 1);
  CHECK(closed.code == 0);
  CHECK(closed.reason.find("could not connect") != std::string::npos);
  bool more = test::receive_within(self, [](caf::message&) {});
  CHECK_FALSE(more);
}

TEST_CASE("a server that accepts but never answers the handshake is given up in time") {
  test::io_thread io;
  test::actor_fixture actors;
  caf::scoped_actor self{actors.sys};
  std::atomic<bool> done{false};
  scripted_server server(
      [&](bws::stream<tcp::socket>& ws) {
        while (!done)
          std::this_thread::sleep_for(10ms);  // holds the connection, says nothing
        beast::error_code ignored;
        ws.next_layer().close(ignored);
      },
      false);
  websocket_endpoint endpoint;
  endpoint.url = server.url();
  endpoint.open_timeout = 300ms;
  auto started = std::chrono::steady_clock::now();
  auto client = open_websocket(io.io, endpoint, caf::actor{self}, 3);
  auto closed = wait_closed(self, 3);
  CHECK(closed.reason.find("no answer") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - started < 1500ms);
  done = true;
}

TEST_CASE("closing from the owner sends a normal close and reports nothing") {
  test::io_thread io;
  test::actor_fixture actors;
  caf::scoped_actor self{actors.sys};
  std::string seen;
  std::uint16_t code = 0;
  scripted_server server([&](bws::stream<tcp::socket>& ws) {
    seen = read_text(ws);
    code = ws.reason().code;
  });
  websocket_endpoint endpoint;
  endpoint.url = server.url();
  auto client = open_websocket(io.io, endpoint, caf::actor{self}, 4);
  REQUIRE(test::receive_within(self, [](opened_atom, std::uint64_t) {}));
  client->close();
  bool more = test::receive_within(self, [](caf::message&) {});
  CHECK_FALSE(more);
  server.finish();
  CHECK(seen == "<closed>");
  CHECK(code == static_cast<std::uint16_t>(bws::close_code::normal));
}

TEST_CASE("a message beyond the size limit ends the link") {
  test::io_thread io;
  test::actor_fixture actors;
  caf::scoped_actor self{actors.sys};
  scripted_server server([](bws::stream<tcp::socket>& ws) {
    ws.text(true);
    beast::error_code ec;
    ws.write(net::buffer(std::string(4096, 'x')), ec);
    read_text(ws);
  });
  websocket_endpoint endpoint;
  endpoint.url = server.url();
  endpoint.max_message_bytes = 1024;
  auto client = open_websocket(io.io, endpoint, caf::actor{self}, 5);
  REQUIRE(test::receive_within(self, [](opened_atom, std::uint64_t) {}));
  auto closed = wait_closed(self, 5);
  CHECK(closed.code == 0);
  CHECK(closed.reason.find("larger than 1024") != std::string::npos);
}

TEST_CASE("a binary message ends the link: these services speak text") {
  test::io_thread io;
  test::actor_fixture actors;
  caf::scoped_actor self{actors.sys};
  scripted_server server([](bws::stream<tcp::socket>& ws) {
    ws.binary(true);
    beast::error_code ec;
    ws.write(net::buffer(std::string("\x01\x02", 2)), ec);
    read_text(ws);
  });
  websocket_endpoint endpoint;
  endpoint.url = server.url();
  auto client = open_websocket(io.io, endpoint, caf::actor{self}, 6);
  REQUIRE(test::receive_within(self, [](opened_atom, std::uint64_t) {}));
  auto closed = wait_closed(self, 6);
  CHECK(closed.code == 0);
  CHECK(closed.reason.find("binary") != std::string::npos);
}
