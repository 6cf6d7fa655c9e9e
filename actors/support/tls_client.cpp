#include "actors/support/tls_client.hpp"

#include <boost/system/error_code.hpp>

namespace mixerd {

namespace ssl = boost::asio::ssl;

std::shared_ptr<ssl::context> client_tls_context() {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  boost::system::error_code ignored;  // no trust store: verification fails and says so
  ctx->set_default_verify_paths(ignored);
  return ctx;
}

std::string host_header(const uri::url_parts& url) {
  std::string host = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
  const int default_port = url.tls ? 443 : 80;
  if (url.port != default_port) host += ":" + std::to_string(url.port);
  return host;
}

}  // namespace mixerd
