// For the HTTP tests: a listener running on its own io thread, and a blocking raw-socket client
// for tests that need control over the bytes on the wire.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include <doctest/doctest.h>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "gateways/http/server.hpp"
#include "tests/unit/support/wait.hpp"

namespace mixerd::test {

namespace mh = mixerd::http;

inline mh::response json_error(int status, std::string_view message) {
  mh::response r;
  r.status = status;
  r.body = "{\"error\":\"" + std::string(message) + "\"}";
  return r;
}

inline mh::listener_options test_options(std::string bind_address = "127.0.0.1") {
  mh::listener_options options;
  options.name = "test";
  options.bind_address = std::move(bind_address);
  options.errors = json_error;
  return options;
}

inline std::string body_of(const std::string& response) {
  const auto at = response.find("\r\n\r\n");
  return at == std::string::npos ? std::string() : response.substr(at + 4);
}

inline bool has_header(const std::string& response, const std::string& line) {
  return response.find("\r\n" + line + "\r\n") != std::string::npos;
}

// A listener on 127.0.0.1:0 with its io_context running on its own thread.
class test_server {
 public:
  explicit test_server(mh::handler on_request, std::string bind_address = "127.0.0.1")
      : test_server(test_options(std::move(bind_address)), std::move(on_request)) {}
  test_server(mh::listener_options options, mh::handler on_request) {
    listener_ = mh::start_listener(io_, std::move(options), std::move(on_request), ec_, &message_);
    thread_ = std::thread([this] { io_.run(); });
  }
  test_server(const test_server&) = delete;
  test_server& operator=(const test_server&) = delete;
  ~test_server() {
    if (listener_) on_io([this] { listener_->stop(); });
    work_.reset();
    io_.stop();
    thread_.join();
  }

  bool ok() const { return listener_ != nullptr && !ec_; }
  std::error_code error() const { return ec_; }
  const std::string& message() const { return message_; }
  std::uint16_t port() const { return listener_->port(); }
  boost::asio::io_context& io() { return io_; }
  mh::listener& listener() { return *listener_; }

  // Runs f on the io thread and waits for it.
  void on_io(const std::function<void()>& f) {
    std::promise<void> done;
    boost::asio::post(io_, [&] {
      f();
      done.set_value();
    });
    // CHECK, not REQUIRE: the destructor calls this and must not throw.
    CHECK(done.get_future().wait_for(std::chrono::seconds(5)) == std::future_status::ready);
  }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_{
      io_.get_executor()};
  std::error_code ec_;
  std::string message_;
  std::unique_ptr<mh::listener> listener_;
  std::thread thread_;
};

// Blocking loopback client with a receive timeout, so a server bug fails the test instead of
// hanging it.
class raw_client {
 public:
  // `source`: the local address to connect from (any 127.x.y.z works on loopback).
  explicit raw_client(std::uint16_t port, const char* source = nullptr) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd_ >= 0);
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (source) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      REQUIRE(::inet_pton(AF_INET, source, &local.sin_addr) == 1);
      REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) == 0);
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  raw_client(const raw_client&) = delete;
  raw_client& operator=(const raw_client&) = delete;
  ~raw_client() { ::close(fd_); }

  bool connected() const { return connected_; }

  void send(std::string_view data) {
    while (!data.empty()) {
      const auto n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      REQUIRE(n > 0);
      data.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  // One response (status line, headers and a Content-Length body); empty on EOF or timeout.
  std::string read_response() {
    std::size_t header_end;
    while ((header_end = pending_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill()) return {};
    }
    header_end += 4;
    std::string lower = pending_.substr(0, header_end);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::size_t length = 0;
    const auto at = lower.find("\r\ncontent-length:");
    const bool no_body = lower.find(" 204 ") != std::string::npos || head_next_;
    if (at != std::string::npos && !no_body) length = std::stoul(lower.substr(at + 17));
    head_next_ = false;
    while (pending_.size() < header_end + length) {
      if (!fill()) return {};
    }
    std::string out = pending_.substr(0, header_end + length);
    pending_.erase(0, header_end + length);
    return out;
  }

  // The next response answers a HEAD request: it has a Content-Length but no body.
  void expect_head() { head_next_ = true; }

  // True when the server closed the connection (EOF or reset) without sending more data.
  bool closed_by_server() {
    if (!pending_.empty()) return false;
    char c;
    const auto n = ::recv(fd_, &c, 1, 0);
    return n == 0 || (n < 0 && errno == ECONNRESET);
  }

 private:
  bool fill() {
    char buf[4096];
    const auto n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return false;
    pending_.append(buf, static_cast<std::size_t>(n));
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  bool head_next_ = false;
  std::string pending_;
};

}  // namespace mixerd::test
