// Engine.IO v4 / Socket.IO v5 packet codec: text on the wire <-> typed packets, both directions.
// Pure functions, no I/O (the unit tests hold frames of the reference server;
// docs/api.md describes the channel). Binary packets are not supported on either layer.
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
};

// One packet (a WS text frame or one element of a polling payload). Empty text, an unknown type
// or a base64 binary packet ('b' prefix) -> nullopt.
std::optional<eio_packet> decode_eio(std::string_view text);
std::string encode_eio(eio_type type, std::string_view data = {});

// Polling bodies: packets joined by the record separator 0x1E. Any bad packet (including an
// empty one from a doubled or trailing separator) rejects the whole body.
inline constexpr char payload_separator = '\x1e';
std::optional<std::vector<eio_packet>> decode_payload(std::string_view body);
void append_to_payload(std::string& payload, std::string_view encoded_packet);

// Defaults of the reference server (socket.io 4.8), which clients expect.
inline constexpr int default_ping_interval_ms = 25000;
inline constexpr int default_ping_timeout_ms = 20000;
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
};

// Decodes `<type>[<#attachments>-][<nsp>,][<ackId>][JSON]` (the data of an Engine.IO message).
// Validation follows socket.io-parser 4.2: CONNECT data must be an object, DISCONNECT carries
// none, EVENT needs a non-empty array whose first element is a non-reserved event name, ACK an
// id and an array, CONNECT_ERROR a string or an object. On failure returns nullopt and sets
// `error` to a short text. Never throws.
std::optional<sio_packet> decode_sio(std::string_view text, std::string& error);

// The Socket.IO part only (without the Engine.IO '4').
std::string encode_sio(const sio_packet& packet);

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
