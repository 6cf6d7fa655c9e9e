#include "protocol/websocket_frame.hpp"

#include <cstdint>

namespace mixerd::ws_frame {

void append_text_frame(std::string& out, std::string_view payload) {
  constexpr unsigned char fin_text = 0x81;  // FIN, opcode 1; a server never masks
  const std::uint64_t size = payload.size();
  out.push_back(static_cast<char>(fin_text));
  if (size <= 125) {
    out.push_back(static_cast<char>(size));
  } else if (size <= 0xFFFF) {
    out.push_back(static_cast<char>(126));
    out.push_back(static_cast<char>(size >> 8));
    out.push_back(static_cast<char>(size & 0xFF));
  } else {
    out.push_back(static_cast<char>(127));
    for (int shift = 56; shift >= 0; shift -= 8) {
      out.push_back(static_cast<char>((size >> shift) & 0xFF));
    }
  }
  out.append(payload);
}

}  // namespace mixerd::ws_frame
