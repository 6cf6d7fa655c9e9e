// Fuzz target: Engine.IO polling bodies (the body of a POST to /socket.io/?...&sid=...), as
// engine::core::post decodes them. Checked: a body is accepted exactly when every packet
// between 0x1E separators is non-empty and starts with a type 0-6, or is `b` and canonical
// base64; an accepted body re-encodes byte for byte; every text message goes on to the
// Socket.IO checks, and all messages in order through one packet_decoder (sio_checks.hpp). The
// packets the server builds itself (open packet, error bodies) are valid JSON whatever their
// numbers.
#include <string>

#include "protocol/socketio_codec.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "tests/fuzz/sio_checks.hpp"

namespace {

using namespace mixerd;

bool reference_accepts(std::string_view body) {
  for (const auto& part : fuzz::split_on(body, sio::payload_separator))
    if (!fuzz::reference_valid_eio(part)) return false;
  return true;
}

void check_server_packets(std::string_view bytes) {
  const auto h = fuzz::input_hash(bytes);
  const int interval = static_cast<int>(h & 0xFFFFFU);
  const int timeout = -static_cast<int>((h >> 20) & 0xFFFFU);
  const std::string open =
      sio::open_packet(bytes.substr(0, 20), (h & 1U) != 0, interval, timeout, h >> 40);
  FUZZ_CHECK(open.size() > 1 && open.front() == '0', open);
  const auto j = nlohmann::json::parse(open.substr(1), nullptr, false);
  FUZZ_CHECK(j.is_object() && j["sid"].is_string() && j["pingInterval"] == interval, open);
  const auto error =
      nlohmann::json::parse(sio::eio_error_body(static_cast<int>(h)), nullptr, false);
  FUZZ_CHECK(error.is_object() && error["code"].is_number_integer(), std::string(bytes));
  FUZZ_CHECK(error["code"].get<int>() >= 0 && error["code"].get<int>() <= 5, std::string(bytes));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = fuzz::as_text(data, size);
  const auto packets = sio::decode_payload(body);
  FUZZ_CHECK(packets.has_value() == reference_accepts(body), std::string(body));
  if (packets) {
    std::string again;
    for (const auto& p : *packets)
      sio::append_to_payload(again, sio::encode_eio(p));
    FUZZ_CHECK(again == body, std::string(body) + " -> " + again);
    for (const auto& p : *packets)
      if (p.type == sio::eio_type::message && !p.binary) fuzz::check_sio(p.data);
    fuzz::check_decoder(*packets);
  }
  // The same bytes as one packet (a websocket frame).
  fuzz::check_eio(body);
  check_server_packets(body);
  return 0;
}
