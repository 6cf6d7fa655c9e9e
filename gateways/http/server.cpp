// The HTTP server core on Boost.Beast. Threading model: one thread runs the io_context, so
// listener state and sessions are only touched from that thread; the only cross-thread entry
// points are a responder (posts onto the session's executor) and listener::stop() (dispatches).
#include "gateways/http/server.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <optional>
#include <unordered_map>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace mixerd::http {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

std::string_view request::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (beast::iequals(key, name)) return value;
  }
  return {};
}

namespace {

constexpr std::uint32_t kHeaderLimit = 16 * 1024;
constexpr std::chrono::seconds kIdleTimeout{30};
// After an error response the client may still be sending a body; closing with unread data
// makes the kernel send RST, which can destroy the response before the client reads it.
constexpr std::chrono::seconds kLingerTimeout{2};
constexpr std::size_t kLingerMaxBytes = 1024 * 1024;
constexpr std::chrono::milliseconds kAcceptRetryDelay{100};

struct config {
  listener_options options;
  handler on_request;

  response error(int status, std::string_view message) const {
    if (options.errors) {
      try {
        return options.errors(status, message);
      } catch (...) {
        // Fall through: the client must get some answer even if the writer is broken.
      }
    }
    response r;
    r.status = status;
    r.content_type = "text/plain; charset=utf-8";
    r.body = std::string(message);
    return r;
  }
};

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// '+' stays as is: it means space only in form-encoded queries, never in a path.
std::string percent_decode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%' && i + 2 < in.size()) {
      const int hi = hex_value(in[i + 1]);
      const int lo = hex_value(in[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(in[i]);
  }
  return out;
}

// A dual-stack "::" listener sees IPv4 clients as ::ffff:a.b.c.d; report them as IPv4 so the
// rate limiter and logs use one spelling per client.
std::string client_ip(const tcp::endpoint& endpoint) {
  const auto address = endpoint.address();
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return net::ip::make_address_v4(net::ip::v4_mapped, address.to_v6()).to_string();
  }
  return address.to_string();
}

// Callers compare against std::errc, which only works with the std categories.
std::error_code to_std(const beast::error_code& ec) {
  if (ec.category() == boost::system::system_category()) {
    return {ec.value(), std::system_category()};
  }
  if (ec.category() == boost::system::generic_category()) {
    return {ec.value(), std::generic_category()};
  }
  return ec;
}

// Handler-supplied text goes verbatim into the header block; CR/LF would allow injection.
bool has_crlf(std::string_view s) {
  return s.find_first_of("\r\n") != std::string_view::npos;
}

bool status_without_body(int status) {
  return (status >= 100 && status < 200) || status == 204 || status == 304;
}

class session_base {
 public:
  virtual ~session_base() = default;
  virtual void respond(response r) = 0;  // io thread only
  virtual void close() = 0;              // io thread only
};

// Shared by every copy of one responder, so "at most once" holds however often the callable is
// copied across actors.
class reply_slot {
 public:
  reply_slot(std::weak_ptr<session_base> session, net::any_io_executor executor,
             std::shared_ptr<const config> cfg)
      : session_(std::move(session)), executor_(std::move(executor)), cfg_(std::move(cfg)) {}
  reply_slot(const reply_slot&) = delete;
  reply_slot& operator=(const reply_slot&) = delete;

  // A handler that drops its responder would otherwise leave the client waiting forever (no read
  // timeout runs while a request is being handled).
  ~reply_slot() {
    if (used_.load()) return;
    try {
      deliver(cfg_->error(500, "The request was not answered"));
    } catch (...) {
      // Destructor: nothing more can be done.
    }
  }

  void deliver(response r) {
    if (used_.exchange(true)) return;
    auto session = session_.lock();
    if (!session) return;
    net::post(executor_, [session = std::move(session), r = std::move(r)]() mutable {
      session->respond(std::move(r));
    });
  }

 private:
  std::weak_ptr<session_base> session_;
  net::any_io_executor executor_;
  std::shared_ptr<const config> cfg_;
  std::atomic<bool> used_{false};
};

struct listener_state;

// Templated on the stream so that an ssl_stream<tcp_stream> can be added later: only run()
// (handshake first) and the shutdown steps would differ.
template <class Stream>
class session final : public session_base, public std::enable_shared_from_this<session<Stream>> {
 public:
  session(Stream stream, std::string client_address, std::shared_ptr<const config> cfg,
          std::weak_ptr<listener_state> owner)
      : stream_(std::move(stream)),
        client_address_(std::move(client_address)),
        cfg_(std::move(cfg)),
        owner_(std::move(owner)) {}

  void run() { read_request(); }

  void respond(response r) override {
    if (closed_ || !awaiting_response_) return;
    awaiting_response_ = false;
    write_response(std::move(r), false);
  }

  void close() override {
    if (closed_) return;
    closed_ = true;
    awaiting_response_ = false;
    beast::get_lowest_layer(stream_).close();
  }

 private:
  tcp::socket& socket() { return beast::get_lowest_layer(stream_).socket(); }
  std::shared_ptr<session> self() { return this->shared_from_this(); }

  void read_request() {
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    parser_->body_limit(cfg_->options.body_limit);
    version_ = 11;
    keep_alive_ = false;
    head_ = false;
    beast::get_lowest_layer(stream_).expires_after(kIdleTimeout);
    bhttp::async_read_header(
        stream_, buffer_, *parser_,
        [self = self()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (ec) return on_read_error(ec);
    const auto& header = parser_->get();
    version_ = header.version();
    // Clients that announce a body with "Expect: 100-continue" wait before sending it.
    if (version_ >= 11 && beast::iequals(header[bhttp::field::expect], "100-continue")) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      net::async_write(stream_, net::buffer(kContinue.data(), kContinue.size()),
                       [self = self()](beast::error_code ec, std::size_t) {
                         if (ec) return self->finish();
                         self->read_body();
                       });
      return;
    }
    read_body();
  }

  void read_body() {
    if (parser_->is_done()) return dispatch_request();
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = self()](beast::error_code ec, std::size_t) {
                        if (ec) return self->on_read_error(ec);
                        self->dispatch_request();
                      });
  }

  void on_read_error(beast::error_code ec) {
    if (closed_) return finish();
    if (ec == bhttp::error::body_limit) {
      return write_error(413, "Request body too large (limit " +
                                  std::to_string(cfg_->options.body_limit) + " bytes)");
    }
    if (ec == bhttp::error::header_limit) {
      return write_error(
          431, "Request headers too large (limit " + std::to_string(kHeaderLimit) + " bytes)");
    }
    // end_of_stream: the client closed between requests; partial_message: it closed mid-request.
    // Either way nobody is left to read an answer.
    const bool parse_error =
        ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category() &&
        ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message;
    if (parse_error) return write_error(400, "Malformed request: " + ec.message());
    finish();
  }

  void write_error(int status, const std::string& message) {
    keep_alive_ = false;
    write_response(cfg_->error(status, message), true);
  }

  void dispatch_request() {
    // The handler may take as long as it needs (long-polling); the idle timeout is for reads.
    beast::get_lowest_layer(stream_).expires_never();
    auto message = parser_->release();
    keep_alive_ = message.keep_alive();
    head_ = message.method() == bhttp::verb::head;

    request req;
    req.method = std::string(message.method_string());
    req.target = std::string(message.target());
    const auto question = req.target.find('?');
    req.path = percent_decode(std::string_view(req.target).substr(0, question));
    if (question != std::string::npos) req.query = req.target.substr(question + 1);
    for (const auto& field : message) {
      req.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    req.body = std::move(message.body());
    req.client_address = client_address_;

    awaiting_response_ = true;
    auto slot = std::make_shared<reply_slot>(this->weak_from_this(), stream_.get_executor(), cfg_);
    responder reply = [slot](response r) { slot->deliver(std::move(r)); };
    try {
      cfg_->on_request(std::move(req), reply);
    } catch (...) {
      // An exception must not escape into io_context::run() and take the daemon down.
      reply(cfg_->error(500, "Internal server error"));
    }
  }

  void write_response(response r, bool linger_after) {
    const int status = (r.status >= 100 && r.status <= 999) ? r.status : 500;
    response_ = {};
    response_.version(version_ == 10 ? 10 : 11);
    response_.result(static_cast<unsigned>(status));
    if (bhttp::int_to_status(static_cast<unsigned>(status)) == bhttp::status::unknown) {
      response_.reason("Unknown");
    }
    response_.set(bhttp::field::server, "mixerd");
    if (!r.content_type.empty() && !has_crlf(r.content_type)) {
      response_.set(bhttp::field::content_type, r.content_type);
    }
    for (const auto& [name, value] : r.headers) {
      if (!name.empty() && !has_crlf(name) && !has_crlf(value)) response_.insert(name, value);
    }
    response_.erase(bhttp::field::transfer_encoding);
    if (status_without_body(status)) {
      response_.erase(bhttp::field::content_length);
    } else if (head_) {
      // A HEAD response announces the GET length but must not carry the bytes.
      response_.content_length(r.body.size());
    } else {
      response_.body() = std::move(r.body);
      response_.prepare_payload();
    }
    response_.keep_alive(keep_alive_);

    beast::get_lowest_layer(stream_).expires_after(kIdleTimeout);
    bhttp::async_write(stream_, response_,
                       [self = self(), linger_after](beast::error_code ec, std::size_t) {
                         self->on_write(ec, linger_after);
                       });
  }

  void on_write(beast::error_code ec, bool linger_after) {
    if (closed_ || ec) return finish();
    if (linger_after) return linger();
    if (!keep_alive_) {
      socket().shutdown(tcp::socket::shutdown_send, ec);
      return finish();
    }
    read_request();
  }

  void linger() {
    beast::error_code ec;
    socket().shutdown(tcp::socket::shutdown_send, ec);
    beast::get_lowest_layer(stream_).expires_after(kLingerTimeout);
    drain();
  }

  void drain() {
    stream_.async_read_some(net::buffer(drain_buffer_),
                            [self = self()](beast::error_code ec, std::size_t n) {
                              self->drained_ += n;
                              if (ec || self->closed_ || self->drained_ > kLingerMaxBytes) {
                                return self->finish();
                              }
                              self->drain();
                            });
  }

  void finish();

  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  bhttp::response<bhttp::string_body> response_;
  std::array<char, 4096> drain_buffer_{};
  std::size_t drained_ = 0;
  std::string client_address_;
  std::shared_ptr<const config> cfg_;
  std::weak_ptr<listener_state> owner_;
  unsigned version_ = 11;
  bool keep_alive_ = false;
  bool head_ = false;
  bool awaiting_response_ = false;
  bool closed_ = false;
};

// Owned by the pending async operations, not by the listener object, so the listener can be
// destroyed while completions are still queued.
struct listener_state : std::enable_shared_from_this<listener_state> {
  listener_state(net::io_context& io, std::shared_ptr<const config> c)
      : acceptor(io), retry_timer(io), cfg(std::move(c)) {}

  void accept() {
    acceptor.async_accept([self = shared_from_this()](beast::error_code ec, tcp::socket socket) {
      self->on_accept(ec, std::move(socket));
    });
  }

  void on_accept(beast::error_code ec, tcp::socket socket) {
    if (stopped) return;
    if (ec) {
      if (ec == net::error::operation_aborted) return;
      // EMFILE and friends repeat at once; retrying immediately would spin the io thread.
      retry_timer.expires_after(kAcceptRetryDelay);
      retry_timer.async_wait([self = shared_from_this()](beast::error_code wait_ec) {
        if (!wait_ec && !self->stopped) self->accept();
      });
      return;
    }
    beast::error_code option_ec;
    // Small JSON replies would otherwise wait for the client's delayed ACK (~40 ms).
    socket.set_option(tcp::no_delay(true), option_ec);
    const auto remote = socket.remote_endpoint(option_ec);
    if (!option_ec) {
      auto s = std::make_shared<session<beast::tcp_stream>>(
          beast::tcp_stream(std::move(socket)), client_ip(remote), cfg, weak_from_this());
      sessions.emplace(s.get(), s);
      s->run();
    }
    accept();
  }

  void forget(session_base* s) { sessions.erase(s); }

  void stop() {
    if (stopped) return;
    stopped = true;
    beast::error_code ec;
    acceptor.close(ec);
    retry_timer.cancel();
    // Moved out first: closing must not race with sessions erasing themselves.
    auto live = std::move(sessions);
    sessions.clear();
    for (auto& entry : live)
      entry.second->close();
  }

  tcp::acceptor acceptor;
  net::steady_timer retry_timer;
  std::shared_ptr<const config> cfg;
  // Strong references: a session waiting for its responder has no pending operation to keep it
  // alive. Responders only hold weak references, so the registry decides the lifetime.
  std::unordered_map<session_base*, std::shared_ptr<session_base>> sessions;
  bool stopped = false;
};

template <class Stream>
void session<Stream>::finish() {
  close();
  if (auto owner = owner_.lock()) owner->forget(this);
}

class listener_impl final : public listener {
 public:
  listener_impl(const std::shared_ptr<listener_state>& state, std::uint16_t port)
      : state_(state), port_(port) {}
  ~listener_impl() override { stop(); }

  std::uint16_t port() const override { return port_; }

  void stop() override {
    // Weak: once the io_context has been destroyed the state is gone and there is nothing to do.
    auto state = state_.lock();
    if (!state) return;
    net::dispatch(state->acceptor.get_executor(), [state] { state->stop(); });
  }

 private:
  std::weak_ptr<listener_state> state_;
  std::uint16_t port_;
};

}  // namespace

std::unique_ptr<listener> start_listener(net::io_context& io, listener_options options,
                                         handler on_request, std::error_code& ec) {
  ec.clear();
  beast::error_code bec;
  const auto address = net::ip::make_address(options.bind_address, bec);
  if (bec) {
    ec = std::make_error_code(std::errc::invalid_argument);
    return nullptr;
  }
  const tcp::endpoint endpoint(address, options.port);
  auto cfg = std::make_shared<const config>(config{std::move(options), std::move(on_request)});
  auto state = std::make_shared<listener_state>(io, cfg);
  auto& acceptor = state->acceptor;

  acceptor.open(endpoint.protocol(), bec);
  if (!bec) acceptor.set_option(net::socket_base::reuse_address(true), bec);
  if (!bec && address.is_v6() && address.to_v6().is_unspecified()) {
    // "::" means every address, IPv4 included, whatever the system's bindv6only default.
    acceptor.set_option(net::ip::v6_only(false), bec);
  }
  if (!bec) acceptor.bind(endpoint, bec);
  if (!bec) acceptor.listen(net::socket_base::max_listen_connections, bec);
  std::uint16_t port = 0;
  if (!bec) port = acceptor.local_endpoint(bec).port();
  if (bec) {
    ec = to_std(bec);
    return nullptr;
  }
  state->accept();
  return std::make_unique<listener_impl>(state, port);
}

}  // namespace mixerd::http
