// The one HTTP server core (Boost.Beast) under all three listeners: accepts connections
// (plain or TLS), reads requests with keep-alive, enforces header/body limits, hands each request
// to a route table through `handler`, and accepts WebSocket upgrades through `upgrade_handler`.
// Beast headers stay inside gateways/http/*.cpp and their private headers (compile cost).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
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
  // Where a route table notes which of its routes took the request, for the listener's
  // `answered` hook (GET /metrics counts each answer under it). It lives in the answer's own
  // shared slot: no allocation of its own. Null when nothing counts answers.
  std::shared_ptr<std::atomic<std::uint32_t>> route_tag;
  static constexpr std::uint32_t untagged = 0xFFFFFFFF;

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

// A WebSocket that a route table accepted. Methods may be called from any thread.
class websocket {
 public:
  virtual ~websocket() = default;
  // Queues one text frame. The same bytes may be shared by many sockets. When more than
  // `max_queued_frames` or `max_queued_bytes` are waiting (a slow or dead client), the socket is
  // closed instead.
  virtual void send(std::shared_ptr<const std::string> text) = 0;
  virtual void close() = 0;  // sends a close frame (1000) and ends the socket
};

struct websocket_events {
  std::function<void(std::string text)> on_message;  // called on the io thread, in order
  std::function<void()> on_close;                    // called on the io thread, exactly once
  // Binary messages, in order with the text ones. Empty: a binary message closes the socket
  // with 1003 (unsupported data) and nothing after it is read.
  std::function<void(std::string bytes)> on_binary{};
};

// Called on the io thread for a request with `Upgrade: websocket`. Return events to accept
// (the core completes the handshake, then delivers frames), or nullopt to refuse: the core
// then answers `refusal` (a handler-built response, e.g. 400/401) instead of upgrading.
// `refusal` starts as the listener's 400 error response. The core holds `socket` only weakly;
// the events may capture it (they are released when the socket ends, so no cycle remains).
using upgrade_handler = std::function<std::optional<websocket_events>(
    const request& req, std::shared_ptr<websocket> socket, response& refusal)>;

// Whether a request's Host names this machine (the DNS-rebinding defence). Checked on the io
// thread as soon as a request's header has arrived, before any route, Socket.IO session or
// WebSocket upgrade sees the request.
struct host_check {
  // True when the Host value (as sent, port included) names this machine. Empty: every Host is
  // served.
  std::function<bool(std::string_view host)> names_this_machine;
  // Asked when names_this_machine said no, to learn names not known yet (the overlay's name
  // comes from a probe). Calls `done` exactly once, from any thread, when it has looked; the Host
  // is then checked once more. Empty: no second look.
  std::function<void(std::function<void()> done)> relearn{};
  // The answer to a Host that names another machine; the connection closes after it.
  response misdirected{};
};

class connection_budget;

struct listener_options {
  std::string name;          // for logs: "controller", "notification", "plant store"
  std::string bind_address;  // "0.0.0.0", "127.0.0.1", "::"
  std::uint16_t port = 0;    // 0 = pick a free port
  std::size_t body_limit = 64 * 1024;
  error_writer errors;
  // The members below carry `{}` so that aggregate initialisation naming only the ones above
  // stays free of -Wmissing-field-initializers.

  // Empty: upgrade requests are ordinary requests routed to `on_request`.
  upgrade_handler upgrade{};
  std::size_t max_queued_frames = 256;
  // Bytes of frames waiting, queued or copied for the connection (a 1 MB frame counts 1 MB
  // however many sockets share it).
  std::size_t max_queued_bytes = 4 * 1024 * 1024;
  std::size_t max_message_bytes = 1'000'000;  // a longer incoming message closes with 1009
  // Extra headers on the 101 response, e.g. Access-Control-Allow-Origin.
  std::vector<std::pair<std::string, std::string>> upgrade_headers{};
  // PEM files; both empty = plain HTTP. start_listener fails if they do not load and match.
  std::string tls_certificate_file{};
  std::string tls_private_key_file{};
  // A larger body limit for some requests, by method and target (0: body_limit), asked once
  // the header is read; `largest_body_limit` is the largest it gives. (Beast refuses a declared
  // Content-Length past the parser's limit while it reads the header, so the header is read
  // under the largest, and the request's own limit is applied once its target is known.)
  std::function<std::size_t(std::string_view method, std::string_view target)> body_limit_for{};
  std::size_t largest_body_limit = 0;
  // Where the core reports what it did on its own (a websocket dropped for its queue bound);
  // empty: nothing is reported. Called on the io thread.
  std::function<void(std::string_view message)> warn{};
  // Shared by every listener of the daemon: caps on open connections, and which one to close to
  // make room (connection_budget.hpp). Null: no cap.
  std::shared_ptr<connection_budget> connections{};
  host_check hosts{};
  // Called with the route tag a route table noted and the status of each answer it sent (from
  // the thread that answers); requests answered before any route table saw them (a malformed
  // request, 413, 431) are not. Empty: nothing is called.
  std::function<void(std::uint32_t route_tag, int status)> answered{};
};

class listener {
 public:
  virtual ~listener() = default;
  virtual std::uint16_t port() const = 0;  // the bound port (the chosen one for port 0)
  virtual void stop() = 0;                 // closes the acceptor and all sessions
};

// Binds and starts accepting on `io`. Binding and loading the TLS files happen synchronously so
// that "port in use" or a broken certificate is reported to the caller: ec set, nullptr returned,
// and a human-readable explanation in *error_text when given (it names the file for TLS).
std::unique_ptr<listener> start_listener(boost::asio::io_context& io, listener_options options,
                                         handler on_request, std::error_code& ec,
                                         std::string* error_text = nullptr);

// Empty when the PEM certificate chain and private key load and belong together; otherwise a
// message naming the file and the problem. For start-up checks before any listener exists.
std::string check_tls_pair(const std::string& certificate_file, const std::string& key_file);

}  // namespace mixerd::http
