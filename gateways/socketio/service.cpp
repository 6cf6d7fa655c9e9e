#include "gateways/socketio/service.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <caf/all.hpp>

#include "actors/auth/session_table.hpp"
#include "actors/support/log.hpp"
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

std::size_t setting_count(const nlohmann::json& settings, const char* key, std::size_t fallback) {
  auto it = settings.find(key);
  // settings_schema has already refused values outside 1-100000.
  return it != settings.end() && it->is_number_integer() ? it->get<std::size_t>() : fallback;
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
  o.max_sessions = setting_count(settings, "socketio_max_sessions", limits::socketio_max_sessions);
  o.max_sessions_per_address = setting_count(settings, "socketio_max_sessions_per_address",
                                             limits::socketio_max_sessions_per_address);
  o.tls = tls;
  return o;
}

service::service(caf::actor_system& sys, boost::asio::io_context& io, const directory& dir,
                 service_options options)
    : sys_(sys), io_(io) {
  // Both answers come from published snapshots, on the io thread where the sessions live. A
  // state answer is built in a later turn of the io loop: a payload full of get_state requests
  // then counts them all as unanswered, and the namespace drops such a client (its bound)
  // instead of building thousands of answers in one turn.
  namespace_backend backend;
  backend.query_state = [&dir, &io](std::optional<std::uint64_t> ack_id,
                                    std::function<void(packet_ptr)> done) {
    boost::asio::post(io, [&dir, ack_id, done = std::move(done)] {
      auto state = dir.initial_state();
      done(std::make_shared<const std::string>(
          ack_id ? sio::ack_message(*ack_id, nlohmann::json::array({std::move(state)}))
                 : sio::event_message("initial_state", state)));
    });
  };
  backend.check_auth = [&dir](std::vector<std::string> ids, std::function<void(bool)> done) {
    auto view = dir.view<auth_view>();
    if (!view || !view->enabled) return done(true);
    for (const auto& id : ids)
      if (auth::check_session(*view, id).authenticated) return done(true);
    done(false);
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
  eo.max_sessions = options.max_sessions;
  eo.max_sessions_per_address = options.max_sessions_per_address;
  eo.tls = options.tls;
  engine_ = std::make_shared<engine>(io, eo, namespace_->hooks());

  std::weak_ptr<namespace_server> weak = namespace_;
  broadcaster_ = sys.spawn(sio_broadcaster, dir.get<hub_actor>(), client_kinds(dir.events()),
                           [&io, weak](client_frame frame) {
                             boost::asio::post(io, [weak, frame = std::move(frame)] {
                               if (auto ns = weak.lock())
                                 ns->broadcast(frame.text, frame.replaced_by);
                             });
                           });
  log::info("socket.io", "ping every ", options.ping_interval_ms, " ms, timeout ",
            options.ping_timeout_ms, " ms; namespace connect within ", options.connect_timeout_ms,
            " ms; at most ", options.max_sessions, " sessions, ", options.max_sessions_per_address,
            " per address");
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
  self->wait_for(broadcaster_);
}

}  // namespace mixerd::socketio
