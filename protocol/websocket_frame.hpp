// The server side of WebSocket framing (RFC 6455 section 5.2) that mixerd writes itself: one
// unfragmented, unmasked text frame. Beast still reads every frame and writes the control frames;
// the HTTP core writes data frames through this so that frames queued for one socket go out in
// one send() (gateways/http/batching_stream.hpp).
#pragma once

#include <string>
#include <string_view>

namespace mixerd::ws_frame {

// Appends header and payload of one final text frame to `out`. The payload must be UTF-8; the
// caller's packets are (they come from the JSON encoder).
void append_text_frame(std::string& out, std::string_view payload);

}  // namespace mixerd::ws_frame
