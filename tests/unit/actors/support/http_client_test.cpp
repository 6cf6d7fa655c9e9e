#include "actors/support/http_client.hpp"

#include <doctest/doctest.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <functional>
#include <future>
#include <string>
#include <thread>

#include "tests/unit/support/io_thread.hpp"

using namespace mixerd;
using namespace std::chrono_literals;

namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using failure = http_answer::failure;

// A one-connection server on its own thread: reads the request's header block, then runs
// `script` on the socket (which ends when it returns or when the client closes).
struct scripted_server {
  net::io_context io;
  tcp::acceptor acceptor{io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0)};
  std::string request;
  std::promise<void> finished;
  std::thread thread;

  explicit scripted_server(std::function<void(tcp::socket&)> script) {
    thread = std::thread([this, script = std::move(script)] {
      boost::system::error_code ec;
      tcp::socket socket(io);
      acceptor.accept(socket, ec);
      if (!ec) {
        net::streambuf buffer;
        auto n = net::read_until(socket, buffer, "\r\n\r\n", ec);
        if (!ec)
          request.assign(net::buffers_begin(buffer.data()), net::buffers_begin(buffer.data()) + n);
        if (!ec) script(socket);
      }
      finished.set_value();
    });
  }
  ~scripted_server() {
    io.stop();
    acceptor.close();
    thread.join();
  }
  int port() const { return acceptor.local_endpoint().port(); }
};

// Writes `text` until the client is gone (or `limit` passes).
void send_forever(tcp::socket& s, const std::string& text, std::chrono::seconds limit = 20s) {
  const auto end = std::chrono::steady_clock::now() + limit;
  boost::system::error_code ec;
  while (!ec && std::chrono::steady_clock::now() < end)
    net::write(s, net::buffer(text), ec);
}

// An answer that declares `length` bytes of body and sends one every 50 ms, `bytes` at most (until
// the client is gone).
void trickle(tcp::socket& s, int length, int bytes) {
  net::write(
      s, net::buffer("HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(length) + "\r\n\r\n"));
  boost::system::error_code ec;
  for (int i = 0; i < bytes && !ec; ++i) {
    net::write(s, net::buffer(std::string("x")), ec);
    std::this_thread::sleep_for(50ms);
  }
}

http_request_spec to(int port, std::chrono::milliseconds deadline = 3000ms) {
  http_request_spec spec;
  spec.url = {false, "127.0.0.1", port, "/hook?x=1"};
  spec.method = "POST";
  spec.body = R"({"on": true})";
  spec.content_type = "application/json";
  spec.deadline = deadline;
  spec.max_body_bytes = 64 * 1024;
  spec.max_header_bytes = 4 * 1024;
  return spec;
}

// Runs one request and waits for its answer.
http_answer fetch(http_client& client, http_request_spec spec) {
  std::promise<http_answer> answer;
  auto got = answer.get_future();
  REQUIRE(client.fetch(std::move(spec), [&](http_answer a) { answer.set_value(std::move(a)); }));
  REQUIRE(got.wait_for(10s) == std::future_status::ready);
  return got.get();
}

}  // namespace

TEST_CASE("http client: a request is sent with its method, target, headers and body") {
  test::io_thread io;
  http_client client(io.io, 4);
  scripted_server server([](tcp::socket& s) {
    net::write(s, net::buffer(std::string("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")));
  });
  auto spec = to(server.port());
  spec.headers = {{"Authorization", "Bearer t"}, {"Host", "evil.example"}};
  auto answer = fetch(client, spec);
  CHECK(answer.failed == failure::none);
  CHECK(answer.status == 201);
  CHECK(answer.body == "ok");
  CHECK(server.request.rfind("POST /hook?x=1 HTTP/1.1\r\n", 0) == 0);
  CHECK(server.request.find("Authorization: Bearer t\r\n") != std::string::npos);
  // The client writes the Host header itself: a caller's own is left out.
  CHECK(server.request.find("evil.example") == std::string::npos);
  CHECK(server.request.find("Host: 127.0.0.1:" + std::to_string(server.port())) !=
        std::string::npos);
  CHECK(client.in_flight() == 0);
}

TEST_CASE("http client: a body that never ends is cut at its limit and the socket closed") {
  test::io_thread io;
  http_client client(io.io, 4);
  scripted_server server([](tcp::socket& s) {
    net::write(s,
               net::buffer(std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")));
    send_forever(s, "4000\r\n" + std::string(0x4000, 'x') + "\r\n");
  });
  auto answer = fetch(client, to(server.port()));
  CHECK(answer.failed == failure::too_large);
  CHECK(answer.detail.find("body") != std::string::npos);
  // The server's writes fail once the client closed: its script ends long before 20 s.
  CHECK(server.finished.get_future().wait_for(5s) == std::future_status::ready);
}

TEST_CASE("http client: a declared length past the body limit is refused before the body") {
  test::io_thread io;
  http_client client(io.io, 4);
  // The header, then the body a byte at a time: the way Beast 1.74 let such an answer run into
  // the deadline instead of refusing it for its declared length.
  scripted_server server([](tcp::socket& s) { trickle(s, 100000, 100); });
  const auto started = std::chrono::steady_clock::now();
  auto answer = fetch(client, to(server.port(), 5000ms));
  CHECK(answer.failed == failure::too_large);
  CHECK(answer.detail.find("body") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - started < 2s);
}

TEST_CASE("http client: header lines that never end are cut at the header limit") {
  test::io_thread io;
  http_client client(io.io, 4);
  scripted_server server([](tcp::socket& s) {
    net::write(s, net::buffer(std::string("HTTP/1.1 200 OK\r\n")));
    send_forever(s, "X-Padding: " + std::string(100, 'p') + "\r\n");
  });
  auto answer = fetch(client, to(server.port()));
  CHECK(answer.failed == failure::too_large);
  CHECK(answer.detail.find("header") != std::string::npos);
  CHECK(server.finished.get_future().wait_for(5s) == std::future_status::ready);
}

TEST_CASE("http client: a server that trickles is cut off at the deadline") {
  test::io_thread io;
  http_client client(io.io, 4);
  scripted_server server([](tcp::socket& s) { trickle(s, 1000, 400); });
  const auto started = std::chrono::steady_clock::now();
  auto answer = fetch(client, to(server.port(), 500ms));
  CHECK(answer.failed == failure::timed_out);
  CHECK(std::chrono::steady_clock::now() - started < 3s);
  CHECK(client.in_flight() == 0);
}

TEST_CASE("http client: past max_in_flight a request is refused at once") {
  test::io_thread io;
  http_client client(io.io, 1);
  std::promise<void> release;
  auto released = release.get_future().share();
  scripted_server server([released](tcp::socket&) { released.wait_for(10s); });
  std::promise<http_answer> first;
  REQUIRE(client.fetch(to(server.port(), 5000ms), [&](http_answer a) { first.set_value(a); }));
  CHECK(client.in_flight() == 1);
  CHECK_FALSE(client.fetch(to(server.port()), [](http_answer) { FAIL("not started"); }));
  release.set_value();
  auto answer = first.get_future().get();
  CHECK(answer.failed == failure::broken);  // the server closed without answering
  CHECK(client.in_flight() == 0);
}

TEST_CASE("http client: an address the check refuses is never connected to") {
  test::io_thread io;
  http_client client(io.io, 4);
  tcp::acceptor unused(io.io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  auto spec = to(unused.local_endpoint().port());
  std::string checked;
  spec.check_address = [&](const std::string& address) {
    checked = address;
    return std::string("refused by the test");
  };
  auto answer = fetch(client, spec);
  CHECK(answer.failed == failure::unreachable);
  CHECK(answer.detail == "refused by the test");
  CHECK(checked == "127.0.0.1");
}

TEST_CASE("http client: a closed port is unreachable") {
  test::io_thread io;
  http_client client(io.io, 4);
  int port = 0;
  {
    tcp::acceptor a(io.io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
    port = a.local_endpoint().port();
  }
  auto answer = fetch(client, to(port));
  CHECK(answer.failed == failure::unreachable);
}
