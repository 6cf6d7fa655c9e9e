// TLS on the HTTP server core: HTTPS and WSS against Beast's TLS client, and the certificate
// checks. Certificates are made at test time with the OpenSSL C API (no openssl binary needed).
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdlib.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>
#include <boost/asio/ssl.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include "gateways/http/server.hpp"
#include "tests/unit/support/http.hpp"
#include "tests/unit/support/ws_client.hpp"

namespace mh = mixerd::http;
namespace ssl = boost::asio::ssl;
namespace bhttp = boost::beast::http;
namespace fs = std::filesystem;
using namespace mixerd::test;

namespace {

using tls_socket = beast::ssl_stream<tcp::socket>;
using tls_client = ws_client<tls_socket>;

struct pkey_free {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct x509_free {
  void operator()(X509* cert) const { X509_free(cert); }
};
using pkey_ptr = std::unique_ptr<EVP_PKEY, pkey_free>;
using x509_ptr = std::unique_ptr<X509, x509_free>;

// P-256 rather than RSA: key generation is instant, which keeps the suite fast under ASan.
pkey_ptr make_key() {
  pkey_ptr key(EVP_EC_gen("P-256"));
  REQUIRE(key);
  return key;
}

x509_ptr self_signed(EVP_PKEY* key) {
  x509_ptr cert(X509_new());
  REQUIRE(cert);
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24 * 3600);
  REQUIRE(X509_set_pubkey(cert.get(), key) == 1);
  X509_NAME* name = X509_get_subject_name(cert.get());
  const std::string cn = "localhost";
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  REQUIRE(X509_sign(cert.get(), key, EVP_sha256()) > 0);
  return cert;
}

void write_key(const fs::path& path, EVP_PKEY* key) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  REQUIRE(file != nullptr);
  const int ok = PEM_write_PrivateKey(file, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(file);
  REQUIRE(ok == 1);
}

void write_cert(const fs::path& path, X509* cert) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  REQUIRE(file != nullptr);
  const int ok = PEM_write_X509(file, cert);
  std::fclose(file);
  REQUIRE(ok == 1);
}

// A temporary folder with a good pair, a key of another pair, and a file that is not PEM.
class tls_files {
 public:
  tls_files() {
    std::string pattern = (fs::temp_directory_path() / "mixerd-tls-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    dir_ = pattern;
    auto key = make_key();
    write_key(key_file(), key.get());
    write_cert(cert_file(), self_signed(key.get()).get());
    write_key(other_key_file(), make_key().get());
    std::ofstream(garbage_file()) << "this is not a certificate\n";
  }
  ~tls_files() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  tls_files(const tls_files&) = delete;
  tls_files& operator=(const tls_files&) = delete;

  std::string cert_file() const { return (dir_ / "cert.pem").string(); }
  std::string key_file() const { return (dir_ / "key.pem").string(); }
  std::string other_key_file() const { return (dir_ / "other-key.pem").string(); }
  std::string garbage_file() const { return (dir_ / "garbage.pem").string(); }
  std::string missing_file() const { return (dir_ / "missing.pem").string(); }

 private:
  fs::path dir_;
};

ssl::context client_context() {
  ssl::context context(ssl::context::tls_client);
  // Self-signed test certificate: the tests check the server, not the trust chain.
  context.set_verify_mode(ssl::verify_none);
  return context;
}

mh::listener_options tls_options(const tls_files& files) {
  auto options = test_options();
  options.tls_certificate_file = files.cert_file();
  options.tls_private_key_file = files.key_file();
  return options;
}

// Several GETs over one TLS connection; each answer's status and body, in order.
std::vector<std::pair<int, std::string>> https_get(std::uint16_t port, ssl::context& context,
                                                   const std::vector<std::string>& targets) {
  deadline_runner runner;
  tls_socket stream(runner.io(), context);
  std::vector<std::pair<int, std::string>> answers;
  const auto abort = [&] {
    beast::error_code ignored;
    beast::get_lowest_layer(stream).close(ignored);
  };
  beast::error_code ec;
  beast::get_lowest_layer(stream).connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port),
                                          ec);
  if (ec) return answers;
  if (runner.run([&](auto h) { stream.async_handshake(ssl::stream_base::client, h); }, abort)) {
    return answers;
  }
  beast::flat_buffer buffer;
  for (const auto& target : targets) {
    bhttp::request<bhttp::empty_body> req(bhttp::verb::get, target, 11);
    req.set(bhttp::field::host, "localhost");
    if (runner.run([&](auto h) { bhttp::async_write(stream, req, h); }, abort)) break;
    bhttp::response<bhttp::string_body> res;
    if (runner.run([&](auto h) { bhttp::async_read(stream, buffer, res, h); }, abort)) break;
    answers.emplace_back(res.result_int(), res.body());
  }
  return answers;
}

}  // namespace

TEST_CASE("check_tls_pair accepts a matching pair and names the file of a broken one") {
  tls_files files;
  CHECK(mh::check_tls_pair(files.cert_file(), files.key_file()).empty());

  const auto missing = mh::check_tls_pair(files.missing_file(), files.key_file());
  CHECK(missing.find(files.missing_file()) != std::string::npos);
  CHECK(missing.find("No such file") != std::string::npos);

  const auto missing_key = mh::check_tls_pair(files.cert_file(), files.missing_file());
  CHECK(missing_key.find(files.missing_file()) != std::string::npos);

  const auto garbage_cert = mh::check_tls_pair(files.garbage_file(), files.key_file());
  CHECK(garbage_cert.find(files.garbage_file()) != std::string::npos);
  CHECK(garbage_cert.find("certificate") != std::string::npos);

  const auto garbage_key = mh::check_tls_pair(files.cert_file(), files.garbage_file());
  CHECK(garbage_key.find(files.garbage_file()) != std::string::npos);
  CHECK(garbage_key.find("private key") != std::string::npos);

  const auto mismatch = mh::check_tls_pair(files.cert_file(), files.other_key_file());
  CHECK(mismatch.find(files.other_key_file()) != std::string::npos);
  CHECK(mismatch.find("does not match") != std::string::npos);
  MESSAGE("examples: " << missing << " | " << garbage_cert << " | " << mismatch);
}

TEST_CASE("start_listener refuses a broken TLS pair with a message") {
  tls_files files;
  boost::asio::io_context io;
  auto options = tls_options(files);
  options.tls_private_key_file = files.other_key_file();
  std::error_code ec;
  std::string message;
  auto listener = mh::start_listener(io, options, {}, ec, &message);
  CHECK(listener == nullptr);
  CHECK(ec == std::errc::invalid_argument);
  CHECK(message.find(files.other_key_file()) != std::string::npos);

  // Only one of the two files is a configuration mistake too, not a silent plain listener.
  options.tls_private_key_file.clear();
  listener = mh::start_listener(io, options, {}, ec);
  CHECK(listener == nullptr);
  CHECK(ec == std::errc::invalid_argument);
}

TEST_CASE("HTTPS serves GETs on one kept-alive connection") {
  tls_files files;
  test_server server(tls_options(files), [](mh::request&& req, mh::responder reply) {
    mh::response r;
    r.content_type = "text/plain";
    r.body = "secure " + req.path;
    reply(std::move(r));
  });
  REQUIRE(server.ok());
  auto context = client_context();
  const auto answers = https_get(server.port(), context, {"/a", "/b"});
  REQUIRE(answers.size() == 2);
  CHECK(answers[0] == std::pair<int, std::string>(200, "secure /a"));
  CHECK(answers[1] == std::pair<int, std::string>(200, "secure /b"));

  // Plain HTTP on the TLS port fails its handshake without disturbing the listener.
  {
    raw_client plain(server.port());
    plain.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(plain.read_response().find("secure") == std::string::npos);
  }
  CHECK(https_get(server.port(), context, {"/c"}).size() == 1);
}

TEST_CASE("WSS exchanges text frames") {
  tls_files files;
  auto options = tls_options(files);
  std::atomic<int> closes{0};
  options.upgrade = [&](const mh::request&, std::shared_ptr<mh::websocket> socket,
                        mh::response&) -> std::optional<mh::websocket_events> {
    mh::websocket_events events;
    // A strong capture: the core drops the events when the socket ends, so no cycle remains.
    events.on_message = [socket](std::string text) {
      socket->send(std::make_shared<const std::string>("tls:" + text));
    };
    events.on_close = [&closes] { ++closes; };
    return events;
  };
  test_server server(options, [](mh::request&&, mh::responder reply) { reply({}); });
  REQUIRE(server.ok());

  auto context = client_context();
  tls_client client(context);
  REQUIRE_FALSE(client.connect(server.port()));
  REQUIRE_FALSE(client.write("ping"));
  CHECK(client.read() == "tls:ping");
  REQUIRE_FALSE(client.write(std::string(5000, 'z')));
  CHECK(client.read() == "tls:" + std::string(5000, 'z'));
  CHECK_FALSE(client.close());
  CHECK(eventually([&] { return closes == 1; }));
}
