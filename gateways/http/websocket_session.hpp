// Private to gateways/http/*.cpp. The WebSocket side of a connection, templated on the stream
// like the HTTP session it takes over from. Threading: everything runs on the io thread; the
// handle given to route tables is the only object touched from other threads, and it only posts.
#pragma once

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include "gateways/http/batching_stream.hpp"
#include "gateways/http/detail.hpp"
#include "gateways/http/freed_memory.hpp"

namespace mixerd::http::detail {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace bws = boost::beast::websocket;
namespace net = boost::asio;

// Bounds how long close() may take when the client has stopped reading: queued frames are
// flushed first, and a stuck write would otherwise keep the socket open forever.
constexpr std::chrono::seconds kWebSocketCloseTimeout{5};

// What a handle forwards to. io thread only.
class websocket_target {
 public:
  virtual ~websocket_target() = default;
  virtual void enqueue(std::shared_ptr<const std::string> text) = 0;
  virtual void request_close(bws::close_code code) = 0;
};

// The object route tables keep. It holds the session weakly, so a handle kept after the
// connection died is a harmless no-op, and it never touches session state off the io thread.
class socket_handle final : public websocket {
 public:
  socket_handle(net::any_io_executor executor, std::weak_ptr<websocket_target> target)
      : executor_(std::move(executor)), target_(std::move(target)) {}

  void send(std::shared_ptr<const std::string> text) override {
    if (!text) return;
    auto target = target_.lock();
    if (!target) return;
    net::post(executor_, [target = std::move(target), text = std::move(text)]() mutable {
      target->enqueue(std::move(text));
    });
  }

  void close() override {
    auto target = target_.lock();
    if (!target) return;
    net::post(executor_,
              [target = std::move(target)] { target->request_close(bws::close_code::normal); });
  }

 private:
  net::any_io_executor executor_;
  const std::weak_ptr<websocket_target> target_;
};

template <class Stream>
class websocket_session final : public session_base,
                                public websocket_target,
                                public std::enable_shared_from_this<websocket_session<Stream>> {
 public:
  // Created before the route table decides, so that the handle it gets can already queue
  // frames (e.g. an Engine.IO open packet) that go out right after the handshake.
  websocket_session(const net::any_io_executor& executor, std::shared_ptr<const config> cfg,
                    std::weak_ptr<session_registry> owner)
      : close_timer_(executor), cfg_(std::move(cfg)), owner_(std::move(owner)) {}

  // A socket that once had megabytes waiting leaves them freed in the heap (glibc keeps them):
  // they go back to the system in a later turn, once this session's buffers are gone too.
  ~websocket_session() override {
    if (peak_waiting_bytes_ >= trim_after_bytes)
      release_freed_memory_later(close_timer_.get_executor());
  }
  websocket_session(const websocket_session&) = delete;
  websocket_session& operator=(const websocket_session&) = delete;

  // Takes over the connection of an HTTP session whose upgrade request was accepted, and its
  // place in the listener's budget.
  void start(Stream stream, bhttp::request<bhttp::string_body> upgrade_request,
             websocket_events events, connection_ticket ticket) {
    ticket_ = std::move(ticket);
    ws_.emplace(std::move(stream));
    ws_->next_layer().attach(this->weak_from_this(),
                             [this](beast::error_code ec) { on_written(ec); });
    events_ = std::move(events);
    upgrade_request_ = std::move(upgrade_request);
    auto owner = owner_.lock();
    if (!owner || !owner->adopt(this->shared_from_this())) return end();

    auto& ws = *ws_;
    // The WebSocket timeouts below replace the HTTP ones; both at once would fight.
    beast::get_lowest_layer(ws).expires_never();
    // 30 s handshakes; a ping after 150 s of silence and the end after 300 s, so that peers
    // that vanished without a FIN do not hold a socket forever.
    ws.set_option(bws::stream_base::timeout::suggested(beast::role_type::server));
    ws.read_message_max(cfg_->options.max_message_bytes);
    ws.set_option(bws::stream_base::decorator([cfg = cfg_](bws::response_type& res) {
      res.set(bhttp::field::server, "mixerd");
      for (const auto& [name, value] : cfg->options.upgrade_headers) {
        if (!name.empty() && !has_crlf(name) && !has_crlf(value)) res.insert(name, value);
      }
    }));
    ws.async_accept(upgrade_request_,
                    [self = self()](beast::error_code ec) { self->on_accept(ec); });
  }

  // The `!ws_` checks: a refused upgrade leaves a session that never started, and frames the
  // route table queued for it arrive afterwards.
  void enqueue(std::shared_ptr<const std::string> text) override {
    if (!ws_ || ended_ || close_requested_) return;
    // After a close frame no data frame may follow; Beast's teardown may take a while.
    if (accepted_ && !ws_->is_open()) return;
    const auto& out = ws_->next_layer();
    const auto waiting = queue_.size() + out.frames_held();
    const auto waiting_bytes = queued_bytes_ + out.bytes_held();
    if (waiting >= cfg_->options.max_queued_frames ||
        waiting_bytes + text->size() > cfg_->options.max_queued_bytes) {
      // The client is not reading. A close frame would queue behind the stuck writes, so the
      // connection is dropped instead of growing the queue without bound.
      if (cfg_->options.warn) {
        try {
          cfg_->options.warn(cfg_->options.name + ": a websocket client stopped reading (" +
                             std::to_string(waiting) + " frames, " + std::to_string(waiting_bytes) +
                             " bytes waiting): connection dropped");
        } catch (...) {
          // A report must not take the io thread down.
        }
      }
      return end();
    }
    queued_bytes_ += text->size();
    peak_waiting_bytes_ = std::max(peak_waiting_bytes_, waiting_bytes + text->size());
    queue_.push_back(std::move(text));
    if (accepted_) pump();
  }

  void request_close(bws::close_code code) override {
    if (!ws_ || ended_ || close_requested_) return;
    close_requested_ = true;
    close_code_ = code;
    close_timer_.expires_after(kWebSocketCloseTimeout);
    close_timer_.async_wait([self = self()](beast::error_code ec) {
      if (!ec) self->end();
    });
    // Otherwise on_accept or on_written starts the close once the queue is staged.
    if (accepted_) pump();
  }

  void close() override { end(); }

 private:
  std::shared_ptr<websocket_session> self() { return this->shared_from_this(); }

  void on_accept(beast::error_code ec) {
    upgrade_request_ = {};
    if (ended_) return;
    if (ec) return end();
    accepted_ = true;
    read();
    pump();
  }

  void read() {
    ws_->async_read(read_buffer_,
                    [self = self()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    // A client's close frame also lands here (error::closed), after Beast has answered it.
    if (ended_) return;
    if (ec) return end();
    const bool text = ws_->got_text();
    if (!text && !events_.on_binary) {
      // No more reads: Beast's close operation reads on its own until the client's close frame.
      read_buffer_.clear();
      return request_close(bws::close_code::unknown_data);
    }
    std::string data = beast::buffers_to_string(read_buffer_.data());
    read_buffer_.clear();
    // The buffer keeps the capacity of the largest message read (up to the 64 KiB limit); with
    // thousands of idle sockets one large message each would pin that much memory apiece.
    if (read_buffer_.capacity() > kept_read_capacity) read_buffer_.shrink_to_fit();
    deliver(text ? events_.on_message : events_.on_binary, std::move(data));
    if (!ended_) read();
  }

  void deliver(const std::function<void(std::string)>& handler, std::string data) {
    // After close() the route table has said goodbye and expects no more messages.
    if (close_requested_ || !handler) return;
    try {
      handler(std::move(data));
    } catch (...) {
      // An exception must not escape into io_context::run(); the socket's state is unknown.
      request_close(bws::close_code::internal_error);
    }
  }

  // Moves queued frames into the connection's staging while it has room; the close frame
  // follows the last of them.
  void pump() {
    // After a close frame (the client's answered by Beast, or ours) no data frame may follow.
    if (closing_ || !ws_->is_open()) return;
    auto& out = ws_->next_layer();
    while (!queue_.empty() && out.has_room()) {
      out.stage_text_frame(*queue_.front());
      queued_bytes_ -= queue_.front()->size();
      queue_.pop_front();
    }
    if (queue_.empty() && close_requested_) begin_close();
  }

  void on_written(beast::error_code ec) {
    if (ended_) return;
    if (ec) return end();
    pump();
  }

  void begin_close() {
    closing_ = true;
    ws_->async_close(bws::close_reason(close_code_),
                     [self = self()](beast::error_code) { self->end(); });
  }

  // The one exit: every way a socket ends comes here, so on_close fires exactly once.
  void end() {
    if (ended_) return;
    ended_ = true;
    close_timer_.cancel();
    if (ws_) beast::get_lowest_layer(*ws_).close();
    ticket_.release();
    queue_.clear();
    queued_bytes_ = 0;
    // Moved out first: the callbacks may hold the last references to route-table state.
    auto events = std::move(events_);
    events_ = {};
    if (events.on_close) {
      try {
        events.on_close();
      } catch (...) {
        // Nothing left to undo; the io thread must survive.
      }
    }
    if (auto owner = owner_.lock()) owner->forget(this);
  }

  // No permessage-deflate: socket.io 4 does not use it, and the code would only cost compile time.
  // Data frames are written through the batching layer, not through Beast's write().
  std::optional<bws::stream<batching_stream<Stream>, false>> ws_;
  bhttp::request<bhttp::string_body> upgrade_request_;
  static constexpr std::size_t kept_read_capacity = 4096;
  beast::flat_buffer read_buffer_;
  // Frames not yet staged. Shared bytes: one broadcast is one allocation whatever the number
  // of sockets; staging copies them (a few dozen bytes each).
  std::deque<std::shared_ptr<const std::string>> queue_;
  std::size_t queued_bytes_ = 0;        // of queue_
  std::size_t peak_waiting_bytes_ = 0;  // the most ever waiting (queue_ and the staged copies)
  net::steady_timer close_timer_;
  websocket_events events_;
  std::shared_ptr<const config> cfg_;
  std::weak_ptr<session_registry> owner_;
  connection_ticket ticket_;
  bws::close_code close_code_ = bws::close_code::normal;
  bool accepted_ = false;
  bool closing_ = false;
  bool close_requested_ = false;
  bool ended_ = false;
};

}  // namespace mixerd::http::detail
