// The TLS instantiation of the session templates: the same HTTP and WebSocket logic over
// beast::ssl_stream, with a handshake before the first request and close_notify after the last.
#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include "gateways/http/http_session.hpp"

namespace mixerd::http::detail {

using tls_stream = beast::ssl_stream<beast::tcp_stream>;

// A client that connects and never speaks TLS must not hold a session for long.
constexpr std::chrono::seconds kTlsHandshakeTimeout{10};
// close_notify waits for the peer's answer; most clients just close, some never answer.
constexpr std::chrono::seconds kTlsShutdownTimeout{2};

template <>
struct stream_steps<tls_stream> {
  template <class Handler>
  static void handshake(tls_stream& stream, Handler&& done) {
    beast::get_lowest_layer(stream).expires_after(kTlsHandshakeTimeout);
    stream.async_handshake(net::ssl::stream_base::server, std::forward<Handler>(done));
  }

  template <class Handler>
  static void shutdown(tls_stream& stream, Handler&& done) {
    beast::get_lowest_layer(stream).expires_after(kTlsShutdownTimeout);
    stream.async_shutdown(std::forward<Handler>(done));
  }
};

void start_tls_session(tcp::socket socket, std::string client_address,
                       std::shared_ptr<const config> cfg,
                       const std::shared_ptr<session_registry>& owner, connection_ticket ticket) {
  auto& context = *cfg->tls;
  start_http_session(tls_stream(beast::tcp_stream(std::move(socket)), context),
                     std::move(client_address), std::move(cfg), owner, std::move(ticket));
}

}  // namespace mixerd::http::detail
