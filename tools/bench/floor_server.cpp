// The machine's floor for tools/bench/run.py: the least work the serial -> Socket.IO path can do.
//
//   floor_server PTY_PATH [HTTP_BODY]
//
// One thread, one io_context, no actors and no JSON library: it reads `SLIDER,i,v` lines from the
// pty (the device end is the benchmark's FakeDevice, as for mixerd), formats
// `42["slider_change",{"index":i+1,"value":v}]` with snprintf and sends that frame to every
// WebSocket client that joined the default namespace, one write at a time per client (as mixerd
// does). It speaks just enough Engine.IO v4 / Socket.IO v5 over a websocket for the stock
// socket.io-client (transports: ["websocket"]) to connect, so the benchmark's node clients are
// identical for the floor and for mixerd and the ratio shows what mixerd itself adds.
//
// Any other HTTP request gets HTTP_BODY as JSON (keep-alive), the floor for `GET /api/sliders`.
// Prints `port N` once listening on 127.0.0.1. At the end of stdin it prints one line per pty line
// read, `<CLOCK_MONOTONIC ns at read completion> <line>` (the bare pty write->read floor), and
// exits.
#include <fcntl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace bws = boost::beast::websocket;
using tcp = net::ip::tcp;
using frame_ptr = std::shared_ptr<const std::string>;

long long monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1'000'000'000LL + ts.tv_nsec;
}

class ws_client;
std::set<std::shared_ptr<ws_client>> joined;  // io thread only (there is no other)

// Pings far apart: a benchmark phase is over long before the client would miss one.
const char* const kOpenPacket =
    R"(0{"sid":"floorfloorfloorfloor","upgrades":[],"pingInterval":300000,)"
    R"("pingTimeout":60000,"maxPayload":1000000})";

class ws_client : public std::enable_shared_from_this<ws_client> {
 public:
  explicit ws_client(tcp::socket socket) : ws_(std::move(socket)) {}

  void accept(bhttp::request<bhttp::string_body> req) {
    req_ = std::move(req);
    ws_.async_accept(req_, [self = shared_from_this()](beast::error_code ec) {
      if (ec) return;
      self->send(std::make_shared<const std::string>(kOpenPacket));
      self->read();
    });
  }

  void send(frame_ptr frame) {
    queue_.push_back(std::move(frame));
    if (!writing_) write_next();
  }

 private:
  void read() {
    ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->leave();
      std::string text = beast::buffers_to_string(self->buffer_.data());
      self->buffer_.clear();
      if (text.rfind("40", 0) == 0) {  // namespace connect, with or without an auth payload
        self->send(std::make_shared<const std::string>(R"(40{"sid":"floorsocketfloorsock"})"));
        joined.insert(self);
      } else if (text == "41") {
        return self->leave();
      }
      self->read();  // pongs ("3") and anything else are ignored
    });
  }

  void write_next() {
    writing_ = true;
    ws_.text(true);
    ws_.async_write(net::buffer(*queue_.front()),
                    [self = shared_from_this()](beast::error_code ec, std::size_t) {
                      self->writing_ = false;
                      if (ec) return self->leave();
                      self->queue_.pop_front();
                      if (!self->queue_.empty()) self->write_next();
                    });
  }

  void leave() { joined.erase(shared_from_this()); }

  bws::stream<tcp::socket> ws_;
  bhttp::request<bhttp::string_body> req_;
  beast::flat_buffer buffer_;
  std::deque<frame_ptr> queue_;
  bool writing_ = false;
};

std::string http_body = "{}";  // argv[2]: the driver passes mixerd's GET /api/sliders body

// Hands a websocket upgrade to ws_client; answers any other request with http_body, keep-alive,
// so wrk can measure this machine's HTTP floor too.
class http_client : public std::enable_shared_from_this<http_client> {
 public:
  explicit http_client(tcp::socket socket) : socket_(std::move(socket)) {}

  void start() {
    req_ = {};
    bhttp::async_read(socket_, buffer_, req_,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec) return;  // closes the socket
                        if (bws::is_upgrade(self->req_)) {
                          return std::make_shared<ws_client>(std::move(self->socket_))
                              ->accept(std::move(self->req_));
                        }
                        self->answer();
                      });
  }

 private:
  void answer() {
    res_ = {bhttp::status::ok, req_.version()};
    res_.set(bhttp::field::server, "floor");
    res_.set(bhttp::field::content_type, "application/json");
    res_.set(bhttp::field::access_control_allow_origin, "*");
    res_.keep_alive(req_.keep_alive());
    res_.body() = http_body;
    res_.prepare_payload();
    bhttp::async_write(socket_, res_,
                       [self = shared_from_this()](beast::error_code ec, std::size_t) {
                         if (!ec && self->res_.keep_alive()) self->start();
                       });
  }

  tcp::socket socket_;
  beast::flat_buffer buffer_;
  bhttp::request<bhttp::string_body> req_;
  bhttp::response<bhttp::string_body> res_;
};

void accept_loop(tcp::acceptor& acceptor) {
  acceptor.async_accept([&acceptor](beast::error_code ec, tcp::socket socket) {
    if (ec) return;
    socket.set_option(tcp::no_delay(true), ec);  // as mixerd does
    std::make_shared<http_client>(std::move(socket))->start();
    accept_loop(acceptor);
  });
}

struct pty_reader {
  explicit pty_reader(net::posix::stream_descriptor d) : pty(std::move(d)) {}

  void read() {
    pty.async_read_some(net::buffer(chunk), [this](beast::error_code ec, std::size_t n) {
      if (ec) return;  // the device end closed
      const long long now = monotonic_ns();
      for (std::size_t i = 0; i < n; ++i) {
        if (chunk[i] != '\n' && chunk[i] != '\r') {
          partial.push_back(chunk[i]);
          continue;
        }
        if (partial.empty()) continue;
        on_line(now);
        partial.clear();
      }
      read();
    });
  }

  void on_line(long long now) {
    reads.emplace_back(now, partial);
    int index = 0, value = 0;
    if (std::sscanf(partial.c_str(), "SLIDER,%d,%d", &index, &value) != 2) return;
    char text[96];
    std::snprintf(text, sizeof text, R"(42["slider_change",{"index":%d,"value":%d}])", index + 1,
                  value);
    auto frame = std::make_shared<const std::string>(text);
    for (const auto& client : joined)
      client->send(frame);
  }

  net::posix::stream_descriptor pty;
  char chunk[4096];
  std::string partial;
  std::vector<std::pair<long long, std::string>> reads;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: floor_server PTY_PATH [HTTP_BODY]\n");
    return 2;
  }
  if (argc == 3) http_body = argv[2];
  int fd = ::open(argv[1], O_RDWR | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    std::perror(argv[1]);
    return 1;
  }
  termios tio{};
  if (tcgetattr(fd, &tio) == 0) {
    cfmakeraw(&tio);
    tcsetattr(fd, TCSANOW, &tio);
  }

  net::io_context io(1);
  tcp::acceptor acceptor(io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  accept_loop(acceptor);
  pty_reader pty(net::posix::stream_descriptor(io, fd));
  pty.read();

  // The driver closes stdin when the run is over.
  net::posix::stream_descriptor input(io, ::dup(STDIN_FILENO));
  char sink[256];
  std::function<void()> wait_for_eof = [&] {
    input.async_read_some(net::buffer(sink), [&](beast::error_code ec, std::size_t) {
      if (ec) return io.stop();
      wait_for_eof();
    });
  };
  wait_for_eof();

  std::printf("port %u\n", static_cast<unsigned>(acceptor.local_endpoint().port()));
  std::fflush(stdout);
  io.run();

  for (const auto& [t, line] : pty.reads)
    std::printf("%lld %s\n", t, line.c_str());
  std::fflush(stdout);
  joined.clear();
  return 0;
}
