// Invariants of the Engine.IO / Socket.IO codec (protocol/socketio_codec), shared by the polling,
// packet and websocket-frame targets: what decodes re-encodes to text that decodes to the same
// packet, what the codec accepts obeys the socket.io-parser 4.2.7 rules it implements, and a
// binary packet reassembled by packet_decoder keeps no placeholder it was given bytes for.
#pragma once

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/socketio_codec.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace mixerd::fuzz {

inline bool same_packet(const sio::sio_packet& a, const sio::sio_packet& b) {
  return a.type == b.type && a.nsp == b.nsp && a.ack_id == b.ack_id && a.has_data == b.has_data &&
         a.data == b.data && a.attachments == b.attachments;
}

// A reference reading of canonical base64 (RFC 4648, padded), stated differently from the
// codec's: the alphabet, padding only at the end, and the bits the padding leaves unused are 0.
inline bool canonical_base64(std::string_view text) {
  static constexpr std::string_view alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (text.size() % 4 != 0) return false;
  std::size_t pad = 0;
  while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=')
    ++pad;
  const auto data = text.substr(0, text.size() - pad);
  if (data.find_first_not_of(alphabet) != std::string_view::npos) return false;
  if (pad == 0) return true;
  const auto last = alphabet.find(data.back());
  return last % (pad == 1 ? 4 : 16) == 0;
}

// What engine.io-parser reads as a packet, limited to the base64 clients write.
inline bool reference_valid_eio(std::string_view text) {
  if (text.empty()) return false;
  if (text.front() == 'b') return canonical_base64(text.substr(1));
  return text.front() >= '0' && text.front() <= '6';
}

inline bool has_live_placeholder(const nlohmann::json& j, std::size_t attachments) {
  if (j.is_object()) {
    const auto flag = j.find("_placeholder");
    const auto num = j.find("num");
    if (flag != j.end() && *flag == true && num != j.end() && num->is_number_unsigned() &&
        num->get<std::uint64_t>() < attachments) {
      return true;
    }
  }
  if (!j.is_structured()) return false;
  for (const auto& item : j)
    if (has_live_placeholder(item, attachments)) return true;
  return false;
}

// A binary packet that decoded, followed by `p.attachments` attachments cut from `bytes`.
inline void check_reassembly(std::string_view text, const sio::sio_packet& p,
                             std::string_view bytes) {
  const std::string context(text);
  sio::packet_decoder decoder(sio::default_max_payload);
  std::string error;
  const bool fits = text.size() <= sio::default_max_payload;
  FUZZ_CHECK(!decoder.add(text, false, error), context);
  FUZZ_CHECK(error.empty() == fits && decoder.waiting() == fits, context);
  std::optional<sio::sio_packet> done;
  for (std::size_t i = 0; fits && i < p.attachments && error.empty(); ++i) {
    FUZZ_CHECK(!done, context);
    done = decoder.add(bytes.substr(std::min(i, bytes.size())), true, error);
  }
  FUZZ_CHECK(!decoder.waiting(), context);
  FUZZ_CHECK(done.has_value() == error.empty(), context + " : " + error);
  if (!done) return;
  const auto plain =
      p.type == sio::sio_type::binary_event ? sio::sio_type::event : sio::sio_type::ack;
  FUZZ_CHECK(done->type == plain && done->attachments == 0, context);
  FUZZ_CHECK(done->nsp == p.nsp && done->ack_id == p.ack_id, context);
  FUZZ_CHECK(!has_live_placeholder(done->data, p.attachments), context);
  // After a complete packet the decoder reads the next one as a first one.
  FUZZ_CHECK(decoder.add("2[\"x\"]", false, error).has_value(), context);
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
    case sio::sio_type::binary_event:
      // The namespace server reads the name without further checks.
      FUZZ_CHECK(p->has_data && p->data.is_array() && !p->data.empty(), context);
      FUZZ_CHECK(p->data.front().is_string(), context);
      break;
    case sio::sio_type::ack:
    case sio::sio_type::binary_ack:
      FUZZ_CHECK(p->ack_id.has_value() && p->has_data && p->data.is_array(), context);
      break;
    case sio::sio_type::connect_error:
      FUZZ_CHECK(!p->has_data || p->data.is_string() || p->data.is_object(), context);
      break;
  }
  const bool binary =
      p->type == sio::sio_type::binary_event || p->type == sio::sio_type::binary_ack;
  FUZZ_CHECK(
      binary ? p->attachments >= 1 && p->attachments <= sio::max_attachments : p->attachments == 0,
      context);
  if (binary) check_reassembly(text, *p, text);
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

// The message packets of one connection, in order, through one decoder, as the namespace
// server reads them: a packet comes out only without an error, and nothing throws.
inline void check_decoder(const std::vector<sio::eio_packet>& messages) {
  sio::packet_decoder decoder(sio::default_max_payload);
  std::string error;
  for (const auto& m : messages) {
    if (m.type != sio::eio_type::message) continue;
    const auto p = decoder.add(m.data, m.binary, error);
    FUZZ_CHECK(!p || error.empty(), error);
    FUZZ_CHECK(!p || p->attachments == 0, m.data);
  }
}

// One Engine.IO packet (a websocket text frame or one packet of a polling body).
inline void check_eio(std::string_view text) {
  const std::string context(text);
  const auto p = sio::decode_eio(text);
  FUZZ_CHECK(p.has_value() == reference_valid_eio(text), context);
  if (!p) return;
  FUZZ_CHECK(p->binary == (text.front() == 'b'), context);
  FUZZ_CHECK(sio::encode_eio(*p) == text, context);
  if (p->type == sio::eio_type::message && !p->binary) check_sio(p->data);
}

}  // namespace mixerd::fuzz
