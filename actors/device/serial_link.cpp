#include "actors/device/serial_link.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/serial_port.hpp>
#include <boost/asio/write.hpp>
#include <caf/all.hpp>
#include <deque>

#include "protocol/atoms.hpp"
#include "protocol/device_codec.hpp"
#include "protocol/limits.hpp"

namespace mixerd {

namespace {

namespace asio = boost::asio;

// A device that stops reading must not make us buffer without bound.
constexpr std::size_t max_queued_lines = 256;

class asio_serial_link final : public serial_link,
                               public std::enable_shared_from_this<asio_serial_link> {
 public:
  asio_serial_link(asio::io_context& io, std::string path, caf::actor owner, std::uint64_t gen)
      : io_(io), port_(io), path_(std::move(path)), owner_(std::move(owner)), gen_(gen) {}

  void start() {
    asio::post(io_, [self = shared_from_this()] { self->do_open(); });
  }

  void write_line(std::string line) override {
    line.push_back('\n');
    asio::post(io_, [self = shared_from_this(), line = std::move(line)]() mutable {
      self->enqueue(std::move(line));
    });
  }

  void close() override {
    asio::post(io_, [self = shared_from_this()] {
      self->closed_ = true;
      boost::system::error_code ignored;
      self->port_.close(ignored);
    });
  }

 private:
  void do_open() {
    if (closed_) return;
    boost::system::error_code ec;
    port_.open(path_, ec);
    if (ec) return fail("cannot open " + path_ + ": " + ec.message());
    using sp = asio::serial_port_base;
    port_.set_option(sp::baud_rate(limits::serial_baud), ec);
    if (!ec) port_.set_option(sp::character_size(8), ec);
    if (!ec) port_.set_option(sp::parity(sp::parity::none), ec);
    if (!ec) port_.set_option(sp::stop_bits(sp::stop_bits::one), ec);
    if (!ec) port_.set_option(sp::flow_control(sp::flow_control::none), ec);
    if (ec) return fail("cannot configure " + path_ + " (2000000 8N1): " + ec.message());
    caf::anon_send(owner_, opened_atom_v, gen_);
    read();
  }

  void read() {
    port_.async_read_some(asio::buffer(buffer_),
                          [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
                            self->on_read(ec, n);
                          });
  }

  void on_read(boost::system::error_code ec, std::size_t n) {
    if (closed_) return;
    if (ec) {
      // EOF is how a hang-up (unplug, pty master closed) shows up.
      return fail(ec == asio::error::eof ? "device hung up" : "read failed: " + ec.message());
    }
    splitter_.feed(std::string_view(buffer_.data(), n),
                   [this](std::string_view line, bool overlong) {
                     caf::anon_send(owner_, line_atom_v, gen_, std::string(line), overlong);
                   });
    read();
  }

  void enqueue(std::string line) {
    if (closed_) return;
    if (queue_.size() >= max_queued_lines) return fail("device is not reading (write queue full)");
    queue_.push_back(std::move(line));
    if (queue_.size() == 1) write_next();
  }

  void write_next() {
    asio::async_write(port_, asio::buffer(queue_.front()),
                      [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                        if (self->closed_) return;
                        if (ec) return self->fail("write failed: " + ec.message());
                        self->queue_.pop_front();
                        if (!self->queue_.empty()) self->write_next();
                      });
  }

  void fail(std::string reason) {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ignored;
    port_.close(ignored);
    queue_.clear();
    caf::anon_send(owner_, closed_atom_v, gen_, std::move(reason));
  }

  asio::io_context& io_;
  asio::serial_port port_;
  std::string path_;
  caf::actor owner_;
  std::uint64_t gen_;
  bool closed_ = false;
  std::array<char, 512> buffer_{};
  protocol::line_splitter splitter_;
  std::deque<std::string> queue_;
};

}  // namespace

std::shared_ptr<serial_link> open_serial_link(asio::io_context& io, std::string path,
                                              caf::actor owner, std::uint64_t generation) {
  auto link = std::make_shared<asio_serial_link>(io, std::move(path), std::move(owner), generation);
  link->start();
  return link;
}

}  // namespace mixerd
