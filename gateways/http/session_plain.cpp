// The plain-TCP instantiation of the session templates (compiled apart from the TLS one: each
// costs tens of seconds, and a change to one stream's steps rebuilds only its file).
#include "gateways/http/http_session.hpp"

namespace mixerd::http::detail {

template <>
struct stream_steps<beast::tcp_stream> {
  template <class Handler>
  static void handshake(beast::tcp_stream&, Handler&& done) {
    done(beast::error_code{});
  }

  template <class Handler>
  static void shutdown(beast::tcp_stream& stream, Handler&& done) {
    beast::error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_send, ec);
    done(ec);
  }
};

void start_plain_session(tcp::socket socket, std::string client_address,
                         std::shared_ptr<const config> cfg,
                         const std::shared_ptr<session_registry>& owner, connection_ticket ticket) {
  start_http_session(beast::tcp_stream(std::move(socket)), std::move(client_address),
                     std::move(cfg), owner, std::move(ticket));
}

}  // namespace mixerd::http::detail
