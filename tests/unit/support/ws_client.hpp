// A Beast WebSocket client for the server core tests, plain or over TLS. Every step runs the
// client's own io_context under a deadline, so a server bug fails a test instead of hanging it
// (Asio's blocking calls ignore SO_RCVTIMEO).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

namespace mixerd::test {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bws = boost::beast::websocket;
using tcp = net::ip::tcp;

class deadline_runner {
 public:
  net::io_context& io() { return io_; }

  // Starts an operation with `start(handler)` and runs until it completes or `limit` passes;
  // on time-out `cancel()` must make the operation complete (closing its socket does).
  template <class Start, class Cancel>
  beast::error_code run(Start&& start, Cancel&& cancel,
                        std::chrono::milliseconds limit = std::chrono::seconds(5)) {
    std::optional<beast::error_code> result;
    start([&result](beast::error_code ec, auto&&...) { result = ec; });
    io_.restart();
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!result && std::chrono::steady_clock::now() < deadline) {
      if (io_.run_one_until(deadline) == 0) break;
    }
    if (result) return *result;
    cancel();
    // The handler refers to `result`: it must have run before this frame goes away.
    io_.restart();
    while (!result && io_.run_one_for(std::chrono::seconds(1)) > 0) {
    }
    return net::error::timed_out;
  }

 private:
  net::io_context io_;
};

// NextLayer: tcp::socket, or beast::ssl_stream<tcp::socket> (pass the ssl::context).
template <class NextLayer>
class ws_client : public deadline_runner {
 public:
  template <class... Args>
  explicit ws_client(Args&... args) : ws_(io(), args...) {}

  // TCP connect, TLS handshake when NextLayer is TLS, then the WebSocket handshake. The 101
  // response lands in `response` when given.
  beast::error_code connect(std::uint16_t port, std::string target = "/ws",
                            std::vector<std::pair<std::string, std::string>> headers = {},
                            bws::response_type* response = nullptr) {
    beast::error_code ec;
    beast::get_lowest_layer(ws_).connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port),
                                         ec);
    if (ec) return ec;
    if constexpr (!std::is_same_v<NextLayer, tcp::socket>) {
      ec = run([&](auto handler) { ws_.next_layer().async_handshake(NextLayer::client, handler); },
               [&] { abort(); });
      if (ec) return ec;
    }
    ws_.set_option(bws::stream_base::decorator([headers](bws::request_type& req) {
      for (const auto& [name, value] : headers)
        req.set(name, value);
    }));
    bws::response_type ignored;
    auto& res = response ? *response : ignored;
    return run([&](auto handler) { ws_.async_handshake(res, "127.0.0.1", target, handler); },
               [&] { abort(); });
  }

  beast::error_code write(const std::string& text, bool binary = false) {
    ws_.binary(binary);
    return run([&](auto handler) { ws_.async_write(net::buffer(text), handler); },
               [&] { abort(); });
  }

  // The next message, or nullopt with `error()` telling why (bws::error::closed after a close
  // frame, whose code is then in reason()).
  std::optional<std::string> read(std::chrono::milliseconds limit = std::chrono::seconds(5)) {
    buffer_.clear();
    error_ = run([&](auto handler) { ws_.async_read(buffer_, handler); }, [&] { abort(); }, limit);
    if (error_) return std::nullopt;
    return beast::buffers_to_string(buffer_.data());
  }

  beast::error_code close() {
    return run([&](auto handler) { ws_.async_close(bws::close_code::normal, handler); },
               [&] { abort(); });
  }

  void abort() {
    beast::error_code ignored;
    beast::get_lowest_layer(ws_).close(ignored);
  }

  beast::error_code error() const { return error_; }
  bws::close_reason reason() const { return ws_.reason(); }
  bws::stream<NextLayer>& stream() { return ws_; }

 private:
  bws::stream<NextLayer> ws_;
  beast::flat_buffer buffer_;
  beast::error_code error_;
};

}  // namespace mixerd::test
