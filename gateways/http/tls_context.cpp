// Loading a certificate chain and private key into a server context, with messages an operator
// can act on: which file, and whether it is missing, unreadable, not PEM, or the wrong key.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <boost/asio/ssl/context.hpp>
#include <boost/system/system_error.hpp>

#include "gateways/http/detail.hpp"

namespace mixerd::http {

namespace ssl = boost::asio::ssl;

namespace {

// OpenSSL reports a missing file as a "system lib" error; errno names the actual cause.
std::string unreadable(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return std::strerror(errno);
  std::fclose(file);
  return {};
}

std::string describe(const boost::system::error_code& ec) {
  std::string text = ec.message();
  return text.empty() ? "unknown OpenSSL error" : text;
}

// OpenSSL's default asks for the passphrase of an encrypted key on the terminal, which would hang
// a daemon at start-up; without a passphrase such a key simply fails to load.
void refuse_passphrases(ssl::context& context) {
  context.set_password_callback(
      [](std::size_t, ssl::context::password_purpose) { return std::string(); });
}

// Whether the key parses on its own, to tell "not a key" from "a key for another certificate".
bool key_loads_alone(const std::string& key_file) {
  ssl::context probe(ssl::context::tls_server);
  refuse_passphrases(probe);
  boost::system::error_code ec;
  probe.use_private_key_file(key_file, ssl::context::pem, ec);
  return !ec;
}

}  // namespace

namespace detail {

std::shared_ptr<ssl::context> make_tls_context(const std::string& certificate_file,
                                               const std::string& key_file, std::string& error) {
  error.clear();
  if (certificate_file.empty() || key_file.empty()) {
    error = "TLS needs both a certificate file and a private key file (certificate: '" +
            certificate_file + "', key: '" + key_file + "')";
    return nullptr;
  }
  for (const auto* path : {&certificate_file, &key_file}) {
    const auto problem = unreadable(*path);
    if (!problem.empty()) {
      error = "cannot read " + std::string(path == &key_file ? "private key" : "certificate") +
              " file '" + *path + "': " + problem;
      return nullptr;
    }
  }

  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  // TLS 1.0 and 1.1 are deprecated (RFC 8996); every client we serve speaks 1.2 or 1.3.
  SSL_CTX_set_min_proto_version(context->native_handle(), TLS1_2_VERSION);
  context->set_options(ssl::context::default_workarounds | ssl::context::single_dh_use);
  refuse_passphrases(*context);

  boost::system::error_code ec;
  context->use_certificate_chain_file(certificate_file, ec);
  if (ec) {
    error = "cannot load certificate file '" + certificate_file +
            "' (expected a PEM certificate chain): " + describe(ec);
    return nullptr;
  }
  context->use_private_key_file(key_file, ssl::context::pem, ec);
  if (ec) {
    if (key_loads_alone(key_file)) {
      error = "private key file '" + key_file + "' does not match certificate file '" +
              certificate_file + "'";
    } else {
      error = "cannot load private key file '" + key_file +
              "' (expected an unencrypted PEM private key): " + describe(ec);
    }
    return nullptr;
  }
  // use_private_key_file already compares the key with the certificate; this catches the
  // OpenSSL versions and key types where it only warns.
  if (SSL_CTX_check_private_key(context->native_handle()) != 1) {
    ERR_clear_error();
    error = "private key file '" + key_file + "' does not match certificate file '" +
            certificate_file + "'";
    return nullptr;
  }
  return context;
}

}  // namespace detail

std::string check_tls_pair(const std::string& certificate_file, const std::string& key_file) {
  std::string error;
  detail::make_tls_context(certificate_file, key_file, error);
  return error;
}

}  // namespace mixerd::http
