// Private to gateways/http/*.cpp. The layer between a server WebSocket and its connection that
// gathers outgoing bytes: while one write is on its way, frames for the same client are staged
// and leave together in the next write. Beast writes one frame per send(), about 9 us of CPU on
// loopback, so 200 events/s to 1,000 clients would need two cores; a client that falls behind
// now costs one send() for all it is owed, and a busy io thread catches up instead of queueing.
//
// Beast keeps reading frames and writing its control frames (handshake answer, pong, ping,
// close) through async_write_some below; the owner writes data frames with stage_text_frame().
// Both run on the io thread and append whole frames, so frames never interleave.
// Memory: at most `staging_limit` bytes staged (plus the one frame that crossed it) and one
// write on its way; past the limit the owner keeps frames in its own queue, and Beast's own
// writes wait, which stops Beast reading (a client that pings without reading gains nothing).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket/teardown.hpp>

#include "protocol/websocket_frame.hpp"

namespace mixerd::http::detail {

// A callback that may own move-only state (Beast's completion handlers are move-only).
class pending_call {
 public:
  virtual ~pending_call() = default;
  virtual void call(boost::beast::error_code ec) = 0;
};

template <class F>
class pending_call_of final : public pending_call {
 public:
  explicit pending_call_of(F f) : f_(std::move(f)) {}
  void call(boost::beast::error_code ec) override { f_(ec); }

 private:
  F f_;
};

template <class F>
std::unique_ptr<pending_call> make_pending_call(F&& f) {
  return std::make_unique<pending_call_of<std::decay_t<F>>>(std::forward<F>(f));
}

template <class Next>
class batching_stream {
 public:
  using executor_type = typename Next::executor_type;
  using next_layer_type = Next;

  // Staged bytes past which no more frames are taken until the write on its way completes.
  static constexpr std::size_t staging_limit = 16 * 1024;
  // A buffer that grew past this is freed after its write: 1,000 clients must not each keep the
  // largest batch they ever had (two buffers each: at most 2 KiB a client stays allocated).
  static constexpr std::size_t kept_capacity = 1024;

  explicit batching_stream(Next&& next) : next_(std::move(next)) {}

  executor_type get_executor() noexcept { return next_.get_executor(); }
  Next& next_layer() noexcept { return next_; }
  const Next& next_layer() const noexcept { return next_; }

  // The owner is kept alive while a write is on its way (the write's handler touches this
  // object, which the owner holds). `written` runs on the io thread after every completed
  // write, with its error if it failed: the owner stages more frames or ends.
  void attach(std::weak_ptr<void> owner, std::function<void(boost::beast::error_code)> written) {
    owner_ = std::move(owner);
    written_ = std::move(written);
  }

  bool has_room() const { return !error_ && staged_.size() < staging_limit; }
  // Data frames staged or on their way, i.e. taken from the owner but not yet by the kernel.
  std::size_t frames_held() const { return staged_frames_ + sending_frames_; }
  // Their bytes (with Beast's control frames): this layer's own copies.
  std::size_t bytes_held() const { return staged_.size() + sending_.size(); }

  // Stages one text frame and starts a write unless one is on its way. Call when has_room().
  void stage_text_frame(std::string_view payload) {
    ws_frame::append_text_frame(staged_, payload);
    ++staged_frames_;
    start_write();
  }

  template <class MutableBufferSequence, class ReadHandler>
  auto async_read_some(const MutableBufferSequence& buffers, ReadHandler&& handler) {
    return next_.async_read_some(buffers, std::forward<ReadHandler>(handler));
  }

  // Beast's own writes. All bytes are taken at once; the handler runs at once (posted) while
  // staging has room, else after the write on its way.
  template <class ConstBufferSequence, class WriteHandler>
  void async_write_some(const ConstBufferSequence& buffers, WriteHandler&& handler) {
    const std::size_t size = boost::asio::buffer_size(buffers);
    auto complete = [ex = get_executor(), h = std::forward<WriteHandler>(handler),
                     size](boost::beast::error_code ec) mutable {
      boost::asio::post(ex, boost::beast::bind_front_handler(std::move(h), ec, ec ? 0 : size));
    };
    if (error_) return complete(error_);
    for (auto b : boost::beast::buffers_range_ref(buffers)) {
      staged_.append(static_cast<const char*>(b.data()), b.size());
    }
    start_write();
    if (staged_.size() <= staging_limit || !writing_) return complete({});
    held_write_ = make_pending_call(std::move(complete));
  }

  // Calls `done` once everything taken so far is with the kernel (or the connection failed).
  template <class Handler>
  void async_flush(Handler&& done) {
    if (error_ || (!writing_ && staged_.empty())) {
      boost::asio::post(get_executor(),
                        boost::beast::bind_front_handler(std::forward<Handler>(done), error_));
      return;
    }
    flushed_ = make_pending_call(std::forward<Handler>(done));
  }

 private:
  void start_write() {
    if (writing_ || staged_.empty() || error_) return;
    auto owner = owner_.lock();
    if (!owner) return;  // the owner is going away; the connection closes with it
    writing_ = true;
    sending_.swap(staged_);
    sending_frames_ = staged_frames_;
    staged_frames_ = 0;
    boost::asio::async_write(next_, boost::asio::buffer(sending_),
                             write_done(this, std::move(owner)));
  }

  // The handler of the write on its way. The held completions hold the owner, which holds this
  // layer: should the handler be destroyed without running (the io_context went away first),
  // it drops them, or that cycle would never be freed. `owner_` outlives the drop.
  class write_done {
   public:
    write_done(batching_stream* layer, std::shared_ptr<void> owner)
        : layer_(layer), owner_(std::move(owner)) {}
    write_done(write_done&& other) noexcept
        : layer_(std::exchange(other.layer_, nullptr)), owner_(std::move(other.owner_)) {}
    write_done(const write_done&) = delete;
    write_done& operator=(const write_done&) = delete;
    write_done& operator=(write_done&&) = delete;
    ~write_done() {
      if (layer_) layer_->drop_pending();
    }
    void operator()(boost::beast::error_code ec, std::size_t) {
      std::exchange(layer_, nullptr)->on_write(ec);
    }

   private:
    batching_stream* layer_;
    std::shared_ptr<void> owner_;
  };

  void drop_pending() {
    held_write_.reset();
    flushed_.reset();
  }

  void on_write(boost::beast::error_code ec) {
    writing_ = false;
    sending_frames_ = 0;
    sending_.clear();
    if (sending_.capacity() > kept_capacity) std::string().swap(sending_);
    if (ec) {
      error_ = ec;
      staged_.clear();
      staged_frames_ = 0;
    }
    start_write();
    if (held_write_ && (error_ || staged_.size() <= staging_limit)) {
      std::exchange(held_write_, nullptr)->call(error_);
    }
    if (flushed_ && (error_ || (!writing_ && staged_.empty()))) {
      std::exchange(flushed_, nullptr)->call(error_);
    }
    if (written_) written_(error_);
  }

  Next next_;
  std::string staged_;   // frames taken while a write is on its way
  std::string sending_;  // the write on its way
  std::size_t staged_frames_ = 0;
  std::size_t sending_frames_ = 0;
  bool writing_ = false;
  boost::beast::error_code error_;  // the first failed write: the connection is done
  std::unique_ptr<pending_call> held_write_;
  std::unique_ptr<pending_call> flushed_;
  std::weak_ptr<void> owner_;
  std::function<void(boost::beast::error_code)> written_;
};

// Beast's close handshake ends with a teardown of the layer under the WebSocket: first the
// staged close frame has to reach the kernel, then the connection below is torn down.
template <class Next, class TeardownHandler>
void async_teardown(boost::beast::role_type role, batching_stream<Next>& stream,
                    TeardownHandler&& handler) {
  stream.async_flush([&stream, role, h = std::forward<TeardownHandler>(handler)](
                         boost::beast::error_code ec) mutable {
    if (ec) return h(ec);
    using boost::beast::websocket::async_teardown;
    async_teardown(role, stream.next_layer(), std::move(h));
  });
}

}  // namespace mixerd::http::detail
