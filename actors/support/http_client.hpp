// The daemon's one client for outgoing HTTP requests (the `http` macros, and any later caller),
// through Beast on the shared io_context: no thread per request, and a caller never blocks.
// Every request is bounded (protocol/README.md, "Outgoing HTTP"):
// - one deadline for the whole exchange, from the lookup to the last byte: when it passes the
//   socket is closed and the request ends, however slowly the server trickles;
// - a limit on the answer's header block and one on its body: past either the socket is closed;
// - at most `max_in_flight` requests at once across the daemon: one more is refused at once;
// - a check of every address the host name resolves to, before connecting (the caller's rule of
//   where it may go, protocol/http_targets.hpp).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "protocol/uri.hpp"

namespace boost::asio {
class io_context;
namespace ssl {
class context;
}
}  // namespace boost::asio

namespace mixerd {

struct http_request_spec {
  uri::url_parts url;
  std::string method = "GET";
  // Sent as given, but for the ones the client writes itself (Host, Content-Length,
  // Transfer-Encoding, Connection), which are left out.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string content_type;  // with a body
  std::chrono::milliseconds deadline{5000};
  std::size_t max_header_bytes = 16 * 1024;
  std::size_t max_body_bytes = 1024 * 1024;
  bool verify_tls = true;
  // Each address the host resolved to ("192.0.2.7", "::1"): "" to go on, else why the request
  // may not go there (all of them must pass). Null: every address.
  std::function<std::string(const std::string& address)> check_address;
};

struct http_answer {
  enum class failure {
    none,         // the server answered: `status` and `body`
    unreachable,  // no lookup, no connection, or an address the check refused
    timed_out,    // the deadline passed
    too_large,    // the header block or the body passed its limit
    broken,       // the connection broke, or the answer was no HTTP
    tls,          // the TLS handshake or the certificate check failed
  };
  failure failed = failure::none;
  int status = 0;
  std::string body;
  std::string detail;  // what happened, for the log
};

class http_client {
 public:
  http_client(boost::asio::io_context& io, std::size_t max_in_flight);
  http_client(const http_client&) = delete;
  http_client& operator=(const http_client&) = delete;

  // Starts a request on the io thread (any thread may call) and returns true; `done` is called
  // there exactly once, by the deadline at the latest. False, and `done` is never called, when
  // max_in_flight requests are already running.
  bool fetch(http_request_spec request, std::function<void(http_answer)> done);

  std::size_t in_flight() const { return in_flight_->load(); }
  std::size_t max_in_flight() const { return max_in_flight_; }

 private:
  std::shared_ptr<boost::asio::ssl::context> tls_context();

  boost::asio::io_context& io_;
  std::size_t max_in_flight_;
  std::shared_ptr<std::atomic<std::size_t>> in_flight_;
  std::once_flag tls_once_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
};

}  // namespace mixerd
