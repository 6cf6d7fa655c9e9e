#include "gateways/socketio/namespace.hpp"

#include <algorithm>
#include <utility>

#include "actors/support/log.hpp"
#include "protocol/metrics.hpp"
#include "protocol/socketio_codec.hpp"

namespace mixerd::socketio {

namespace {

constexpr std::string_view component = "socket.io";
constexpr std::string_view get_state_event = "get_state";
// State answers one socket may have on their way. Each costs the state actors a snapshot, so a
// client that asks faster than it reads would otherwise keep them busy for everyone else.
constexpr int max_pending_state = 16;

packet_ptr shared(std::string text) {
  return std::make_shared<const std::string>(std::move(text));
}

// The optional events a client reads, from its connect's auth (docs/api.md section 3): a
// client that reads macro_change need not get the whole macro set after every edit.
std::vector<std::string> read_events_of(const nlohmann::json& auth) {
  std::vector<std::string> reads;
  auto events = auth.find("events");
  if (events == auth.end() || !events->is_array()) return reads;
  for (const auto& name : *events) {
    if (reads.size() == namespace_server::max_read_events) break;
    if (name.is_string() &&
        name.get_ref<const std::string&>().size() <= namespace_server::max_event_name_bytes)
      reads.push_back(name.get<std::string>());
  }
  return reads;
}

}  // namespace

// Any send may close a connection, and a close erases its entry: while a member function holds
// a reference into sockets_, closes only mark the entry and the outermost guard sweeps.
struct busy_guard {
  explicit busy_guard(namespace_server& n) : ns(n) { ++ns.busy_; }
  ~busy_guard() {
    if (--ns.busy_ == 0) ns.sweep();
  }
  busy_guard(const busy_guard&) = delete;
  busy_guard& operator=(const busy_guard&) = delete;
  namespace_server& ns;
};

namespace_server::namespace_server(namespace_backend backend, std::size_t max_held_packets,
                                   std::size_t max_payload, std::size_t max_held_bytes)
    : backend_(std::move(backend)),
      max_held_(max_held_packets),
      max_payload_(max_payload),
      max_held_bytes_(max_held_bytes) {}

engine_hooks namespace_server::hooks() {
  std::weak_ptr<namespace_server> weak = weak_from_this();
  engine_hooks h;
  h.on_open = [weak](const std::shared_ptr<connection>& c) {
    if (auto self = weak.lock()) self->on_open(c);
  };
  h.on_message = [weak](const std::shared_ptr<connection>& c, std::string_view data) {
    if (auto self = weak.lock()) self->on_message(c, data, false);
  };
  h.on_binary = [weak](const std::shared_ptr<connection>& c, std::string_view bytes) {
    if (auto self = weak.lock()) self->on_message(c, bytes, true);
  };
  h.on_close = [weak](const std::shared_ptr<connection>& c) {
    if (auto self = weak.lock()) self->on_close(c);
  };
  return h;
}

void namespace_server::sweep() {
  for (auto it = sockets_.begin(); it != sockets_.end();) {
    if (it->second.dead) {
      it = sockets_.erase(it);
    } else {
      ++it;
    }
  }
}

namespace_server::socket* namespace_server::find(const std::weak_ptr<connection>& weak,
                                                 std::uint64_t generation) {
  auto conn = weak.lock();
  if (!conn) return nullptr;
  auto it = sockets_.find(conn.get());
  if (it == sockets_.end() || it->second.dead || it->second.generation != generation)
    return nullptr;
  return &it->second;
}

void namespace_server::on_open(const std::shared_ptr<connection>& conn) {
  auto& s = sockets_[conn.get()];
  metrics::process().socketio_clients.fetch_add(1, std::memory_order_relaxed);
  s.conn = conn;
  s.decoder = sio::packet_decoder(max_payload_);
}

void namespace_server::on_close(const std::shared_ptr<connection>& conn) {
  auto it = sockets_.find(conn.get());
  if (it == sockets_.end()) return;
  metrics::process().socketio_clients.fetch_sub(1, std::memory_order_relaxed);
  if (busy_ > 0) {
    it->second.dead = true;
    return;
  }
  sockets_.erase(it);
}

void namespace_server::on_message(const std::shared_ptr<connection>& conn, std::string_view data,
                                  bool binary) {
  busy_guard guard(*this);
  auto it = sockets_.find(conn.get());
  if (it == sockets_.end() || it->second.dead) return;
  socket& s = it->second;
  std::string error;
  auto p = s.decoder.add(data, binary, error);
  if (!p && error.empty()) return;  // a binary packet waits for its attachments
  if (!p) {
    // socket.io's server drops a client that sends what its parser refuses; so do we.
    log::debug(component, "session ", conn->id(), ": bad packet (", error, "): closing");
    return conn->close();
  }
  if (p->nsp != "/") {
    if (p->type == sio::sio_type::connect) {
      sio::sio_packet refusal{sio::sio_type::connect_error, p->nsp, std::nullopt,
                              nlohmann::json{{"message", "Invalid namespace"}}, true};
      conn->send(shared("4" + sio::encode_sio(refusal)));
    }
    return;
  }
  switch (p->type) {
    case sio::sio_type::connect:
      // A second CONNECT while connecting or connected changes nothing.
      if (s.state == phase::idle) on_connect(s, p->data);
      break;
    case sio::sio_type::disconnect:
      s.state = phase::idle;
      ++s.generation;
      s.pending_state = 0;
      s.held.clear();
      s.held_bytes = 0;
      s.reads.clear();
      break;
    case sio::sio_type::event: {
      if (s.state != phase::joined) break;
      const auto& name = p->data.front().get_ref<const std::string&>();
      if (name == get_state_event) {
        request_state(s, p->ack_id);
      } else if (p->ack_id) {
        // Unknown events are ignored, but a client waiting on an ack must not wait forever.
        conn->send(shared(sio::ack_message(*p->ack_id, nlohmann::json::array())));
      }
      break;
    }
    default:
      break;  // ACKs to nothing we asked, CONNECT_ERROR from a client: ignored
  }
}

void namespace_server::on_connect(socket& s, const nlohmann::json& auth) {
  s.state = phase::authorising;
  const auto generation = ++s.generation;
  std::vector<std::string> ids;
  if (!s.conn->handshake_session().empty()) ids.push_back(s.conn->handshake_session());
  s.reads.clear();
  if (auth.is_object()) {
    auto token = auth.find("token");
    if (token != auth.end() && token->is_string() && !token->get_ref<const std::string&>().empty())
      ids.push_back(token->get<std::string>());
    s.reads = read_events_of(auth);
  }
  backend_.check_auth(std::move(ids),
                      [weak_self = weak_from_this(), weak = std::weak_ptr<connection>(s.conn),
                       generation](bool ok) {
                        if (auto self = weak_self.lock()) self->on_authorised(weak, generation, ok);
                      });
}

void namespace_server::on_authorised(const std::weak_ptr<connection>& weak,
                                     std::uint64_t generation, bool ok) {
  busy_guard guard(*this);
  socket* s = find(weak, generation);
  if (!s || s->state != phase::authorising) return;
  if (!ok) {
    s->state = phase::idle;
    log::debug(component, "session ", s->conn->id(), ": namespace connect refused (no session)");
    s->conn->send(shared(sio::connect_error_message("Authentication required")));
    return;
  }
  s->state = phase::joined;
  s->conn->joined();
  if (!s->conn->send(shared(sio::connect_ok_message(random_sid())))) return;
  request_state(*s, std::nullopt);
}

// Live events that arrive while an answer is on its way are held and sent after it: an answer
// built before an event must not arrive after that event and undo it on the client. Events are
// absolute values, so one that the answer already reflects is harmless when repeated.
void namespace_server::request_state(socket& s, std::optional<std::uint64_t> ack_id) {
  if (s.pending_state >= max_pending_state) {
    log::warn(component, "session ", s.conn->id(), ": ", s.pending_state,
              " state requests unanswered: closing it");
    s.conn->close();
    return;
  }
  ++s.pending_state;
  backend_.query_state(ack_id,
                       [weak_self = weak_from_this(), weak = std::weak_ptr<connection>(s.conn),
                        generation = s.generation](packet_ptr packet) {
                         if (auto self = weak_self.lock()) self->on_state(weak, generation, packet);
                       });
}

void namespace_server::on_state(const std::weak_ptr<connection>& weak, std::uint64_t generation,
                                const packet_ptr& packet) {
  busy_guard guard(*this);
  socket* s = find(weak, generation);
  if (!s) return;
  if (s->pending_state > 0) --s->pending_state;
  if (packet && !s->conn->send(packet)) return;
  auto held = std::move(s->held);
  s->held.clear();
  s->held_bytes = 0;
  for (const auto& p : held) {
    if (s->dead || !s->conn->send(p)) return;
    metrics::bump(metrics::process().socketio_events_sent);
  }
}

void namespace_server::deliver(socket& s, const packet_ptr& packet, std::string_view replaced_by) {
  if (s.dead || s.state != phase::joined) return;
  if (!replaced_by.empty() &&
      std::find(s.reads.begin(), s.reads.end(), replaced_by) != s.reads.end())
    return;  // the client had the same change from the smaller event
  if (s.pending_state == 0) {
    if (s.conn->send(packet)) metrics::bump(metrics::process().socketio_events_sent);
    return;
  }
  if (s.held.size() >= max_held_ || s.held_bytes + packet->size() > max_held_bytes_) {
    log::warn(component, "session ", s.conn->id(), ": ", s.held.size(), " events (", s.held_bytes,
              " bytes) held behind a state answer: closing it");
    s.conn->close();
    return;
  }
  s.held.push_back(packet);
  s.held_bytes += packet->size();
}

void namespace_server::broadcast(const packet_ptr& packet, std::string_view replaced_by) {
  busy_guard guard(*this);
  for (auto& [key, s] : sockets_)
    deliver(s, packet, replaced_by);
}

}  // namespace mixerd::socketio
