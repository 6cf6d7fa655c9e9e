// Fuzz target: Socket.IO packets as the namespace server receives them (the data of an Engine.IO
// message: `42["get_state"]` arrives here as `2["get_state"]`), and the query string of the
// Engine.IO handshake. Checked: sio_checks.hpp (accepted packets obey the socket.io-parser
// rules, re-encode to the same packet, and the answers built from them decode); the handshake
// parameters are pieces of the query between separators.
#include <string>

#include "protocol/socketio_codec.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "tests/fuzz/sio_checks.hpp"

namespace {

using namespace mixerd;

// Reference reading: `&`-separated `key=value` pieces (no '=': an empty value), the last
// EIO / transport / sid wins, anything else is ignored.
void check_query(std::string_view query) {
  const auto q = sio::parse_handshake_query(query);
  sio::handshake_query want;
  for (const auto& piece : fuzz::split_on(query, '&')) {
    const auto eq = piece.find('=');
    const std::string key = piece.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : piece.substr(eq + 1);
    if (key == "EIO") want.eio = value;
    if (key == "transport") want.transport = value;
    if (key == "sid") {
      want.sid = value;
      want.has_sid = true;
    }
  }
  FUZZ_CHECK(q.eio == want.eio && q.transport == want.transport, std::string(query));
  FUZZ_CHECK(q.sid == want.sid && q.has_sid == want.has_sid, std::string(query));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  fuzz::check_sio(text);
  check_query(text);
  return 0;
}
