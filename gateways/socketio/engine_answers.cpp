#include "gateways/socketio/engine_answers.hpp"

#include <nlohmann/json.hpp>

#include "actors/support/secure_random.hpp"
#include "gateways/socketio/engine.hpp"
#include "protocol/socketio_codec.hpp"

namespace mixerd::socketio {

namespace {
constexpr std::string_view engine_prefix = "/socket.io/";
}  // namespace

namespace detail {

http::response error_response(int code, headers cors) {
  http::response r;
  r.status = 400;
  r.content_type = "application/json";
  r.body = sio::eio_error_body(code);
  r.headers = std::move(cors);
  return r;
}

http::response forbidden_response(std::string_view message, headers cors) {
  http::response r;
  r.status = 403;
  r.content_type = "application/json";
  nlohmann::ordered_json body;
  body["code"] = sio::err_forbidden;
  body["message"] = message;
  r.body = body.dump();
  r.headers = std::move(cors);
  return r;
}

http::response text_response(std::string body, headers cors, std::string type) {
  http::response r;
  r.content_type = std::move(type);
  r.body = std::move(body);
  r.headers = std::move(cors);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

const std::shared_ptr<const std::string>& ping_packet() {
  static const auto p = std::make_shared<const std::string>(1, '2');
  return p;
}

}  // namespace detail

bool is_engine_path(std::string_view path) {
  return path.size() >= engine_prefix.size() &&
         path.substr(0, engine_prefix.size()) == engine_prefix;
}

std::string random_sid() {
  static constexpr char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  unsigned char bytes[15];
  fill_random(bytes, sizeof bytes);
  std::string out;
  out.reserve(20);
  for (std::size_t i = 0; i < sizeof bytes; i += 3) {
    const unsigned v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    for (int shift = 18; shift >= 0; shift -= 6)
      out.push_back(alphabet[(v >> shift) & 0x3f]);
  }
  return out;
}

}  // namespace mixerd::socketio
