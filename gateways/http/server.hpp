// The one HTTP server core (Boost.Beast) under all three listeners: accepts connections,
// reads requests with keep-alive, enforces header/body limits, and hands each request to a
// route table through `handler`. Beast headers stay inside server.cpp (compile cost).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace boost::asio {
class io_context;
}

namespace mixerd::http {

struct request {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as sent, e.g. "/api/sliders?x=1"
  std::string path;    // target without the query, percent-decoded
  std::string query;   // raw query string without '?'
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string client_address;  // remote IP, e.g. "127.0.0.1" or "::1"

  // Case-insensitive header lookup; empty when absent.
  std::string_view header(std::string_view name) const;
};

struct response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// Completes one request. May be called from any thread, exactly once.
using responder = std::function<void(response)>;
using handler = std::function<void(request&&, responder)>;
// Builds the error response of a listener's style for a status and a human-readable message
// (used by the core for 400 malformed request, 413 body too large, 431 headers too large).
using error_writer = std::function<response(int status, std::string_view message)>;

struct listener_options {
  std::string name;          // for logs: "controller", "notification", "plant store"
  std::string bind_address;  // "0.0.0.0", "127.0.0.1", "::"
  std::uint16_t port = 0;    // 0 = pick a free port
  std::size_t body_limit = 64 * 1024;
  error_writer errors;
};

class listener {
 public:
  virtual ~listener() = default;
  virtual std::uint16_t port() const = 0;  // the bound port (the chosen one for port 0)
  virtual void stop() = 0;                 // closes the acceptor and all sessions
};

// Binds and starts accepting on `io`. Binding happens synchronously so that "port in use" is
// reported to the caller (ec set, nullptr returned).
std::unique_ptr<listener> start_listener(boost::asio::io_context& io, listener_options options,
                                         handler on_request, std::error_code& ec);

}  // namespace mixerd::http
