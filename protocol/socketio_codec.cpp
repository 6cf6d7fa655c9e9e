#include "protocol/socketio_codec.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

namespace mixerd::sio {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// Client text may carry invalid UTF-8 (e.g. a device label); replacing beats throwing mid-send.
template <typename J>
std::string dump(const J& j) {
  return j.dump(-1, ' ', false, J::error_handler_t::replace);
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// socket.io-parser refuses these as event names: they are the library's own lifecycle events.
constexpr std::array<std::string_view, 6> reserved_events = {
    "connect", "connect_error", "disconnect", "disconnecting", "newListener", "removeListener"};

bool is_reserved_event(const std::string& name) {
  return std::find(reserved_events.begin(), reserved_events.end(), name) != reserved_events.end();
}

// Cheap scan before parsing: nesting deeper than max_json_depth is refused so later recursive
// operations (dump, copy, compare) on the value cannot overflow the stack.
bool depth_ok(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_json_depth) return false;
    } else if (c == ']' || c == '}') {
      --depth;  // unbalanced text is the parser's to reject
    }
  }
  return true;
}

bool valid_eio_type(char c) {
  return c >= '0' && c <= '6';
}

constexpr std::string_view base64_alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64_digit(char c) {
  const auto at = base64_alphabet.find(c);
  return at == std::string_view::npos ? -1 : static_cast<int>(at);
}

// Standard padded base64 (RFC 4648 section 4), which is what Node's Buffer and Python's base64
// write. Anything else, non-zero unused bits included, is refused: then encoding the bytes again
// gives back the same text, which keeps a polling body's re-encoding exact.
std::optional<std::string> decode_base64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    std::size_t pad = 0;
    if (i + 4 == text.size()) pad = text[i + 3] != '=' ? 0 : text[i + 2] != '=' ? 1 : 2;
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const int d = k < 4 - pad ? base64_digit(text[i + k]) : 0;
      if (d < 0) return std::nullopt;
      v = v << 6 | static_cast<std::uint32_t>(d);
    }
    if ((v & ((1U << (8 * pad)) - 1)) != 0) return std::nullopt;
    for (std::size_t k = 0; k < 3 - pad; ++k)
      out.push_back(static_cast<char>((v >> (16 - 8 * k)) & 0xFF));
  }
  return out;
}

std::string encode_base64(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 3; ++k)
      v = v << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0U);
    for (std::size_t k = 0; k < 4; ++k)
      out.push_back(k <= n ? base64_alphabet[(v >> (18 - 6 * k)) & 0x3F] : '=');
  }
  return out;
}

bool is_binary_type(sio_type t) {
  return t == sio_type::binary_event || t == sio_type::binary_ack;
}

// `<count>-` after a binary type. socket.io-parser 4.2.7 refuses a count below 1 or above its
// maxAttachments; it also takes whatever JavaScript's Number() takes, where only digits are read
// here (clients write nothing else).
const char* read_attachments(std::string_view text, std::size_t& pos, std::size_t& count) {
  const auto dash = text.find('-', pos);
  if (dash == std::string_view::npos || dash == pos) return "illegal attachments";
  count = 0;
  for (; pos < dash; ++pos) {
    if (!is_digit(text[pos])) return "illegal attachments";
    count = count * 10 + static_cast<std::size_t>(text[pos] - '0');
    if (count > max_attachments) return "too many attachments";
  }
  ++pos;  // the dash
  return count == 0 ? "illegal attachments" : nullptr;
}

bool is_placeholder(const json& j) {
  if (!j.is_object()) return false;
  const auto flag = j.find("_placeholder");
  return flag != j.end() && flag->is_boolean() && flag->get<bool>();
}

// Puts attachment n where `{"_placeholder":true,"num":n}` stands (socket.io-parser's
// reconstructPacket). Each placed copy is charged to `budget`: one attachment named a thousand
// times must not cost a thousand times its size unnoticed. Recursion is bounded by max_json_depth.
const char* place_attachments(json& j, const std::vector<std::string>& attachments,
                              std::size_t& budget) {
  if (is_placeholder(j)) {
    const auto num = j.find("num");
    if (num == j.end() || !num->is_number_unsigned() ||
        num->get<std::uint64_t>() >= attachments.size()) {
      return "illegal attachments";
    }
    const auto& bytes = attachments[num->get<std::size_t>()];
    if (bytes.size() > budget) return "binary packet over maxPayload";
    budget -= bytes.size();
    j = json::binary(json::binary_t::container_type(bytes.begin(), bytes.end()));
    return nullptr;
  }
  if (!j.is_structured()) return nullptr;
  for (auto& item : j) {
    if (const char* problem = place_attachments(item, attachments, budget)) return problem;
  }
  return nullptr;
}

// socket.io-parser checks a binary packet's data as it checks its plain twin's.
sio_type plain_type(sio_type t) {
  if (t == sio_type::binary_event) return sio_type::event;
  if (t == sio_type::binary_ack) return sio_type::ack;
  return t;
}

// Same rules as socket.io-parser 4.2 isPayloadValid, plus the v5 requirements the server
// relies on: an EVENT always has data and an ACK always has an id.
const char* validate(const sio_packet& p) {
  switch (plain_type(p.type)) {
    case sio_type::connect:
      if (p.has_data && !p.data.is_object()) return "CONNECT data must be an object";
      return nullptr;
    case sio_type::disconnect:
      if (p.has_data) return "DISCONNECT carries no data";
      return nullptr;
    case sio_type::event:
      if (!p.has_data || !p.data.is_array() || p.data.empty()) {
        return "EVENT data must be a non-empty array";
      }
      if (!p.data.front().is_string()) return "EVENT name must be a string";
      if (is_reserved_event(p.data.front().get_ref<const std::string&>())) {
        return "EVENT name is reserved";
      }
      return nullptr;
    case sio_type::ack:
      if (!p.ack_id) return "ACK without id";
      if (!p.has_data || !p.data.is_array()) return "ACK data must be an array";
      return nullptr;
    case sio_type::connect_error:
      if (p.has_data && !p.data.is_string() && !p.data.is_object()) {
        return "CONNECT_ERROR data must be a string or an object";
      }
      return nullptr;
    case sio_type::binary_event:
    case sio_type::binary_ack:
      break;  // plain_type() never returns these
  }
  return nullptr;
}

}  // namespace

// ---- Engine.IO --------------------------------------------------------------------------------

std::optional<eio_packet> decode_eio(std::string_view text) {
  if (!text.empty() && text.front() == 'b') {
    auto bytes = decode_base64(text.substr(1));
    if (!bytes) return std::nullopt;
    return eio_packet{eio_type::message, std::move(*bytes), true};
  }
  if (text.empty() || !valid_eio_type(text.front())) return std::nullopt;
  return eio_packet{static_cast<eio_type>(text.front()), std::string(text.substr(1)), false};
}

std::string encode_eio(eio_type type, std::string_view data) {
  std::string out;
  out.reserve(1 + data.size());
  out.push_back(static_cast<char>(type));
  out.append(data);
  return out;
}

std::string encode_eio(const eio_packet& packet) {
  if (packet.binary) return "b" + encode_base64(packet.data);
  return encode_eio(packet.type, packet.data);
}

std::optional<std::vector<eio_packet>> decode_payload(std::string_view body) {
  std::vector<eio_packet> packets;
  while (true) {
    const auto sep = body.find(payload_separator);
    auto packet = decode_eio(body.substr(0, sep));
    if (!packet) return std::nullopt;
    packets.push_back(std::move(*packet));
    if (sep == std::string_view::npos) break;
    body.remove_prefix(sep + 1);
  }
  return packets;
}

void append_to_payload(std::string& payload, std::string_view encoded_packet) {
  if (!payload.empty()) payload.push_back(payload_separator);
  payload.append(encoded_packet);
}

std::string open_packet(std::string_view sid, bool can_upgrade, int ping_interval_ms,
                        int ping_timeout_ms, std::size_t max_payload) {
  // ordered_json: clients accept any order, but matching the reference byte for byte makes
  // captures comparable.
  ordered_json j;
  j["sid"] = std::string(sid);
  j["upgrades"] = can_upgrade ? ordered_json::array({"websocket"}) : ordered_json::array();
  j["pingInterval"] = ping_interval_ms;
  j["pingTimeout"] = ping_timeout_ms;
  j["maxPayload"] = max_payload;
  return encode_eio(eio_type::open, dump(j));
}

std::string eio_error_body(int code) {
  static constexpr std::array<const char*, 6> messages = {
      "Transport unknown", "Session ID unknown", "Bad handshake method",
      "Bad request",       "Forbidden",          "Unsupported protocol version"};
  if (code < 0 || code >= static_cast<int>(messages.size())) code = err_bad_request;
  ordered_json j;
  j["code"] = code;
  j["message"] = messages[static_cast<std::size_t>(code)];
  return dump(j);
}

// ---- Socket.IO --------------------------------------------------------------------------------

std::optional<sio_packet> decode_sio(std::string_view text, std::string& error) {
  error.clear();
  try {
    if (text.empty()) {
      error = "empty packet";
      return std::nullopt;
    }
    const char t = text.front();
    if (!is_digit(t) || t > '6') {
      error = "unknown packet type";
      return std::nullopt;
    }
    sio_packet p{static_cast<sio_type>(t - '0'), "/", std::nullopt, json(), false, 0};
    std::size_t pos = 1;
    if (is_binary_type(p.type)) {
      if (const char* problem = read_attachments(text, pos, p.attachments)) {
        error = problem;
        return std::nullopt;
      }
    }

    // Namespace: only present when it is not "/"; runs to the ',' (or to the end, as in
    // socket.io-parser, so `1/admin` is a DISCONNECT of /admin).
    if (pos < text.size() && text[pos] == '/') {
      const auto comma = text.find(',', pos);
      const auto end = comma == std::string_view::npos ? text.size() : comma;
      p.nsp = std::string(text.substr(pos, end - pos));
      pos = comma == std::string_view::npos ? text.size() : comma + 1;
    }

    // Ack id: decimal digits directly before the JSON.
    if (pos < text.size() && is_digit(text[pos])) {
      std::uint64_t id = 0;
      constexpr auto max = std::numeric_limits<std::uint64_t>::max();
      for (; pos < text.size() && is_digit(text[pos]); ++pos) {
        const auto d = static_cast<std::uint64_t>(text[pos] - '0');
        if (id > (max - d) / 10) {
          error = "ack id out of range";
          return std::nullopt;
        }
        id = id * 10 + d;
      }
      p.ack_id = id;
    }

    if (pos < text.size()) {
      const auto body = text.substr(pos);
      if (!depth_ok(body)) {
        error = "JSON nested too deeply";
        return std::nullopt;
      }
      p.data = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
      if (p.data.is_discarded()) {
        error = "malformed JSON";
        return std::nullopt;
      }
      p.has_data = true;
    }

    if (const char* problem = validate(p)) {
      error = problem;
      return std::nullopt;
    }
    return p;
  } catch (const nlohmann::json::exception& e) {
    // Not expected with allow_exceptions=false; kept so a library surprise cannot escape.
    error = std::string("JSON error: ") + e.what();
    return std::nullopt;
  }
}

std::string encode_sio(const sio_packet& packet) {
  std::string out(1, static_cast<char>('0' + static_cast<int>(packet.type)));
  if (is_binary_type(packet.type)) {
    out.append(std::to_string(packet.attachments));
    out.push_back('-');
  }
  if (!packet.nsp.empty() && packet.nsp != "/") {
    out.append(packet.nsp);
    out.push_back(',');
  }
  if (packet.ack_id) out.append(std::to_string(*packet.ack_id));
  if (packet.has_data) out.append(dump(packet.data));
  return out;
}

std::optional<sio_packet> packet_decoder::add(std::string_view data, bool binary,
                                              std::string& error) {
  error.clear();
  if (binary) return add_attachment(data, error);
  // socket.io-parser: a binary packet's attachments come right after it, nothing in between.
  if (pending_) return fail(error, "text packet while a binary packet waits for attachments");
  auto p = decode_sio(data, error);
  if (!p || p->attachments == 0) return p;
  if (data.size() > max_payload_) return fail(error, "binary packet over maxPayload");
  text_size_ = received_ = data.size();
  pending_ = std::move(p);
  return std::nullopt;
}

std::optional<sio_packet> packet_decoder::add_attachment(std::string_view bytes,
                                                         std::string& error) {
  if (!pending_) return fail(error, "binary data without a binary packet");
  if (bytes.size() > max_payload_ - received_) return fail(error, "binary packet over maxPayload");
  received_ += bytes.size();
  attachments_.emplace_back(bytes);
  if (attachments_.size() < pending_->attachments) return std::nullopt;

  sio_packet p = std::move(*pending_);
  auto attachments = std::move(attachments_);
  std::size_t budget = max_payload_ - text_size_;
  reset();  // ready for the next packet, whatever comes of this one
  if (const char* problem = place_attachments(p.data, attachments, budget)) {
    error = problem;
    return std::nullopt;
  }
  p.type = p.type == sio_type::binary_event ? sio_type::event : sio_type::ack;
  p.attachments = 0;
  return p;
}

std::optional<sio_packet> packet_decoder::fail(std::string& error, std::string why) {
  reset();
  error = std::move(why);
  return std::nullopt;
}

void packet_decoder::reset() {
  pending_.reset();
  attachments_.clear();
  text_size_ = received_ = 0;
}

std::string event_message(std::string_view name, const nlohmann::json& payload) {
  sio_packet p{sio_type::event, "/", std::nullopt, json::array({std::string(name), payload}), true};
  return encode_eio(eio_type::message, encode_sio(p));
}

std::string ack_message(std::uint64_t id, const nlohmann::json& args_array) {
  // The client spreads the array into the callback's arguments, so it must be an array.
  sio_packet p{sio_type::ack, "/", id,
               args_array.is_array() ? args_array : json::array({args_array}), true};
  return encode_eio(eio_type::message, encode_sio(p));
}

std::string connect_ok_message(std::string_view nsp_sid) {
  sio_packet p{sio_type::connect, "/", std::nullopt, json{{"sid", std::string(nsp_sid)}}, true};
  return encode_eio(eio_type::message, encode_sio(p));
}

std::string connect_error_message(std::string_view message) {
  sio_packet p{sio_type::connect_error, "/", std::nullopt, json{{"message", std::string(message)}},
               true};
  return encode_eio(eio_type::message, encode_sio(p));
}

handshake_query parse_handshake_query(std::string_view query) {
  handshake_query q;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const auto part = query.substr(0, amp);
    const auto eq = part.find('=');
    const auto key = part.substr(0, eq);
    const auto value = eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1);
    if (key == "EIO") {
      q.eio = value;
    } else if (key == "transport") {
      q.transport = value;
    } else if (key == "sid") {
      q.sid = value;
      q.has_sid = true;
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return q;
}

}  // namespace mixerd::sio
