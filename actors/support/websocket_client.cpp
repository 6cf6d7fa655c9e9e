#include "actors/support/websocket_client.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <caf/all.hpp>
#include <deque>
#include <type_traits>
#include <utility>

#include "actors/support/tls_client.hpp"
#include "protocol/atoms.hpp"

namespace mixerd {

namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace bws = boost::beast::websocket;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = net::ip::tcp;

// Without traffic for this long the link sends a ping; without an answer for as long again it is
// broken (a peer that vanished without closing TCP is noticed).
constexpr auto idle_limit = std::chrono::seconds(30);

template <bool Tls>
class link final : public websocket_client, public std::enable_shared_from_this<link<Tls>> {
  using next_layer =
      std::conditional_t<Tls, beast::ssl_stream<beast::tcp_stream>, beast::tcp_stream>;

 public:
  link(net::io_context& io, websocket_endpoint endpoint, caf::actor owner, std::uint64_t gen,
       std::shared_ptr<ssl::context> tls)
      : io_(io),
        endpoint_(std::move(endpoint)),
        owner_(std::move(owner)),
        gen_(gen),
        tls_(std::move(tls)),
        resolver_(io),
        open_timer_(io),
        ws_(make_stream(io)) {}

  void start() {
    open_timer_.expires_after(endpoint_.open_timeout);
    open_timer_.async_wait([self = this->shared_from_this()](beast::error_code ec) {
      if (ec || self->opened_ || self->ended_) return;
      self->end("no answer within " + std::to_string(self->endpoint_.open_timeout.count()) + " ms",
                0);
    });
    resolver_.async_resolve(
        endpoint_.url.host, std::to_string(endpoint_.url.port),
        [self = this->shared_from_this()](beast::error_code ec, tcp::resolver::results_type found) {
          self->on_resolved(ec, std::move(found));
        });
  }

  void send(std::string text) override {
    net::post(io_, [self = this->shared_from_this(), text = std::move(text)]() mutable {
      self->enqueue(std::move(text));
    });
  }

  void close() override {
    net::post(io_, [self = this->shared_from_this()] { self->close_by_owner(); });
  }

 private:
  bws::stream<next_layer> make_stream(net::io_context& io) {
    if constexpr (Tls)
      return bws::stream<next_layer>(io, *tls_);
    else
      return bws::stream<next_layer>(io);
  }

  void on_resolved(beast::error_code ec, tcp::resolver::results_type found) {
    if (ended_) return;
    if (ec) return end("could not resolve " + endpoint_.url.host + ": " + ec.message(), 0);
    beast::get_lowest_layer(ws_).async_connect(
        found, [self = this->shared_from_this()](beast::error_code ec, const tcp::endpoint&) {
          self->on_connected(ec);
        });
  }

  void on_connected(beast::error_code ec) {
    if (ended_) return;
    if (ec) return end("could not connect: " + ec.message(), 0);
    beast::get_lowest_layer(ws_).socket().set_option(tcp::no_delay(true), ec);
    if constexpr (Tls) {
      auto& stream = ws_.next_layer();
      prepare_tls(stream, endpoint_.url.host, endpoint_.verify_tls);
      stream.async_handshake(ssl::stream_base::client,
                             [self = this->shared_from_this()](beast::error_code ec) {
                               if (self->ended_) return;
                               if (ec) return self->end("TLS handshake failed: " + ec.message(), 0);
                               self->upgrade();
                             });
    } else {
      upgrade();
    }
  }

  void upgrade() {
    bws::stream_base::timeout timeouts{};
    timeouts.handshake_timeout = endpoint_.open_timeout;
    timeouts.idle_timeout = idle_limit;
    timeouts.keep_alive_pings = true;
    ws_.set_option(timeouts);
    ws_.read_message_max(endpoint_.max_message_bytes);
    ws_.set_option(
        bws::stream_base::decorator([protocol = endpoint_.subprotocol](bws::request_type& req) {
          req.set(bhttp::field::user_agent, "mixerd");
          if (!protocol.empty()) req.set(bhttp::field::sec_websocket_protocol, protocol);
        }));
    ws_.async_handshake(
        response_, host_header(endpoint_.url), endpoint_.url.target,
        [self = this->shared_from_this()](beast::error_code ec) { self->on_upgraded(ec); });
  }

  void on_upgraded(beast::error_code ec) {
    if (ended_) return;
    if (ec) {
      if (response_.result_int() != 0 && response_.result() != bhttp::status::switching_protocols)
        return end("the server refused the WebSocket (HTTP " +
                       std::to_string(response_.result_int()) + ")",
                   0);
      return end("WebSocket handshake failed: " + ec.message(), 0);
    }
    opened_ = true;
    open_timer_.cancel();
    ws_.text(true);
    caf::anon_send(owner_, opened_atom_v, gen_);
    read();
    write_next();
  }

  void read() {
    ws_.async_read(buffer_, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
      self->on_read(ec);
    });
  }

  void on_read(beast::error_code ec) {
    if (ended_) return;
    if (ec == bws::error::closed) {
      const auto& why = ws_.reason();
      std::string text = "closed by the server (code " + std::to_string(why.code);
      if (!why.reason.empty()) text += ": " + std::string(why.reason.c_str());
      return end(text + ")", static_cast<std::int32_t>(why.code));
    }
    if (ec == bws::error::message_too_big)
      return end("a message larger than " + std::to_string(endpoint_.max_message_bytes) + " bytes",
                 0, bws::close_code::too_big);
    if (ec) return end("connection lost: " + ec.message(), 0);
    if (!ws_.got_text())
      return end("a binary message (text only)", 0, bws::close_code::bad_payload);
    caf::anon_send(owner_, line_atom_v, gen_, beast::buffers_to_string(buffer_.data()));
    buffer_.consume(buffer_.size());
    read();
  }

  void enqueue(std::string text) {
    if (ended_) return;
    if (queue_.size() >= endpoint_.max_queued)
      return end("send queue full (" + std::to_string(endpoint_.max_queued) + " messages)", 0,
                 bws::close_code::try_again_later);
    queue_.push_back(std::move(text));
    write_next();
  }

  void write_next() {
    if (!opened_ || writing_ || queue_.empty() || ended_) return;
    writing_ = true;
    ws_.async_write(net::buffer(queue_.front()),
                    [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                      self->writing_ = false;
                      if (self->ended_) return;
                      if (ec) return self->end("connection lost: " + ec.message(), 0);
                      self->queue_.pop_front();
                      self->write_next();
                    });
  }

  void close_by_owner() {
    if (ended_) return;
    silent_ = true;
    end("closed", 0);
  }

  // The end of the link, once: the owner is told (unless it asked for the end) and the socket is
  // closed, politely when the WebSocket is open and the close was ours to send.
  void end(std::string reason, std::int32_t close_code,
           bws::close_code send_code = bws::close_code::normal) {
    if (ended_) return;
    ended_ = true;
    open_timer_.cancel();
    resolver_.cancel();
    queue_.clear();
    if (!silent_) caf::anon_send(owner_, closed_atom_v, gen_, std::move(reason), close_code);
    owner_ = caf::actor{};
    if (opened_ && close_code == 0 && ws_.is_open()) {
      ws_.async_close(send_code, [self = this->shared_from_this()](beast::error_code) {
        beast::error_code ignored;
        beast::get_lowest_layer(self->ws_).socket().close(ignored);
      });
      return;
    }
    beast::error_code ignored;
    beast::get_lowest_layer(ws_).socket().close(ignored);
  }

  net::io_context& io_;
  websocket_endpoint endpoint_;
  caf::actor owner_;
  std::uint64_t gen_;
  std::shared_ptr<ssl::context> tls_;  // before ws_: the stream keeps a reference to it
  tcp::resolver resolver_;
  net::steady_timer open_timer_;
  bws::stream<next_layer> ws_;
  bws::response_type response_;
  beast::flat_buffer buffer_;
  std::deque<std::string> queue_;
  bool opened_ = false;
  bool writing_ = false;
  bool ended_ = false;
  bool silent_ = false;
};

}  // namespace

std::shared_ptr<websocket_client> open_websocket(boost::asio::io_context& io,
                                                 websocket_endpoint endpoint, caf::actor owner,
                                                 std::uint64_t generation) {
  if (endpoint.url.tls) {
    auto l = std::make_shared<link<true>>(io, std::move(endpoint), std::move(owner), generation,
                                          client_tls_context());
    net::post(io, [l] { l->start(); });
    return l;
  }
  auto l =
      std::make_shared<link<false>>(io, std::move(endpoint), std::move(owner), generation, nullptr);
  net::post(io, [l] { l->start(); });
  return l;
}

}  // namespace mixerd
