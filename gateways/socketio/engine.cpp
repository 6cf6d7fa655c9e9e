#include "gateways/socketio/engine.hpp"

#include <boost/asio/post.hpp>
#include <chrono>
#include <stdexcept>
#include <utility>
#include <vector>

#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/cors.hpp"
#include "gateways/http/freed_memory.hpp"
#include "gateways/socketio/engine_core.hpp"

namespace mixerd::socketio {

namespace {

constexpr std::string_view component = detail::engine_log_component;
// The reference server answers a poll held during an upgrade with a noop this often, so that
// the client can pause polling and finish the upgrade (engine.io's upgrade "check" timer).
constexpr auto upgrade_check_delay = std::chrono::milliseconds(100);

using detail::error_response;
using detail::forbidden_response;
using detail::headers;
using detail::ping_packet;
using detail::text_response;

}  // namespace

std::optional<http::response> engine::core::refuse(const http::request& req, const headers& cors) {
  const auto why = caps_.refusal(req.client_address);
  if (why.empty()) return std::nullopt;
  if (auto count = caps_.refused(std::chrono::steady_clock::now()))
    log::warn(component, "refused ", *count, " new session(s) since the last report: ", why, " (",
              caps_.open(), " open, at most ", caps_.max_total(), " and ", caps_.max_per_address(),
              " per address; the last from ", req.client_address, ")");
  return forbidden_response(why, cors);
}

engine::core::session_ptr engine::core::create(const http::request& req, bool websocket) {
  // A cookie sent from another site is not the user's consent: it counts only same-origin.
  std::string cookie = http::same_origin(req, options_.tls)
                           ? controller::cookie_value(req, controller::session_cookie)
                           : std::string();
  auto s = std::make_shared<session>(weak_from_this(), io_, std::move(cookie), req.client_address);
  s->websocket = websocket;
  sessions_.emplace(s->sid, s);
  caps_.opened(s->address);
  watch_connect(s);
  log::debug(component, "session ", s->sid, " opened over ", websocket ? "websocket" : "polling",
             " from ", req.client_address);
  return s;
}

void engine::core::handle_request(http::request&& req, http::responder respond) {
  auto cors = http::cors_headers(req, options_.tls);
  if (req.method == "OPTIONS") {
    auto res = http::preflight(req);
    res.headers.insert(res.headers.end(), cors.begin(), cors.end());
    return respond(std::move(res));
  }
  if (stopped_) {
    auto res = error_response(sio::err_bad_request, std::move(cors));
    res.status = 503;
    return respond(std::move(res));
  }
  const auto q = sio::parse_handshake_query(req.query);
  if (q.transport != "polling" && q.transport != "websocket")
    return respond(error_response(sio::err_transport_unknown, std::move(cors)));
  if (q.has_sid) {
    auto it = sessions_.find(q.sid);
    if (it == sessions_.end())
      return respond(error_response(sio::err_unknown_sid, std::move(cors)));
    auto s = it->second;
    // After an upgrade the reference server ignores polling requests of that session.
    if (q.transport != "polling" || s->websocket)
      return respond(error_response(sio::err_bad_request, std::move(cors)));
    if (req.method == "GET") return poll(s, std::move(respond), std::move(cors));
    if (req.method == "POST") return post(s, req.body, std::move(respond), std::move(cors));
    return respond(error_response(sio::err_bad_request, std::move(cors)));
  }
  if (req.method != "GET")
    return respond(error_response(sio::err_bad_handshake_method, std::move(cors)));
  // A websocket handshake without the Upgrade header.
  if (q.transport != "polling")
    return respond(error_response(sio::err_bad_request, std::move(cors)));
  // Where the reference server asks its allowRequest: before the protocol version.
  if (auto refusal = refuse(req, cors)) return respond(std::move(*refusal));
  if (q.eio != "4")
    return respond(error_response(sio::err_unsupported_protocol_version, std::move(cors)));

  auto s = create(req, false);
  respond(text_response(sio::open_packet(s->sid, true, options_.ping_interval_ms,
                                         options_.ping_timeout_ms, options_.max_payload),
                        std::move(cors)));
  schedule_ping(s);
  if (hooks_.on_open) hooks_.on_open(s);
}

void engine::core::poll(const session_ptr& s, http::responder respond, headers cors) {
  if (s->pending_get) {
    // Two polls at once: the reference server treats it as a broken client and closes.
    respond(error_response(sio::err_bad_request, std::move(cors)));
    return close_session(s, false, "overlapping polls");
  }
  s->pending_get = std::move(respond);
  s->get_cors = std::move(cors);
  if (!s->queue.empty()) return s->answer_get();
  if (s->upgrading) {
    s->upgrade_timer.expires_after(upgrade_check_delay);
    s->upgrade_timer.async_wait([weak = std::weak_ptr<session>(s)](const auto& ec) {
      auto s = weak.lock();
      if (ec || !s || s->closed || !s->pending_get) return;
      s->answer_get();
    });
  }
}

void engine::core::post(const session_ptr& s, std::string_view body, http::responder respond,
                        headers cors) {
  auto packets = sio::decode_payload(body);
  if (!packets) {
    respond(error_response(sio::err_bad_request, std::move(cors)));
    return close_session(s, false, "malformed payload");
  }
  respond(text_response("ok", std::move(cors), "text/html"));
  for (const auto& p : *packets) {
    if (s->closed) break;
    on_packet(s, p);
  }
}

void engine::core::on_packet(const session_ptr& s, const sio::eio_packet& p) {
  switch (p.type) {
    case sio::eio_type::pong:
      if (s->awaiting_pong) {
        s->awaiting_pong = false;
        schedule_ping(s);
      }
      break;
    case sio::eio_type::message: {
      const auto& hook = p.binary ? hooks_.on_binary : hooks_.on_message;
      if (hook) hook(s, p.data);
      break;
    }
    case sio::eio_type::close:
      close_session(s, true, "client close");
      break;
    default:
      // EIO4 clients never ping; open/upgrade/noop mean nothing from a client here.
      break;
  }
}

void engine::core::schedule_ping(const session_ptr& s) {
  s->ping_timer.expires_after(std::chrono::milliseconds(options_.ping_interval_ms));
  s->ping_timer.async_wait([this_ = weak_from_this(),
                            weak = std::weak_ptr<session>(s)](const boost::system::error_code& ec) {
    auto s = weak.lock();
    auto self = this_.lock();
    if (ec || !s || !self || s->closed) return;
    s->awaiting_pong = true;
    if (!s->send(ping_packet())) return;
    s->ping_timer.expires_after(std::chrono::milliseconds(self->options_.ping_timeout_ms));
    s->ping_timer.async_wait([this_, weak](const boost::system::error_code& ec) {
      auto s = weak.lock();
      auto self = this_.lock();
      if (ec || !s || !self || s->closed || !s->awaiting_pong) return;
      self->close_session(s, false, "ping timeout");
    });
  });
}

// socket.io's Client closes a connection that has joined no namespace connectTimeout after it
// opened; it does not start over when the client leaves its namespaces later.
void engine::core::watch_connect(const session_ptr& s) {
  s->connect_timer.expires_after(std::chrono::milliseconds(options_.connect_timeout_ms));
  s->connect_timer.async_wait([this_ = weak_from_this(), weak = std::weak_ptr<session>(s)](
                                  const boost::system::error_code& ec) {
    auto s = weak.lock();
    auto self = this_.lock();
    if (ec || !s || !self || s->closed || s->has_joined) return;
    self->close_session(s, false, "no namespace joined within the connect timeout");
  });
}

void engine::core::close_session(const session_ptr& s, bool by_client, std::string_view why) {
  if (s->closed) return;
  s->closed = true;
  sessions_.erase(s->sid);
  // A flood's sessions have expired, or a client that stopped polling had megabytes queued:
  // their memory goes back, in an io turn of its own (after the queue below is freed).
  if (caps_.closed(s->address) || s->peak_queued_bytes >= http::trim_after_bytes) {
    boost::asio::post(io_, [] {
      log::debug(component, "freed session memory handed back in ",
                 http::release_freed_memory().count(), " us");
    });
  }
  s->ping_timer.cancel();
  s->upgrade_timer.cancel();
  s->connect_timer.cancel();
  s->queue.clear();
  // The reference server ends a held poll with a noop when the client closed, with a close
  // packet when the server did (so the client knows to reconnect).
  if (s->pending_get) {
    auto respond = std::move(*s->pending_get);
    s->pending_get.reset();
    respond(text_response(sio::encode_eio(by_client ? sio::eio_type::noop : sio::eio_type::close),
                          std::move(s->get_cors)));
  }
  if (s->ws) s->ws->close();
  if (s->probe) s->probe->close();
  log::debug(component, "session ", s->sid, " closed: ", why);
  if (hooks_.on_close) hooks_.on_close(s);
}

void engine::core::stop() {
  if (stopped_) return;
  stopped_ = true;
  std::vector<session_ptr> all;
  all.reserve(sessions_.size());
  for (auto& [sid, s] : sessions_)
    all.push_back(s);
  for (auto& s : all)
    close_session(s, false, "server stopping");
}

// ---- public face ------------------------------------------------------------------------------

engine::engine(boost::asio::io_context& io, engine_options options, engine_hooks hooks)
    : core_(std::make_shared<core>(io, options, std::move(hooks))) {}

engine::~engine() {
  core_->stop();
}

void engine::handle_request(http::request&& req, http::responder respond) {
  core_->handle_request(std::move(req), std::move(respond));
}

std::optional<http::websocket_events> engine::upgrade(const http::request& req,
                                                      std::shared_ptr<http::websocket> socket,
                                                      http::response& refusal) {
  return core_->upgrade(req, std::move(socket), refusal);
}

void engine::stop() {
  core_->stop();
}

}  // namespace mixerd::socketio
