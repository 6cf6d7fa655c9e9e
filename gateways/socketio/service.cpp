#include "gateways/socketio/service.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <caf/all.hpp>

#include "actors/log.hpp"
#include "gateways/socketio/broadcaster.hpp"
#include "gateways/socketio/engine.hpp"
#include "gateways/socketio/namespace.hpp"
#include "protocol/limits.hpp"
#include "protocol/socketio_codec.hpp"

namespace mixerd::socketio {

namespace {

int setting_ms(const nlohmann::json& settings, const char* key, int fallback) {
  auto it = settings.find(key);
  // settings_schema has already refused values outside 1000-600000.
  return it != settings.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

}  // namespace

service_options options_from_settings(const nlohmann::json& settings, bool tls) {
  service_options o;
  o.ping_interval_ms =
      setting_ms(settings, "socketio_ping_interval_ms", sio::default_ping_interval_ms);
  o.ping_timeout_ms =
      setting_ms(settings, "socketio_ping_timeout_ms", sio::default_ping_timeout_ms);
  o.connect_timeout_ms =
      setting_ms(settings, "socketio_connect_timeout_ms", sio::default_connect_timeout_ms);
  o.tls = tls;
  return o;
}

service::service(caf::actor_system& sys, boost::asio::io_context& io, service_targets targets,
                 service_options options)
    : sys_(sys), io_(io) {
  queries_ = sys.spawn(sio_queries, query_targets{targets.device, targets.mixer, targets.auth});

  // Every answer from an actor travels back to the io thread, where the sessions live; the
  // callbacks hold the namespace weakly, so late answers after stop() are dropped.
  namespace_backend backend;
  backend.query_state = [queries = queries_, &io](std::optional<std::uint64_t> ack_id,
                                                  std::function<void(packet_ptr)> done) {
    caf::anon_send(queries, state_query{ack_id, [&io, done = std::move(done)](packet_ptr p) {
                                          boost::asio::post(io, [done, p] { done(p); });
                                        }});
  };
  backend.check_auth = [queries = queries_, &io](std::vector<std::string> ids,
                                                 std::function<void(bool)> done) {
    caf::anon_send(queries, auth_query{std::move(ids), [&io, done = std::move(done)](bool ok) {
                                         boost::asio::post(io, [done, ok] { done(ok); });
                                       }});
  };
  namespace_ = std::make_shared<namespace_server>(std::move(backend), options.max_queued_packets,
                                                  limits::http_body_max);

  engine_options eo;
  eo.ping_interval_ms = options.ping_interval_ms;
  eo.ping_timeout_ms = options.ping_timeout_ms;
  eo.connect_timeout_ms = options.connect_timeout_ms;
  // What the server really accepts in one POST; clients split their payloads at this size.
  eo.max_payload = limits::http_body_max;
  eo.max_queued_packets = options.max_queued_packets;
  eo.tls = options.tls;
  engine_ = std::make_shared<engine>(io, eo, namespace_->hooks());

  std::weak_ptr<namespace_server> weak = namespace_;
  broadcaster_ = sys.spawn(sio_broadcaster, targets.hub, [&io, weak](packet_ptr packet) {
    boost::asio::post(io, [weak, packet = std::move(packet)] {
      if (auto ns = weak.lock()) ns->broadcast(packet);
    });
  });
  log::info("socket.io", "ping every ", options.ping_interval_ms, " ms, timeout ",
            options.ping_timeout_ms, " ms; namespace connect within ", options.connect_timeout_ms,
            " ms");
}

service::~service() {
  stop();
}

http::handler service::route(http::handler fallback) const {
  return [engine = engine_, &io = io_, fallback = std::move(fallback)](http::request&& req,
                                                                       http::responder respond) {
    if (!is_engine_path(req.path)) return fallback(std::move(req), std::move(respond));
    // The core calls handlers on the io thread, where this runs inline; dispatch keeps the
    // engine single-threaded even if that ever changes.
    boost::asio::dispatch(io,
                          [engine, req = std::move(req), respond = std::move(respond)]() mutable {
                            engine->handle_request(std::move(req), std::move(respond));
                          });
  };
}

http::upgrade_handler service::upgrade(http::error_writer errors) const {
  return [engine = engine_, errors = std::move(errors)](
             const http::request& req, std::shared_ptr<http::websocket> socket,
             http::response& refusal) -> std::optional<http::websocket_events> {
    if (!is_engine_path(req.path)) {
      refusal = errors(404, "Not found: " + req.path);
      return std::nullopt;
    }
    return engine->upgrade(req, std::move(socket), refusal);
  };
}

std::vector<std::pair<std::string, std::string>> service::upgrade_headers() {
  // A websocket answer cannot depend on the request here; browsers do not check CORS on
  // websockets anyway, and the reference server sends `*`.
  return {{"Access-Control-Allow-Origin", "*"}};
}

void service::stop() {
  if (stopped_) return;
  stopped_ = true;
  engine_->stop();
  caf::scoped_actor self{sys_};
  self->send_exit(broadcaster_, caf::exit_reason::user_shutdown);
  self->send_exit(queries_, caf::exit_reason::user_shutdown);
  self->wait_for(broadcaster_, queries_);
}

}  // namespace mixerd::socketio
