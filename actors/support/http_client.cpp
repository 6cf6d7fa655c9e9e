#include "actors/support/http_client.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <type_traits>

#include "actors/support/tls_client.hpp"
#include "protocol/uri.hpp"

namespace mixerd {

namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = net::ip::tcp;
using failure = http_answer::failure;

// The headers the client writes itself: a caller's own would change the framing or the host
// the request is for.
bool written_by_client(const std::string& name) {
  for (const char* own : {"Host", "Content-Length", "Transfer-Encoding", "Connection"})
    if (uri::iequals(name, own)) return true;
  return false;
}

bhttp::verb verb_of(const std::string& method) {
  auto v = bhttp::string_to_verb(method);
  return v == bhttp::verb::unknown ? bhttp::verb::get : v;
}

template <bool Tls>
class exchange final : public std::enable_shared_from_this<exchange<Tls>> {
  using stream_type =
      std::conditional_t<Tls, beast::ssl_stream<beast::tcp_stream>, beast::tcp_stream>;

 public:
  exchange(net::io_context& io, http_request_spec spec, std::function<void(http_answer)> done,
           std::shared_ptr<std::atomic<std::size_t>> in_flight, std::shared_ptr<ssl::context> tls)
      : spec_(std::move(spec)),
        done_(std::move(done)),
        in_flight_(std::move(in_flight)),
        tls_(std::move(tls)),
        resolver_(io),
        deadline_(io),
        stream_(make_stream(io)) {}

  void start() {
    deadline_.expires_after(spec_.deadline);
    deadline_.async_wait([self = this->shared_from_this()](beast::error_code ec) {
      if (ec) return;
      self->finish(failure::timed_out,
                   "no answer within " + std::to_string(self->spec_.deadline.count()) + " ms");
    });
    resolver_.async_resolve(
        spec_.url.host, std::to_string(spec_.url.port),
        [self = this->shared_from_this()](beast::error_code ec, tcp::resolver::results_type found) {
          self->on_resolved(ec, std::move(found));
        });
  }

 private:
  stream_type make_stream(net::io_context& io) {
    if constexpr (Tls)
      return stream_type(io, *tls_);
    else
      return stream_type(io);
  }

  void on_resolved(beast::error_code ec, const tcp::resolver::results_type& found) {
    if (ended_) return;
    if (ec) return finish(failure::unreachable, "could not resolve " + spec_.url.host);
    // Every answer must pass: a name that points at one allowed and one refused address would
    // otherwise choose by connection order.
    if (spec_.check_address)
      for (const auto& entry : found)
        if (auto why = spec_.check_address(entry.endpoint().address().to_string()); !why.empty())
          return finish(failure::unreachable, why);
    beast::get_lowest_layer(stream_).async_connect(
        found, [self = this->shared_from_this()](beast::error_code ec, const tcp::endpoint&) {
          self->on_connected(ec);
        });
  }

  void on_connected(beast::error_code ec) {
    if (ended_) return;
    if (ec) return finish(failure::unreachable, "could not connect: " + ec.message());
    beast::get_lowest_layer(stream_).socket().set_option(tcp::no_delay(true), ec);
    if constexpr (Tls) {
      prepare_tls(stream_, spec_.url.host, spec_.verify_tls);
      stream_.async_handshake(
          ssl::stream_base::client, [self = this->shared_from_this()](beast::error_code ec) {
            if (self->ended_) return;
            if (ec) return self->finish(failure::tls, "TLS handshake failed: " + ec.message());
            self->write();
          });
    } else {
      write();
    }
  }

  void write() {
    request_.method(verb_of(spec_.method));
    request_.target(spec_.url.target);
    request_.version(11);
    request_.set(bhttp::field::host, host_header(spec_.url));
    request_.set(bhttp::field::user_agent, "mixerd");
    request_.set(bhttp::field::connection, "close");
    for (const auto& [name, value] : spec_.headers)
      if (!written_by_client(name)) request_.insert(name, value);
    if (!spec_.body.empty() || request_.method() != bhttp::verb::get) {
      if (!spec_.content_type.empty()) request_.set(bhttp::field::content_type, spec_.content_type);
      request_.body() = std::move(spec_.body);
      request_.prepare_payload();
    }
    bhttp::async_write(
        stream_, request_, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
          if (self->ended_) return;
          if (ec)
            return self->finish(failure::broken, "could not send the request: " + ec.message());
          self->read();
        });
  }

  void read() {
    parser_.header_limit(static_cast<std::uint32_t>(spec_.max_header_bytes));
    parser_.body_limit(spec_.max_body_bytes);
    bhttp::async_read_header(
        stream_, buffer_, parser_,
        [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
          if (self->ended_) return;
          if (ec) return self->on_read(ec);
          // Beast 1.74 does not always refuse a declared length past the limit (seen: a header
          // followed by a slow body ran into the deadline): refused here, whatever the timing.
          if (auto declared = self->parser_.content_length();
              declared && *declared > self->spec_.max_body_bytes)
            return self->on_read(bhttp::error::body_limit);
          bhttp::async_read(self->stream_, self->buffer_, self->parser_,
                            [self](beast::error_code ec, std::size_t) { self->on_read(ec); });
        });
  }

  void on_read(beast::error_code ec) {
    if (ended_) return;
    if (ec == bhttp::error::header_limit)
      return finish(failure::too_large, "the answer's header passed " +
                                            std::to_string(spec_.max_header_bytes) + " bytes");
    if (ec == bhttp::error::body_limit)
      return finish(failure::too_large,
                    "the answer's body passed " + std::to_string(spec_.max_body_bytes) + " bytes");
    if (ec) return finish(failure::broken, "no usable answer: " + ec.message());
    auto& res = parser_.get();
    answer_.status = res.result_int();
    answer_.body = std::move(res.body());
    finish(failure::none, "HTTP " + std::to_string(answer_.status));
  }

  // The end, once: the socket closes (a server still sending is cut off), the slot is free and
  // the caller hears.
  void finish(failure what, std::string detail) {
    if (ended_) return;
    ended_ = true;
    deadline_.cancel();
    resolver_.cancel();
    beast::error_code ignored;
    beast::get_lowest_layer(stream_).socket().close(ignored);
    in_flight_->fetch_sub(1);
    answer_.failed = what;
    answer_.detail = std::move(detail);
    auto done = std::move(done_);
    done(std::move(answer_));
  }

  http_request_spec spec_;
  std::function<void(http_answer)> done_;
  std::shared_ptr<std::atomic<std::size_t>> in_flight_;
  std::shared_ptr<ssl::context> tls_;  // before stream_: the stream keeps a reference to it
  tcp::resolver resolver_;
  net::steady_timer deadline_;
  stream_type stream_;
  beast::flat_buffer buffer_;
  bhttp::request<bhttp::string_body> request_;
  bhttp::response_parser<bhttp::string_body> parser_;
  http_answer answer_;
  bool ended_ = false;
};

}  // namespace

http_client::http_client(net::io_context& io, std::size_t max_in_flight)
    : io_(io),
      max_in_flight_(max_in_flight),
      in_flight_(std::make_shared<std::atomic<std::size_t>>(0)) {}

std::shared_ptr<ssl::context> http_client::tls_context() {
  // Loading the trust store costs a few milliseconds: only for the first https request.
  std::call_once(tls_once_, [this] { tls_ = client_tls_context(); });
  return tls_;
}

bool http_client::fetch(http_request_spec request, std::function<void(http_answer)> done) {
  auto running = in_flight_->load();
  do {
    if (running >= max_in_flight_) return false;
  } while (!in_flight_->compare_exchange_weak(running, running + 1));
  if (request.url.tls) {
    auto x = std::make_shared<exchange<true>>(io_, std::move(request), std::move(done), in_flight_,
                                              tls_context());
    net::post(io_, [x] { x->start(); });
  } else {
    auto x = std::make_shared<exchange<false>>(io_, std::move(request), std::move(done), in_flight_,
                                               nullptr);
    net::post(io_, [x] { x->start(); });
  }
  return true;
}

}  // namespace mixerd
