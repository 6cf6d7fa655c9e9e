// A WebSocket client connection to an outside service (Home Assistant, OBS), through Beast on
// the shared io_context, as the serial link does for the device: the owning actor never blocks
// on the network. ws:// and wss:// (OpenSSL, the system's trust store and the host name checked
// unless the options say not to). Text messages only: a binary one closes the link.
//
// Messages sent to `owner`, each tagged with the generation the owner gave, so that late
// messages of a connection it has given up are recognised and dropped:
//   (opened_atom, uint64_t gen)                       the handshake completed
//   (line_atom, uint64_t gen, std::string text)       one text message
//   (closed_atom, uint64_t gen, std::string reason, int32_t close_code)
//       the link ended: it could not be opened, the peer closed it (close_code is the code of
//       its close frame, e.g. 4009), or it broke (close_code 0). Sent exactly once, also after
//       a failed open; never after close().
#pragma once

#include <caf/actor.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "protocol/uri.hpp"

namespace boost::asio {
class io_context;
}

namespace mixerd {

// Where to connect: `url` from uri::split_url (ws/wss, or the http/https URL of the same server
// with the WebSocket's path as its target), and how.
struct websocket_endpoint {
  uri::url_parts url;
  std::string subprotocol;  // Sec-WebSocket-Protocol to ask for; empty: none
  bool verify_tls = true;   // wss: check the certificate chain and the host name
  // Connect, TLS and WebSocket handshakes together.
  std::chrono::milliseconds open_timeout{5000};
  // Larger incoming messages close the link ("message too big").
  std::size_t max_message_bytes = 8 * 1024 * 1024;
  // Messages waiting to be written; one more closes the link ("send queue full").
  std::size_t max_queued = 256;
};

class websocket_client {
 public:
  virtual ~websocket_client() = default;
  // Queues one text message (any thread). Before the open completes it waits in the queue.
  virtual void send(std::string text) = 0;
  // Closes the connection (normal closure); no further messages reach the owner (any thread).
  virtual void close() = 0;
};

// Starts connecting on the io thread and returns at once.
std::shared_ptr<websocket_client> open_websocket(boost::asio::io_context& io,
                                                 websocket_endpoint endpoint, caf::actor owner,
                                                 std::uint64_t generation);

}  // namespace mixerd
