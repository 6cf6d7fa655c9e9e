// What the clients of outside services share on top of TCP (the WebSocket client, the HTTP
// client): the client TLS context (TLS 1.2 or later, the system's trust store) and the checks of
// one connection (SNI, the certificate chain and the host name), and the Host header of a URL.
#pragma once

#include <openssl/ssl.h>

#include <boost/asio/ssl.hpp>
#include <memory>
#include <string>

#include "protocol/uri.hpp"

namespace mixerd {

std::shared_ptr<boost::asio::ssl::context> client_tls_context();

// Sets SNI to `host` and, with `verify`, the checks of the chain and of the host name.
template <class Stream>
void prepare_tls(Stream& stream, const std::string& host, bool verify) {
  SSL_set_tlsext_host_name(stream.native_handle(), host.c_str());
  if (verify) {
    stream.set_verify_mode(boost::asio::ssl::verify_peer);
    stream.set_verify_callback(boost::asio::ssl::host_name_verification(host));
  } else {
    stream.set_verify_mode(boost::asio::ssl::verify_none);
  }
}

// "host", "host:port" when the port is not the scheme's, "[v6]" for an IPv6 literal.
std::string host_header(const uri::url_parts& url);

}  // namespace mixerd
