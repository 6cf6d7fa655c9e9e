// What the HTTP core refuses before a request reaches any handler: Transfer-Encoding it cannot
// frame, a Host that names another machine, connections past the caps; and how the accept loop
// gets through running out of file descriptors. Raw sockets on loopback.
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "gateways/http/connection_budget.hpp"
#include "gateways/http/server.hpp"
#include "tests/unit/support/http.hpp"
#include "tests/unit/support/wait.hpp"

namespace mh = mixerd::http;
using namespace mixerd::test;

namespace {

mh::response text(std::string body) {
  mh::response r;
  r.content_type = "text/plain";
  r.body = std::move(body);
  return r;
}

// Counts the requests that reach it and answers each with its path.
struct counting_handler {
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  mh::handler handler() const {
    return [calls = calls](mh::request&& req, mh::responder reply) {
      ++*calls;
      reply(text("served " + req.path));
    };
  }
};

// Answers every request but those to /park, whose responders it keeps.
struct parking_handler {
  std::mutex mutex;
  std::vector<mh::responder> parked;
  mh::handler handler() {
    return [this](mh::request&& req, mh::responder reply) {
      if (req.path != "/park") return reply(text("served " + req.path));
      std::lock_guard lock(mutex);
      parked.push_back(std::move(reply));
    };
  }
  std::size_t count() {
    std::lock_guard lock(mutex);
    return parked.size();
  }
};

mh::host_check only_good_host() {
  mh::host_check check;
  check.names_this_machine = [](std::string_view host) { return host == "good:80"; };
  check.misdirected.status = 421;
  check.misdirected.body = "{\"error\":\"Misdirected request\"}";
  return check;
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

// The budget's count of open connections, read on the io thread that changes it.
bool open_connections_are(test_server& server, const mh::connection_budget& budget,
                          std::size_t expected) {
  return eventually([&] {
    std::size_t open = 0;
    server.on_io([&] { open = budget.open(); });
    return open == expected;
  });
}

// What the listener reported through options.warn.
struct reports {
  std::mutex mutex;
  std::vector<std::string> lines;
  std::function<void(std::string_view)> sink() {
    return [this](std::string_view line) {
      std::lock_guard lock(mutex);
      lines.emplace_back(line);
    };
  }
  bool any_with(const std::string& text) {
    std::lock_guard lock(mutex);
    for (const auto& line : lines)
      if (line.find(text) != std::string::npos) return true;
    return false;
  }
};

}  // namespace

TEST_CASE("a Transfer-Encoding other than chunked alone is 400, the request behind is unanswered") {
  for (const char* coding : {"gzip", "xchunked", "identity", "chunked, gzip"}) {
    CAPTURE(coding);
    counting_handler counter;
    test_server server(counter.handler());
    REQUIRE(server.ok());
    raw_client client(server.port());
    client.send(std::string("POST /first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: ") + coding +
                "\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\n\r\n");
    const auto res = client.read_response();
    CHECK(starts_with(res, "HTTP/1.1 400"));
    CHECK(has_header(res, "Connection: close"));
    CHECK(starts_with(body_of(res), "{\"error\":\"Malformed request: the last Transfer-Encoding"));
    CHECK(client.read_response().empty());
    CHECK(*counter.calls == 0);
  }
}

TEST_CASE("gzip before a final chunked is 501 and closes") {
  counting_handler counter;
  test_server server(counter.handler());
  REQUIRE(server.ok());
  raw_client client(server.port());
  client.send(
      "POST /first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
      "2\r\n{}\r\n0\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto res = client.read_response();
  CHECK(starts_with(res, "HTTP/1.1 501"));
  CHECK(body_of(res) ==
        "{\"error\":\"Transfer-Encoding 'gzip' is not supported: only chunked is\"}");
  CHECK(client.read_response().empty());
  CHECK(*counter.calls == 0);
}

TEST_CASE("HTTP/1.1 without a Host or with two is 400, HTTP/1.0 without one is served") {
  counting_handler counter;
  test_server server(counter.handler());
  REQUIRE(server.ok());
  {
    raw_client client(server.port());
    client.send("GET /a HTTP/1.1\r\n\r\n");
    const auto res = client.read_response();
    CHECK(starts_with(res, "HTTP/1.1 400"));
    CHECK(body_of(res) ==
          "{\"error\":\"Malformed request: an HTTP/1.1 request needs a Host header\"}");
    CHECK(client.closed_by_server());
  }
  {
    raw_client client(server.port());
    client.send("GET /a HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n");
    CHECK(starts_with(client.read_response(), "HTTP/1.1 400"));
  }
  CHECK(*counter.calls == 0);
  raw_client old(server.port());
  old.send("GET /a HTTP/1.0\r\n\r\n");
  CHECK(body_of(old.read_response()) == "served /a");
}

TEST_CASE(
    "a Host that names another machine gets the misdirected answer and the connection closes") {
  counting_handler counter;
  auto options = test_options();
  options.hosts = only_good_host();
  test_server server(options, counter.handler());
  REQUIRE(server.ok());
  {
    raw_client client(server.port());
    client.send(
        "GET /a HTTP/1.1\r\nHost: evil.example\r\n\r\nGET /b HTTP/1.1\r\nHost: good:80\r\n\r\n");
    const auto res = client.read_response();
    CHECK(starts_with(res, "HTTP/1.1 421 Misdirected Request"));
    CHECK(body_of(res) == "{\"error\":\"Misdirected request\"}");
    CHECK(has_header(res, "Connection: close"));
    CHECK(client.read_response().empty());
  }
  CHECK(*counter.calls == 0);
  raw_client client(server.port());
  client.send("GET /a HTTP/1.1\r\nHost: good:80\r\n\r\n");
  CHECK(body_of(client.read_response()) == "served /a");
  // The body of a refused request is not awaited: the answer comes before it is sent.
  client.send("POST /b HTTP/1.1\r\nHost: evil\r\nContent-Length: 60000\r\n\r\n");
  CHECK(starts_with(client.read_response(), "HTTP/1.1 421"));
  CHECK(*counter.calls == 1);
}

TEST_CASE("the Host check also guards WebSocket upgrades") {
  std::atomic<int> upgrades{0};
  auto options = test_options();
  options.hosts = only_good_host();
  options.upgrade = [&upgrades](const mh::request&, std::shared_ptr<mh::websocket>,
                                mh::response&) -> std::optional<mh::websocket_events> {
    ++upgrades;
    return mh::websocket_events{};
  };
  counting_handler counter;
  test_server server(options, counter.handler());
  REQUIRE(server.ok());
  raw_client client(server.port());
  client.send(
      "GET /ws HTTP/1.1\r\nHost: evil.example:80\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
  CHECK(starts_with(client.read_response(), "HTTP/1.1 421"));
  CHECK(upgrades == 0);
}

TEST_CASE("an unknown Host is looked at once more before it is refused") {
  std::atomic<bool> learned{false};
  std::atomic<int> looks{0};
  std::vector<std::thread> helpers;
  std::mutex helpers_mutex;
  auto options = test_options();
  options.hosts = only_good_host();
  options.hosts.names_this_machine = [&learned](std::string_view host) {
    return host == "good:80" || (learned && host == "new.example");
  };
  // Learns the name on another thread, as the network capability's answer arrives.
  options.hosts.relearn = [&](std::function<void()> done) {
    ++looks;
    std::lock_guard lock(helpers_mutex);
    helpers.emplace_back([&learned, done = std::move(done)] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      learned = true;
      done();
    });
  };
  counting_handler counter;
  {
    test_server server(options, counter.handler());
    REQUIRE(server.ok());
    raw_client client(server.port());
    client.send("GET /a HTTP/1.1\r\nHost: new.example\r\n\r\n");
    CHECK(body_of(client.read_response()) == "served /a");
    // Known now: no second look. A name still unknown after its look is refused.
    client.send("GET /b HTTP/1.1\r\nHost: new.example\r\n\r\n");
    CHECK(body_of(client.read_response()) == "served /b");
    CHECK(looks == 1);
    client.send("GET /c HTTP/1.1\r\nHost: evil.example\r\n\r\n");
    CHECK(starts_with(client.read_response(), "HTTP/1.1 421"));
    CHECK(looks == 2);
  }
  std::lock_guard lock(helpers_mutex);
  for (auto& h : helpers)
    h.join();
}

TEST_CASE("at the per-address cap the oldest idle connection of that address makes room") {
  counting_handler counter;
  auto options = test_options();
  options.connections = std::make_shared<mh::connection_budget>(mh::connection_caps{8, 2});
  test_server server(options, counter.handler());
  REQUIRE(server.ok());
  raw_client first(server.port());
  raw_client second(server.port());
  raw_client other(server.port(), "127.0.0.2");
  REQUIRE(open_connections_are(server, *options.connections, 3));
  raw_client third(server.port());
  third.send("GET /third HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(body_of(third.read_response()) == "served /third");
  CHECK(first.closed_by_server());
  second.send("GET /second HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(body_of(second.read_response()) == "served /second");
  other.send("GET /other HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(body_of(other.read_response()) == "served /other");
}

TEST_CASE("with every connection of the address busy, a new one is closed unanswered") {
  parking_handler parking;
  auto options = test_options();
  options.connections = std::make_shared<mh::connection_budget>(mh::connection_caps{8, 2});
  test_server server(options, parking.handler());
  REQUIRE(server.ok());
  raw_client a(server.port());
  raw_client b(server.port());
  a.send("GET /park HTTP/1.1\r\nHost: x\r\n\r\n");
  b.send("GET /park HTTP/1.1\r\nHost: x\r\n\r\n");
  REQUIRE(eventually([&] { return parking.count() == 2; }));
  raw_client refused(server.port());
  CHECK(refused.closed_by_server());
  // Another address is served meanwhile; the parked requests still get their answers.
  raw_client other(server.port(), "127.0.0.2");
  other.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(body_of(other.read_response()) == "served /x");
  {
    std::lock_guard lock(parking.mutex);
    for (auto& reply : parking.parked)
      reply(text("late"));
  }
  CHECK(body_of(a.read_response()) == "late");
  CHECK(body_of(b.read_response()) == "late");
}

namespace {

// The sanitizers need descriptors of their own: UBSan checks the dynamic type of a virtual call
// by reading memory through a pipe, so in a process without a free descriptor it reports every
// such call as a bad one. The release build runs these tests.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// Lowers this process's soft open-files limit so that no new descriptor can be made (every
// number below the limit is taken), and puts it back when it goes.
class descriptors_exhausted {
 public:
  descriptors_exhausted() {
    REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved_) == 0);
    const int lowest_free = ::dup(0);
    REQUIRE(lowest_free >= 0);
    ::close(lowest_free);
    rlimit lowered = saved_;
    lowered.rlim_cur = static_cast<rlim_t>(lowest_free);
    REQUIRE(::setrlimit(RLIMIT_NOFILE, &lowered) == 0);
  }
  descriptors_exhausted(const descriptors_exhausted&) = delete;
  descriptors_exhausted& operator=(const descriptors_exhausted&) = delete;
  ~descriptors_exhausted() { ::setrlimit(RLIMIT_NOFILE, &saved_); }

 private:
  rlimit saved_{};
};

// A client socket made before the descriptors run out, connected later.
int unconnected_socket() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

bool connect_and_ask(int fd, std::uint16_t port, std::string& answer) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return false;
  const std::string request = "GET /late HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size()))
    return false;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0)
    answer.append(buf, static_cast<std::size_t>(n));
  return true;
}

}  // namespace

TEST_CASE("out of descriptors, accept closes an idle connection and serves the new one" *
          doctest::skip(kSanitized)) {
  counting_handler counter;
  reports reported;
  auto options = test_options();
  options.warn = reported.sink();
  options.connections = std::make_shared<mh::connection_budget>(mh::connection_caps{64, 16});
  test_server server(options, counter.handler());
  REQUIRE(server.ok());
  raw_client idle(server.port());
  REQUIRE(open_connections_are(server, *options.connections, 1));
  const int late = unconnected_socket();
  std::string answer;
  {
    descriptors_exhausted exhausted;
    REQUIRE(connect_and_ask(late, server.port(), answer));
  }
  ::close(late);
  CHECK(body_of(answer) == "served /late");
  CHECK(idle.closed_by_server());
  CHECK(reported.any_with("Too many open files on accept: waiting for a free descriptor"));
}

TEST_CASE("out of descriptors with none idle, accept retries until one is free" *
          doctest::skip(kSanitized)) {
  parking_handler parking;
  reports reported;
  auto options = test_options();
  options.warn = reported.sink();
  options.connections = std::make_shared<mh::connection_budget>(mh::connection_caps{64, 16});
  test_server server(options, parking.handler());
  REQUIRE(server.ok());
  raw_client busy(server.port());
  busy.send("GET /park HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  REQUIRE(eventually([&] { return parking.count() == 1; }));
  const int late = unconnected_socket();
  std::string answer;
  std::thread asker;
  {
    descriptors_exhausted exhausted;
    asker = std::thread([&] { connect_and_ask(late, server.port(), answer); });
    // The accept loop meets EMFILE and waits; meanwhile the io thread keeps working.
    CHECK(eventually(
        [&] { return reported.any_with("Too many open files on accept: waiting for a free"); }));
    {
      std::lock_guard lock(parking.mutex);
      parking.parked.front()(text("done"));
    }
    CHECK(body_of(busy.read_response()) == "done");
    // The busy connection closed after its answer: its descriptor admits the late one.
    asker.join();
  }
  ::close(late);
  CHECK(body_of(answer) == "served /late");
}
