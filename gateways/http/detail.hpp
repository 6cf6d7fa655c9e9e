// Private to gateways/http/*.cpp: what the listener (server.cpp), the session templates
// (instantiated once per stream type in session_plain.cpp and session_tls.cpp) and the TLS set-up
// share. Asio only, no Beast, so server.cpp and tls_context.cpp stay cheap to compile.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <boost/asio/ip/tcp.hpp>

#include "gateways/http/connection_budget.hpp"
#include "gateways/http/server.hpp"

namespace boost::asio::ssl {
class context;
}

namespace mixerd::http::detail {

struct config {
  listener_options options;
  handler on_request;
  std::shared_ptr<boost::asio::ssl::context> tls;  // null: plain HTTP

  // The listener's error response; never throws, whatever the route table's writer does.
  response error(int status, std::string_view message) const;
};

// Anything the listener must be able to close on stop(). io thread only.
class session_base {
 public:
  virtual ~session_base() = default;
  virtual void close() = 0;
};

// The listener's set of live sessions. Its strong references keep sessions alive while they
// wait for a responder (no pending operation holds them then). io thread only.
class session_registry {
 public:
  virtual ~session_registry() = default;
  // False once the listener has stopped: the caller must then end the session itself.
  virtual bool adopt(std::shared_ptr<session_base> session) = 0;
  virtual void forget(session_base* session) = 0;
};

// Start one HTTP session on an accepted connection (the TLS one handshakes first with
// *cfg->tls). Defined next to each stream instantiation so each costly template is compiled once.
// `ticket` is the connection's place in the listener's budget (empty without one).
void start_plain_session(boost::asio::ip::tcp::socket socket, std::string client_address,
                         std::shared_ptr<const config> cfg,
                         const std::shared_ptr<session_registry>& owner, connection_ticket ticket);
void start_tls_session(boost::asio::ip::tcp::socket socket, std::string client_address,
                       std::shared_ptr<const config> cfg,
                       const std::shared_ptr<session_registry>& owner, connection_ticket ticket);

// Server context for a PEM chain + key, TLS 1.2 or later; null with `error` set on failure.
std::shared_ptr<boost::asio::ssl::context> make_tls_context(const std::string& certificate_file,
                                                            const std::string& key_file,
                                                            std::string& error);

// Handler-supplied text goes verbatim into the header block; CR/LF would allow injection.
inline bool has_crlf(std::string_view s) {
  return s.find_first_of("\r\n") != std::string_view::npos;
}

}  // namespace mixerd::http::detail
