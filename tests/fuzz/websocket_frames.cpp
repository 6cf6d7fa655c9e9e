// Fuzz target: the raw bytes a Socket.IO client sends after the websocket handshake. Beast's
// frame reader runs as the server runs it (gateways/http/websocket_session.hpp: server role, no
// permessage-deflate, read_message_max 1,000,000, async_read until an error) over an in-memory
// stream instead of TCP; every complete message then goes where engine::core::on_ws_message
// sends it: a text one to decode_eio and decode_sio (sio_checks.hpp), and all of them in order,
// binary ones as raw bytes, through one packet_decoder. As in the session, Beast sits on the
// batching layer (gateways/http/batching_stream.hpp), which carries its pongs and close frames, and
// each message is answered with a staged data frame, so both kinds of writes meet in the layer. Not
// covered: the session's timeouts (they need a TCP stream; they do not change parsing).
#include <boost/asio/io_context.hpp>
#include <boost/beast/_experimental/test/stream.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gateways/http/batching_stream.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "tests/fuzz/sio_checks.hpp"

namespace {

namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace bws = beast::websocket;
namespace net = boost::asio;

// listener_options::max_message_bytes (the controller listener sets 64 KiB, its maxPayload).
constexpr std::size_t max_message_bytes = 1'000'000;

bhttp::request<bhttp::string_body> upgrade_request() {
  // What socket.io-client sends for `transports: ['websocket']`.
  bhttp::request<bhttp::string_body> req{bhttp::verb::get, "/socket.io/?EIO=4&transport=websocket",
                                         11};
  req.set(bhttp::field::host, "127.0.0.1:5000");
  req.set(bhttp::field::upgrade, "websocket");
  req.set(bhttp::field::connection, "Upgrade");
  req.set(bhttp::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
  req.set(bhttp::field::sec_websocket_version, "13");
  return req;
}

using server_stream =
    bws::stream<mixerd::http::detail::batching_stream<beast::test::stream>, false>;

struct reader {
  server_stream& ws;
  beast::flat_buffer buffer;
  std::vector<std::pair<std::string, bool>> messages;  // data, binary

  void read() {
    ws.async_read(buffer, [this](beast::error_code ec, std::size_t) {
      if (ec) return;
      messages.emplace_back(beast::buffers_to_string(buffer.data()), !ws.got_text());
      FUZZ_CHECK(messages.back().first.size() <= max_message_bytes);
      buffer.clear();
      if (ws.next_layer().has_room()) ws.next_layer().stage_text_frame("3");
      read();
    });
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  net::io_context io;
  beast::test::stream client(io);
  server_stream ws{beast::test::stream{io}};
  auto owner = std::make_shared<int>(0);
  ws.next_layer().attach(owner, nullptr);
  client.connect(ws.next_layer().next_layer());
  ws.read_message_max(max_message_bytes);
  ws.next_layer().next_layer().append(mixerd::fuzz::as_text(data, size));
  // The client sends nothing more: reads end at the end of the input.
  client.close();

  reader r{ws, {}, {}};
  ws.async_accept(upgrade_request(), [&r](beast::error_code ec) {
    FUZZ_CHECK(!ec, ec.message());
    r.read();
  });
  io.run();
  // Not checked: that every text message is valid UTF-8. Beast 1.74 checks the end of a
  // message only while it reads payload bytes, so a message that ends with an empty
  // continuation frame may end in the middle of a character (found by this target:
  // corpus found-beast-utf8-empty-fin). Harmless here: decode_sio refuses invalid UTF-8 in JSON
  // and the Engine.IO layer only compares texts.
  std::vector<mixerd::sio::eio_packet> packets;
  for (const auto& [data, binary] : r.messages) {
    if (binary) {
      packets.push_back({mixerd::sio::eio_type::message, data, true});
      continue;
    }
    mixerd::fuzz::check_eio(data);
    if (auto p = mixerd::sio::decode_eio(data)) packets.push_back(std::move(*p));
  }
  mixerd::fuzz::check_decoder(packets);
  return 0;
}
