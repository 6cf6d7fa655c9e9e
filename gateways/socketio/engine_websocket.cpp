// The websocket transport of the Engine.IO engine: a websocket-only handshake, the upgrade of a
// polling session (probe, `3probe`, `5`), and the frames and closes of both kinds of socket.
#include <memory>
#include <utility>

#include "gateways/http/cors.hpp"
#include "gateways/socketio/engine_core.hpp"

namespace mixerd::socketio {

namespace {
constexpr std::string_view component = detail::engine_log_component;
using detail::error_response;
}  // namespace

http::websocket_events engine::core::ws_events(const session_ptr& s,
                                               const http::websocket* socket) {
  // Weak references only: the socket's events must not keep the session alive, and the socket
  // is compared by address, never owned here.
  std::weak_ptr<session> weak = s;
  http::websocket_events events;
  events.on_message = [this_ = weak_from_this(), weak, socket](std::string text) {
    if (auto self = this_.lock()) self->on_ws_message(weak, socket, text, false);
  };
  // Engine.IO v4: a binary frame is a message packet of raw bytes, with no type byte.
  events.on_binary = [this_ = weak_from_this(), weak, socket](std::string bytes) {
    if (auto self = this_.lock()) self->on_ws_message(weak, socket, bytes, true);
  };
  events.on_close = [this_ = weak_from_this(), weak, socket] {
    if (auto self = this_.lock()) self->on_ws_close(weak, socket);
  };
  return events;
}

std::optional<http::websocket_events> engine::core::upgrade(const http::request& req,
                                                            std::shared_ptr<http::websocket> socket,
                                                            http::response& refusal) {
  auto cors = http::cors_headers(req, options_.tls);
  if (stopped_) {
    refusal = error_response(sio::err_bad_request, std::move(cors));
    refusal.status = 503;
    return std::nullopt;
  }
  const auto q = sio::parse_handshake_query(req.query);
  if (q.transport != "polling" && q.transport != "websocket") {
    refusal = error_response(sio::err_transport_unknown, std::move(cors));
    return std::nullopt;
  }
  if (q.transport != "websocket") {
    refusal = error_response(sio::err_bad_request, std::move(cors));
    return std::nullopt;
  }
  if (q.has_sid) {
    auto it = sessions_.find(q.sid);
    if (it == sessions_.end()) {
      refusal = error_response(sio::err_unknown_sid, std::move(cors));
      return std::nullopt;
    }
    auto s = it->second;
    // At most one websocket per session, and only from polling.
    if (s->websocket || s->probe) {
      refusal = error_response(sio::err_bad_request, std::move(cors));
      return std::nullopt;
    }
    s->probe = socket;
    return ws_events(s, socket.get());
  }
  if (auto refused = refuse(req, cors)) {
    refusal = std::move(*refused);
    return std::nullopt;
  }
  if (q.eio != "4") {
    refusal = error_response(sio::err_unsupported_protocol_version, std::move(cors));
    return std::nullopt;
  }
  auto s = create(req, true);
  s->ws = socket;
  // Queued before the handshake completes; the core sends it as the first frame.
  socket->send(std::make_shared<const std::string>(sio::open_packet(
      s->sid, false, options_.ping_interval_ms, options_.ping_timeout_ms, options_.max_payload)));
  schedule_ping(s);
  if (hooks_.on_open) hooks_.on_open(s);
  return ws_events(s, socket.get());
}

void engine::core::on_ws_message(const std::weak_ptr<session>& weak, const http::websocket* socket,
                                 std::string_view data, bool binary) {
  auto s = weak.lock();
  if (!s || s->closed) return;
  auto p = binary ? std::optional<sio::eio_packet>(
                        sio::eio_packet{sio::eio_type::message, std::string(data), true})
                  : sio::decode_eio(data);
  if (s->probe.get() == socket) {
    if (!p) return;
    if (p->type == sio::eio_type::ping && p->data == "probe") {
      s->probe->send(
          std::make_shared<const std::string>(sio::encode_eio(sio::eio_type::pong, "probe")));
      s->upgrading = true;
      // The client pauses polling before it sends `5`; a held poll must come back first.
      if (s->pending_get) s->answer_get();
    } else if (p->type == sio::eio_type::upgrade && s->upgrading) {
      s->upgrade_timer.cancel();
      s->upgrading = false;
      s->websocket = true;
      s->ws = std::move(s->probe);
      s->probe.reset();
      if (s->pending_get) {
        // Packets still queued go over the websocket below; the poll only learns to stop.
        auto queued = std::move(s->queue);
        const auto bytes = s->queued_bytes;
        s->queue.clear();
        s->answer_get();
        s->queue = std::move(queued);
        s->queued_bytes = bytes;
      }
      for (auto& packet : s->queue)
        s->ws->send(std::move(packet));
      s->queue.clear();
      s->queued_bytes = 0;
      log::debug(component, "session ", s->sid, " upgraded to websocket");
    }
    return;
  }
  if (s->ws.get() != socket) return;
  if (!p) return close_session(s, false, "malformed packet");
  on_packet(s, *p);
}

void engine::core::on_ws_close(const std::weak_ptr<session>& weak, const http::websocket* socket) {
  auto s = weak.lock();
  if (!s || s->closed) return;
  if (s->probe.get() == socket) {
    // A failed upgrade leaves the session on polling, as it was.
    s->probe.reset();
    s->upgrading = false;
    s->upgrade_timer.cancel();
    return;
  }
  if (s->ws.get() == socket) close_session(s, true, "transport close");
}

}  // namespace mixerd::socketio
