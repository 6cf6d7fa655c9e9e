// Private to gateways/http/*.cpp. One HTTP connection, templated on the stream: session_plain.cpp
// instantiates it for beast::tcp_stream, session_tls.cpp for beast::ssl_stream<tcp_stream>. The
// only stream-specific steps (TLS handshake, orderly shutdown) come from stream_steps<Stream>,
// which each of those files specialises before instantiating.
// Threading: io thread only, except reply_slot::deliver (posts onto the session's executor).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include "gateways/http/detail.hpp"
#include "gateways/http/request_checks.hpp"
#include "gateways/http/websocket_session.hpp"
#include "protocol/uri.hpp"

namespace mixerd::http::detail {

using tcp = net::ip::tcp;

constexpr std::uint32_t kHeaderLimit = 16 * 1024;
constexpr std::chrono::seconds kIdleTimeout{30};
// After an error response the client may still be sending a body; closing with unread data
// makes the kernel send RST, which can destroy the response before the client reads it.
constexpr std::chrono::seconds kLingerTimeout{2};
constexpr std::size_t kLingerMaxBytes = 1024 * 1024;

// Specialised per stream type: static handshake(stream, fn(error_code)) before the first request
// and shutdown(stream, fn(error_code)) after the last response.
template <class Stream>
struct stream_steps;

class http_session_base : public session_base {
 public:
  virtual void respond(response r) = 0;  // io thread only
};

// Shared by every copy of one responder, so "at most once" holds however often the callable is
// copied across actors.
class reply_slot {
 public:
  reply_slot(std::weak_ptr<http_session_base> session, net::any_io_executor executor,
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
    const auto tag = route_tag.load(std::memory_order_relaxed);
    if (tag != request::untagged && cfg_->options.answered) cfg_->options.answered(tag, r.status);
    auto session = session_.lock();
    if (!session) return;
    net::post(executor_, [session = std::move(session), r = std::move(r)]() mutable {
      session->respond(std::move(r));
    });
  }

 private:
  std::weak_ptr<http_session_base> session_;
  net::any_io_executor executor_;
  std::shared_ptr<const config> cfg_;
  std::atomic<bool> used_{false};

 public:
  // The request's route tag (request::route_tag points here).
  std::atomic<std::uint32_t> route_tag{request::untagged};
};

inline bool status_without_body(int status) {
  return (status >= 100 && status < 200) || status == 204 || status == 304;
}

template <class Stream>
class http_session final : public http_session_base,
                           public std::enable_shared_from_this<http_session<Stream>> {
 public:
  http_session(Stream stream, std::string client_address, std::shared_ptr<const config> cfg,
               std::weak_ptr<session_registry> owner, connection_ticket ticket)
      : stream_(std::move(stream)),
        client_address_(std::move(client_address)),
        cfg_(std::move(cfg)),
        owner_(std::move(owner)),
        ticket_(std::move(ticket)) {}

  void run() {
    // Until its first request arrives, a connection is as idle as a kept-alive one.
    ticket_.idle(this->weak_from_this());
    stream_steps<Stream>::handshake(stream_, [self = self()](beast::error_code ec) {
      if (ec || self->closed_) return self->finish();
      self->read_request();
    });
  }

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
    ticket_.release();
  }

 private:
  tcp::socket& socket() { return beast::get_lowest_layer(stream_).socket(); }
  std::shared_ptr<http_session> self() { return this->shared_from_this(); }

  void read_request() {
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    body_limit_ = cfg_->options.body_limit;
    parser_->body_limit(std::max(body_limit_, cfg_->options.largest_body_limit));
    version_ = 11;
    keep_alive_ = false;
    head_ = false;
    // Bytes already buffered are the next (pipelined) request: not idle.
    if (buffer_.size() == 0) ticket_.idle(this->weak_from_this());
    beast::get_lowest_layer(stream_).expires_after(kIdleTimeout);
    bhttp::async_read_header(
        stream_, buffer_, *parser_,
        [self = self()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  // This request's body limit: the listener's, or its route's larger one.
  void choose_body_limit() {
    const auto& larger = cfg_->options.body_limit_for;
    if (!larger) return;
    const auto& header = parser_->get();
    std::size_t limit = 0;
    try {
      limit = larger(header.method_string(), header.target());
    } catch (...) {
      limit = 0;  // an exception must not reach io_context::run(); the listener's limit holds
    }
    body_limit_ = std::max(body_limit_, limit);
  }

  void on_header(beast::error_code ec) {
    ticket_.busy();
    // Past even the largest limit: the 413 names the limit of the request's own route.
    if (ec == bhttp::error::body_limit) choose_body_limit();
    if (ec) return on_read_error(ec);
    const auto& header = parser_->get();
    version_ = header.version();
    if (auto refusal = refusal_of_header()) return write_error(refusal->status, refusal->message);
    const auto& hosts = cfg_->options.hosts;
    if (header.count(bhttp::field::host) == 0 || !hosts.names_this_machine) return go_on();
    const auto host = header[bhttp::field::host];
    if (names_this_machine(host)) return go_on();
    if (!hosts.relearn) return misdirected();
    // A name may be new (the overlay came up since the last probe): one more look, then the
    // answer. The session is busy meanwhile, so nothing else reads or closes it but stop().
    relearn_pending_ = true;
    auto recheck = [weak = this->weak_from_this(), executor = stream_.get_executor(),
                    host = std::string(host)] {
      net::post(executor, [weak, host] {
        if (auto self = weak.lock()) self->on_relearned(host);
      });
    };
    try {
      hosts.relearn(std::move(recheck));
    } catch (...) {
      relearn_pending_ = false;
      misdirected();
    }
  }

  // Framing and Host rules every listener shares (request_checks.hpp).
  std::optional<header_refusal> refusal_of_header() const {
    const auto& header = parser_->get();
    std::vector<std::string_view> codings;
    for (auto [at, end] = header.equal_range(bhttp::field::transfer_encoding); at != end; ++at)
      codings.push_back(at->value());
    if (auto refusal = check_transfer_encoding(codings, version_)) return refusal;
    return check_host_count(header.count(bhttp::field::host), version_);
  }

  bool names_this_machine(std::string_view host) const {
    try {
      return cfg_->options.hosts.names_this_machine(host);
    } catch (...) {
      return false;  // an exception must not reach io_context::run(); refusing is the safe side
    }
  }

  void on_relearned(const std::string& host) {
    if (!relearn_pending_) return;
    relearn_pending_ = false;
    if (closed_) return finish();
    if (names_this_machine(host)) return go_on();
    misdirected();
  }

  void misdirected() {
    keep_alive_ = false;
    auto answer = cfg_->options.hosts.misdirected;
    if (answer.status < 400) answer = cfg_->error(421, "Misdirected request");
    write_response(std::move(answer), true);
  }

  // The header passed the core's checks: read the body, then route.
  void go_on() {
    const auto& header = parser_->get();
    choose_body_limit();
    parser_->body_limit(body_limit_);
    // The header was read under the largest limit: a declared length is checked here. Read from
    // the field (the parser has checked it is one decimal number): GCC's -Wmaybe-uninitialized
    // misreads the boost::optional of parser::content_length() under ASan.
    if (header.has_content_length()) {
      const auto text = header[bhttp::field::content_length];
      std::uint64_t declared = 0;
      std::from_chars(text.data(), text.data() + text.size(), declared);
      if (declared > body_limit_) return on_read_error(bhttp::error::body_limit);
    }
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
      return write_error(
          413, "Request body too large (limit " + std::to_string(body_limit_) + " bytes)");
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

  request to_request(bhttp::request<bhttp::string_body>& message) const {
    request req;
    req.method = std::string(message.method_string());
    req.target = std::string(message.target());
    const auto question = req.target.find('?');
    req.path = uri::percent_decode(std::string_view(req.target).substr(0, question));
    if (question != std::string::npos) req.query = req.target.substr(question + 1);
    for (const auto& field : message) {
      req.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    req.body = std::move(message.body());
    req.client_address = client_address_;
    return req;
  }

  void dispatch_request() {
    // The handler may take as long as it needs (long-polling); the idle timeout is for reads.
    beast::get_lowest_layer(stream_).expires_never();
    auto message = parser_->release();
    keep_alive_ = message.keep_alive();
    head_ = message.method() == bhttp::verb::head;
    if (cfg_->options.upgrade && bws::is_upgrade(message)) return upgrade(std::move(message));

    awaiting_response_ = true;
    auto slot = std::make_shared<reply_slot>(this->weak_from_this(), stream_.get_executor(), cfg_);
    responder reply = [slot](response r) { slot->deliver(std::move(r)); };
    try {
      auto req = to_request(message);
      if (cfg_->options.answered)
        req.route_tag = std::shared_ptr<std::atomic<std::uint32_t>>(slot, &slot->route_tag);
      cfg_->on_request(std::move(req), reply);
    } catch (...) {
      // An exception must not escape into io_context::run() and take the daemon down.
      reply(cfg_->error(500, "Internal server error"));
    }
  }

  void upgrade(bhttp::request<bhttp::string_body> message) {
    // The handshake below only needs the headers, so the body may move into `req`.
    const request req = to_request(message);

    auto ws = std::make_shared<websocket_session<Stream>>(stream_.get_executor(), cfg_, owner_);
    auto handle = std::make_shared<socket_handle>(stream_.get_executor(), ws);
    response refusal = cfg_->error(400, "WebSocket upgrade refused");
    std::optional<websocket_events> events;
    try {
      events = cfg_->options.upgrade(req, handle, refusal);
    } catch (...) {
      events.reset();
      refusal = cfg_->error(500, "Internal server error");
    }
    if (!events) return write_response(std::move(refusal), false);

    // The connection now belongs to the WebSocket session; this object only has to go away.
    closed_ = true;
    if (auto owner = owner_.lock()) owner->forget(this);
    ws->start(std::move(stream_), std::move(message), std::move(*events), std::move(ticket_));
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
      return stream_steps<Stream>::shutdown(stream_,
                                            [self = self()](beast::error_code) { self->finish(); });
    }
    read_request();
  }

  // Raw TCP on purpose, also under TLS: the bytes are only drained, never interpreted.
  void linger() {
    beast::error_code ec;
    socket().shutdown(tcp::socket::shutdown_send, ec);
    beast::get_lowest_layer(stream_).expires_after(kLingerTimeout);
    drain();
  }

  void drain() {
    beast::get_lowest_layer(stream_).async_read_some(
        net::buffer(drain_buffer_), [self = self()](beast::error_code ec, std::size_t n) {
          self->drained_ += n;
          if (ec || self->closed_ || self->drained_ > kLingerMaxBytes) return self->finish();
          self->drain();
        });
  }

  void finish() {
    close();
    if (auto owner = owner_.lock()) owner->forget(this);
  }

  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  bhttp::response<bhttp::string_body> response_;
  std::array<char, 4096> drain_buffer_{};
  std::size_t drained_ = 0;
  std::string client_address_;
  std::shared_ptr<const config> cfg_;
  std::weak_ptr<session_registry> owner_;
  connection_ticket ticket_;
  unsigned version_ = 11;
  std::size_t body_limit_ = 0;  // this request's: the listener's, or a route's larger one
  bool keep_alive_ = false;
  bool head_ = false;
  bool awaiting_response_ = false;
  bool relearn_pending_ = false;
  bool closed_ = false;
};

template <class Stream>
void start_http_session(Stream stream, std::string client_address,
                        std::shared_ptr<const config> cfg,
                        const std::shared_ptr<session_registry>& owner, connection_ticket ticket) {
  auto session = std::make_shared<http_session<Stream>>(
      std::move(stream), std::move(client_address), std::move(cfg),
      std::weak_ptr<session_registry>(owner), std::move(ticket));
  if (owner->adopt(session)) session->run();
}

}  // namespace mixerd::http::detail
