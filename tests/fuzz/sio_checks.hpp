// Invariants of the Engine.IO / Socket.IO codec (protocol/socketio_codec), shared by the polling,
// packet and websocket-frame targets: what decodes re-encodes to text that decodes to the same
// packet, and what the codec accepts obeys the socket.io-parser 4.2 rules it implements.
#pragma once

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "protocol/socketio_codec.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace mixerd::fuzz {

inline bool same_packet(const sio::sio_packet& a, const sio::sio_packet& b) {
  return a.type == b.type && a.nsp == b.nsp && a.ack_id == b.ack_id && a.has_data == b.has_data &&
         a.data == b.data;
}

inline int json_depth(const nlohmann::json& j) {
  if (!j.is_structured()) return 0;
  int deepest = 0;
  for (const auto& item : j)
    deepest = std::max(deepest, json_depth(item));
  return deepest + 1;
}

// One Socket.IO packet as the namespace server receives it (the data of an Engine.IO message).
inline void check_sio(std::string_view text) {
  const std::string context(text);
  std::string error;
  const auto p = sio::decode_sio(text, error);
  if (!p) {
    FUZZ_CHECK(!error.empty(), context);
    return;
  }
  FUZZ_CHECK(error.empty(), context);
  FUZZ_CHECK(!p->nsp.empty() && p->nsp.front() == '/', context);
  FUZZ_CHECK(json_depth(p->data) <= sio::max_json_depth, context);
  switch (p->type) {
    case sio::sio_type::connect:
      FUZZ_CHECK(!p->has_data || p->data.is_object(), context);
      break;
    case sio::sio_type::disconnect:
      FUZZ_CHECK(!p->has_data, context);
      break;
    case sio::sio_type::event:
      // The namespace server reads the name without further checks.
      FUZZ_CHECK(p->has_data && p->data.is_array() && !p->data.empty(), context);
      FUZZ_CHECK(p->data.front().is_string(), context);
      break;
    case sio::sio_type::ack:
      FUZZ_CHECK(p->ack_id.has_value() && p->has_data && p->data.is_array(), context);
      break;
    case sio::sio_type::connect_error:
      FUZZ_CHECK(!p->has_data || p->data.is_string() || p->data.is_object(), context);
      break;
    default:
      FUZZ_CHECK(false, "binary packet accepted: " + context);
  }
  const std::string encoded = sio::encode_sio(*p);
  std::string error2;
  const auto again = sio::decode_sio(encoded, error2);
  FUZZ_CHECK(again.has_value(), context + " -> " + encoded + " : " + error2);
  FUZZ_CHECK(same_packet(*p, *again), context + " -> " + encoded);
  FUZZ_CHECK(sio::encode_sio(*again) == encoded, context + " -> " + encoded);

  // What the server sends back from client data decodes as what it meant to send.
  if (p->type == sio::sio_type::event && p->data.size() >= 2) {
    const auto& name = p->data.front().get_ref<const std::string&>();
    const std::string message = sio::event_message(name, p->data[1]);
    const auto eio = sio::decode_eio(message);
    FUZZ_CHECK(eio && eio->type == sio::eio_type::message, message);
    const auto event = sio::decode_sio(eio->data, error2);
    // p->data held data[1] one level deeper than the new array does: never too deep.
    FUZZ_CHECK(event.has_value(), message + " : " + error2);
    FUZZ_CHECK(event->data == nlohmann::json::array({name, p->data[1]}), message);
  }
  if (p->ack_id) {
    const std::string message = sio::ack_message(*p->ack_id, p->data);
    const auto eio = sio::decode_eio(message);
    FUZZ_CHECK(eio && eio->type == sio::eio_type::message, message);
    const auto ack = sio::decode_sio(eio->data, error2);
    // A non-array is wrapped in one, one level deeper.
    if (p->data.is_array() || json_depth(p->data) < sio::max_json_depth) {
      FUZZ_CHECK(ack && ack->type == sio::sio_type::ack && ack->ack_id == p->ack_id,
                 message + " : " + error2);
    }
  }
}

// One Engine.IO packet (a websocket text frame or one packet of a polling body).
inline void check_eio(std::string_view text) {
  const std::string context(text);
  const auto p = sio::decode_eio(text);
  const bool valid = !text.empty() && text.front() >= '0' && text.front() <= '6';
  FUZZ_CHECK(p.has_value() == valid, context);
  if (!p) return;
  FUZZ_CHECK(sio::encode_eio(p->type, p->data) == text, context);
  if (p->type == sio::eio_type::message) check_sio(p->data);
}

}  // namespace mixerd::fuzz
