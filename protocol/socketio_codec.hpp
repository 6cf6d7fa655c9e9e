// Engine.IO v4 / Socket.IO v5 packet codec: text on the wire <-> typed packets, both directions.
// Pure functions, no I/O (the unit tests hold frames of the reference server; docs/api.md
// describes the channel). Binary data is read on both layers as the reference server reads it
// (engine.io-parser 5, socket.io-parser 4.2.7); nothing here writes any.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mixerd::sio {

// ---- Engine.IO v4 -----------------------------------------------------------------------------
enum class eio_type : char {
  open = '0',
  close = '1',
  ping = '2',
  pong = '3',
  message = '4',
  upgrade = '5',
  noop = '6'
};

struct eio_packet {
  eio_type type;
  std::string data;  // everything after the type character, e.g. "probe" or a Socket.IO packet
  // A message whose data are raw bytes: `b<base64>` in text, or a websocket binary frame.
  bool binary = false;
};

// One packet (a WS text frame or one element of a polling payload). `b` followed by base64 is a
// binary message. Empty text, an unknown type or base64 that is not in canonical form
// (padded, unused bits zero: what every client writes) -> nullopt.
std::optional<eio_packet> decode_eio(std::string_view text);
std::string encode_eio(eio_type type, std::string_view data = {});
// The text form of any packet: a binary message as `b<base64>` (as a polling payload holds it).
std::string encode_eio(const eio_packet& packet);

// Polling bodies: packets joined by the record separator 0x1E. Any bad packet (including an
// empty one from a doubled or trailing separator) rejects the whole body.
inline constexpr char payload_separator = '\x1e';
std::optional<std::vector<eio_packet>> decode_payload(std::string_view body);
void append_to_payload(std::string& payload, std::string_view encoded_packet);

// Defaults of the reference server (socket.io 4.8), which clients expect.
inline constexpr int default_ping_interval_ms = 25000;
inline constexpr int default_ping_timeout_ms = 20000;
// socket.io's connectTimeout: how long a connection may stay without joining a namespace.
inline constexpr int default_connect_timeout_ms = 45000;
inline constexpr std::size_t default_max_payload = 1000000;

// The complete open packet, keys in the reference server's order:
// 0{"sid":"…","upgrades":["websocket"],"pingInterval":…,"pingTimeout":…,"maxPayload":…}
// `upgrades` is [] when the session already runs on WebSocket.
std::string open_packet(std::string_view sid, bool can_upgrade, int ping_interval_ms,
                        int ping_timeout_ms, std::size_t max_payload);

// HTTP 400 bodies of the reference server, e.g. {"code":1,"message":"Session ID unknown"}.
inline constexpr int err_transport_unknown = 0;
inline constexpr int err_unknown_sid = 1;
inline constexpr int err_bad_handshake_method = 2;
inline constexpr int err_bad_request = 3;
inline constexpr int err_forbidden = 4;
inline constexpr int err_unsupported_protocol_version = 5;
// An unknown code is answered as err_bad_request.
std::string eio_error_body(int code);

// ---- Socket.IO v5 (inside Engine.IO message packets) ------------------------------------------
enum class sio_type {
  connect = 0,
  disconnect = 1,
  event = 2,
  ack = 3,
  connect_error = 4,
  binary_event = 5,
  binary_ack = 6
};

struct sio_packet {
  sio_type type;
  std::string nsp = "/";
  std::optional<std::uint64_t> ack_id;
  nlohmann::json data;
  bool has_data = false;  // false: no JSON on the wire (`40`, `41`), distinct from `null`
  // BINARY_EVENT / BINARY_ACK: the binary messages that follow the text (1 to max_attachments);
  // 0 for every other type.
  std::size_t attachments = 0;
};

// socket.io-parser 4.2.7's default maxAttachments: more in one packet is refused.
inline constexpr std::size_t max_attachments = 10;

// Decodes `<type>[<#attachments>-][<nsp>,][<ackId>][JSON]` (the data of an Engine.IO message).
// Validation follows socket.io-parser 4.2.7: CONNECT data must be an object, DISCONNECT carries
// none, (BINARY_)EVENT needs a non-empty array whose first element is a non-reserved event name,
// (BINARY_)ACK an id and an array, CONNECT_ERROR a string or an object; binary types need an
// attachment count of 1 to max_attachments. A binary packet comes back as sent, placeholders and
// all (packet_decoder puts its attachments in). On failure returns nullopt and sets `error` to a
// short text. Never throws.
std::optional<sio_packet> decode_sio(std::string_view text, std::string& error);

// The Socket.IO part only (without the Engine.IO '4').
std::string encode_sio(const sio_packet& packet);

// The Socket.IO packets of one connection, as socket.io-parser's Decoder reads them: a binary
// packet is complete once its attachments (the binary messages right after it) have arrived.
// Then every placeholder `{"_placeholder":true,"num":n}` in its data becomes attachment n as a
// JSON binary value (nlohmann::json::binary_t), and its type becomes EVENT or ACK. A packet
// whose text and attachments together (each attachment counted where it is placed, and at least
// once) exceed `max_payload` bytes is refused, like any payload over maxPayload.
class packet_decoder {
 public:
  explicit packet_decoder(std::size_t max_payload = default_max_payload)
      : max_payload_(max_payload) {}

  // One Engine.IO message, text or binary. Returns a complete packet; or nullopt with `error`
  // empty while a binary packet waits for attachments; or nullopt with `error` set when the
  // input breaks the protocol (the connection must then be closed; the decoder starts over).
  std::optional<sio_packet> add(std::string_view data, bool binary, std::string& error);
  bool waiting() const { return pending_.has_value(); }

 private:
  std::optional<sio_packet> add_attachment(std::string_view bytes, std::string& error);
  std::optional<sio_packet> fail(std::string& error, std::string why);
  void reset();

  std::size_t max_payload_;
  std::optional<sio_packet> pending_;
  std::vector<std::string> attachments_;
  std::size_t text_size_ = 0;  // of the pending packet
  std::size_t received_ = 0;   // bytes of the pending packet so far, text included
};

// Complete Engine.IO message texts for the default namespace "/".
std::string event_message(std::string_view name, const nlohmann::json& payload);  // 42["n",p]
// 43<id>[...]; a non-array `args_array` is sent as the single argument [args_array].
std::string ack_message(std::uint64_t id, const nlohmann::json& args_array);
std::string connect_ok_message(std::string_view nsp_sid);     // 40{"sid":"…"}
std::string connect_error_message(std::string_view message);  // 44{"message":"…"}

// Deepest JSON nesting accepted from a client: nlohmann's dump/copy recurse, so an unbounded
// depth would let a 1 MB payload of '[' overflow the stack later.
inline constexpr int max_json_depth = 64;

// The Engine.IO parameters of a request's query string (`EIO`, `transport`, `sid`); other
// parameters (`t`, ...) are ignored. Values are taken as sent (they are never percent-encoded).
struct handshake_query {
  std::string eio;
  std::string transport;
  std::string sid;
  bool has_sid = false;
};
handshake_query parse_handshake_query(std::string_view query);

}  // namespace mixerd::sio
