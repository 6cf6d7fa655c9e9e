// The Engine.IO engine's private state, shared by its two halves: engine.cpp (handshake, polling,
// pings, closing) and engine_websocket.cpp (the websocket transport and the upgrade from
// polling). Only those two files include it.
#pragma once

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "actors/support/log.hpp"
#include "gateways/socketio/engine.hpp"
#include "gateways/socketio/engine_answers.hpp"
#include "gateways/socketio/session_caps.hpp"
#include "protocol/socketio_codec.hpp"

namespace mixerd::socketio {

namespace detail {
inline constexpr std::string_view engine_log_component = "socket.io";
using packet_ptr = std::shared_ptr<const std::string>;
}  // namespace detail

class engine::core : public std::enable_shared_from_this<engine::core> {
 public:
  class session;
  using session_ptr = std::shared_ptr<session>;

  core(boost::asio::io_context& io, engine_options options, engine_hooks hooks)
      : io_(io),
        options_(options),
        hooks_(std::move(hooks)),
        caps_(options.max_sessions, options.max_sessions_per_address) {}

  void handle_request(http::request&& req, http::responder respond);
  std::optional<http::websocket_events> upgrade(const http::request& req,
                                                std::shared_ptr<http::websocket> socket,
                                                http::response& refusal);
  void stop();

  void close_session(const session_ptr& s, bool by_client, std::string_view why);
  const engine_options& options() const { return options_; }

 private:
  // The 403 for a new session that the caps refuse, or nothing when it may open.
  std::optional<http::response> refuse(const http::request& req, const detail::headers& cors);
  session_ptr create(const http::request& req, bool websocket);
  void poll(const session_ptr& s, http::responder respond, detail::headers cors);
  void post(const session_ptr& s, std::string_view body, http::responder respond,
            detail::headers cors);
  void on_packet(const session_ptr& s, const sio::eio_packet& p);
  void on_ws_message(const std::weak_ptr<session>& weak, const http::websocket* socket,
                     std::string_view data, bool binary);
  void on_ws_close(const std::weak_ptr<session>& weak, const http::websocket* socket);
  void schedule_ping(const session_ptr& s);
  void watch_connect(const session_ptr& s);
  http::websocket_events ws_events(const session_ptr& s, const http::websocket* socket);

  boost::asio::io_context& io_;
  engine_options options_;
  engine_hooks hooks_;
  std::unordered_map<std::string, session_ptr> sessions_;
  detail::session_caps caps_;
  bool stopped_ = false;
};

class engine::core::session final : public connection,
                                    public std::enable_shared_from_this<session> {
 public:
  session(std::weak_ptr<core> owner, boost::asio::io_context& io, std::string cookie,
          std::string address)
      : owner(std::move(owner)),
        sid(random_sid()),
        cookie(std::move(cookie)),
        address(std::move(address)),
        ping_timer(io),
        upgrade_timer(io),
        connect_timer(io) {}

  const std::string& id() const override { return sid; }
  const std::string& handshake_session() const override { return cookie; }

  bool send(detail::packet_ptr packet) override {
    if (closed || !packet) return false;
    if (websocket) {
      ws->send(std::move(packet));  // the core bounds its own frame queue
      return true;
    }
    auto engine = owner.lock();
    if (!engine) return false;
    if (queue.size() >= engine->options().max_queued_packets ||
        queued_bytes + packet->size() > engine->options().max_queued_bytes) {
      // A slow or dead client is dropped, never slowing the others.
      log::warn(detail::engine_log_component, "session ", sid, " stopped polling (", queue.size(),
                " packets, ", queued_bytes, " bytes queued): closing it");
      engine->close_session(shared_from_this(), false, "queue full");
      return false;
    }
    queued_bytes += packet->size();
    peak_queued_bytes = std::max(peak_queued_bytes, queued_bytes);
    queue.push_back(std::move(packet));
    if (pending_get) answer_get();
    return true;
  }

  void close() override {
    if (auto engine = owner.lock()) engine->close_session(shared_from_this(), false, "closed");
  }

  void joined() override {
    has_joined = true;
    connect_timer.cancel();
  }

  // Answers the held poll with everything queued, or with a noop when nothing is.
  void answer_get() {
    std::string payload;
    for (const auto& p : queue)
      sio::append_to_payload(payload, *p);
    queue.clear();
    queued_bytes = 0;
    if (payload.empty()) payload = sio::encode_eio(sio::eio_type::noop);
    auto respond = std::move(*pending_get);
    pending_get.reset();
    respond(detail::text_response(std::move(payload), std::move(get_cors)));
  }

  std::weak_ptr<core> owner;
  const std::string sid;
  const std::string cookie;
  const std::string address;  // the client's, as the handshake came from it
  bool websocket = false;     // the transport in use; polling until an upgrade completes
  bool closed = false;
  bool upgrading = false;  // a probe socket answered `3probe`
  bool awaiting_pong = false;
  bool has_joined = false;
  std::deque<detail::packet_ptr> queue;  // polling only
  std::size_t queued_bytes = 0;          // of `queue`
  std::size_t peak_queued_bytes = 0;     // the most it ever held: past trim_after_bytes, the
                                         // memory goes back to the system when it closes
  std::optional<http::responder> pending_get;
  detail::headers get_cors;
  std::shared_ptr<http::websocket> ws;
  std::shared_ptr<http::websocket> probe;
  boost::asio::steady_timer ping_timer;
  boost::asio::steady_timer upgrade_timer;
  boost::asio::steady_timer connect_timer;
};

}  // namespace mixerd::socketio
