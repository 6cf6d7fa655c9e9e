// The Engine.IO engine driven directly: http::request objects in, captured responders out, hooks
// recorded, all on one io_context that the test runs itself (no listener, no sockets). The
// expected answers are those of the reference server.
#include "gateways/socketio/engine.hpp"

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

namespace mh = mixerd::http;
namespace sio = mixerd::socketio;

namespace {

constexpr char rs = '\x1e';  // joins the packets of one polling payload

// One request's answer, filled in when the engine calls the responder.
struct reply {
  std::shared_ptr<std::optional<mh::response>> slot =
      std::make_shared<std::optional<mh::response>>();
  std::shared_ptr<int> calls = std::make_shared<int>(0);

  mh::responder responder() const {
    return [slot = slot, calls = calls](mh::response r) {
      ++*calls;
      *slot = std::move(r);
    };
  }
  bool ready() const { return slot->has_value(); }
  const mh::response& get() const {
    REQUIRE(ready());
    return **slot;
  }
  const std::string& body() const { return get().body; }
};

std::string header_of(const mh::response& r, std::string_view name) {
  for (const auto& [key, value] : r.headers)
    if (key == name) return value;
  return {};
}

std::shared_ptr<const std::string> packet(std::string text) {
  return std::make_shared<const std::string>(std::move(text));
}

// The HTTP core's side of an accepted websocket: records what the engine sends.
struct fake_websocket final : mh::websocket {
  void send(std::shared_ptr<const std::string> text) override { sent.push_back(*text); }
  void close() override { closed = true; }
  std::vector<std::string> sent;
  bool closed = false;
};

// An engine on its own io_context with every hook call recorded.
struct harness {
  explicit harness(sio::engine_options options = {}) : engine(io, options, hooks()) {}

  sio::engine_hooks hooks() {
    sio::engine_hooks h;
    h.on_open = [this](const std::shared_ptr<sio::connection>& c) { opened.push_back(c); };
    h.on_message = [this](const std::shared_ptr<sio::connection>& c, std::string_view data) {
      messages.emplace_back(c->id(), std::string(data));
    };
    h.on_close = [this](const std::shared_ptr<sio::connection>& c) { closed.push_back(c->id()); };
    return h;
  }

  reply request(std::string method, std::string query, std::string body = {},
                std::string client_address = "127.0.0.1") {
    auto req = make_request(std::move(method), std::move(query), std::move(client_address));
    req.body = std::move(body);
    reply r;
    engine.handle_request(std::move(req), r.responder());
    return r;
  }

  static mh::request make_request(std::string method, std::string query,
                                  std::string client_address) {
    mh::request req;
    req.method = std::move(method);
    req.path = "/socket.io/";
    req.query = std::move(query);
    req.target = req.path + "?" + req.query;
    req.client_address = std::move(client_address);
    return req;
  }

  // A polling handshake from `address`.
  reply handshake(const std::string& address) {
    return request("GET", "EIO=4&transport=polling", {}, address);
  }

  // A websocket-only handshake from `address`: the refusal when refused, nullopt when accepted.
  std::optional<mh::response> ws_handshake(const std::string& address) {
    auto socket = std::make_shared<fake_websocket>();
    sockets.push_back(socket);
    mh::response refusal;
    auto events =
        engine.upgrade(make_request("GET", "EIO=4&transport=websocket", address), socket, refusal);
    if (events) return std::nullopt;
    return refusal;
  }

  // The polling handshake; returns the new session's id.
  std::string open() {
    auto r = request("GET", "EIO=4&transport=polling&t=abc");
    REQUIRE(r.ready());
    REQUIRE(r.get().status == 200);
    REQUIRE(r.body().size() > 1);
    REQUIRE(r.body()[0] == '0');
    return nlohmann::json::parse(r.body().substr(1)).at("sid").get<std::string>();
  }

  reply poll(const std::string& sid) {
    return request("GET", "EIO=4&transport=polling&sid=" + sid);
  }
  reply post(const std::string& sid, std::string body) {
    return request("POST", "EIO=4&transport=polling&sid=" + sid, std::move(body));
  }

  // Runs the io_context until `done` holds; fails the test after `limit`.
  void run_until(const std::function<bool()>& done,
                 std::chrono::milliseconds limit = std::chrono::seconds(5)) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      REQUIRE(std::chrono::steady_clock::now() < deadline);
      io.restart();
      io.run_one_for(std::chrono::milliseconds(10));
    }
  }

  bool is_closed(const std::string& sid) const {
    for (const auto& c : closed)
      if (c == sid) return true;
    return false;
  }

  boost::asio::io_context io;  // first: the engine's timers need it until the end
  std::vector<std::shared_ptr<sio::connection>> opened;
  std::vector<std::pair<std::string, std::string>> messages;  // (sid, data)
  std::vector<std::string> closed;                            // sids, in closing order
  std::vector<std::shared_ptr<fake_websocket>> sockets;
  sio::engine engine;  // last: stopping it on destruction still reaches the records above
};

void check_error(const reply& r, int code, std::string_view message) {
  REQUIRE(r.ready());
  CHECK(r.get().status == 400);
  CHECK(r.get().content_type == "application/json");
  auto body = nlohmann::json::parse(r.body());
  CHECK(body == nlohmann::json{{"code", code}, {"message", std::string(message)}});
}

// Options whose ping never fires while a test runs, unless it asks for one.
sio::engine_options quiet() {
  sio::engine_options o;
  o.ping_interval_ms = 60000;
  o.ping_timeout_ms = 60000;
  return o;
}

}  // namespace

TEST_CASE("the polling handshake answers the open packet and opens a connection") {
  sio::engine_options options = quiet();
  options.ping_interval_ms = 25000;
  options.ping_timeout_ms = 20000;
  options.max_payload = 1000000;
  harness h(options);
  auto r = h.request("GET", "EIO=4&transport=polling&t=330o7ajx");
  REQUIRE(r.ready());
  CHECK(*r.calls == 1);
  CHECK(r.get().status == 200);
  CHECK(r.get().content_type == "text/plain; charset=UTF-8");
  CHECK(header_of(r.get(), "Cache-Control") == "no-store");
  REQUIRE(r.body().rfind('0', 0) == 0);

  auto open = nlohmann::ordered_json::parse(r.body().substr(1));
  std::vector<std::string> keys;
  for (const auto& item : open.items())
    keys.push_back(item.key());
  CHECK(keys ==
        std::vector<std::string>{"sid", "upgrades", "pingInterval", "pingTimeout", "maxPayload"});
  auto sid = open["sid"].get<std::string>();
  CHECK(sid.size() == 20);
  CHECK(sid.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
        std::string::npos);
  CHECK(open["upgrades"].dump() == R"(["websocket"])");
  CHECK(open["pingInterval"] == 25000);
  CHECK(open["pingTimeout"] == 20000);
  CHECK(open["maxPayload"] == 1000000);

  REQUIRE(h.opened.size() == 1);
  CHECK(h.opened[0]->id() == sid);
  CHECK(h.opened[0]->handshake_session().empty());  // no cookie sent
  CHECK(h.closed.empty());

  // A second handshake is a second session with its own id.
  auto other = h.open();
  CHECK(other != sid);
  CHECK(h.opened.size() == 2);
}

TEST_CASE("a POST payload reaches on_message packet by packet, in order") {
  harness h(quiet());
  auto sid = h.open();
  auto r = h.post(sid, std::string("4first") + rs + "4second" + rs + "4" + rs + "4third");
  REQUIRE(r.ready());
  CHECK(r.get().status == 200);
  CHECK(r.get().content_type == "text/html");
  CHECK(r.body() == "ok");
  using item = std::pair<std::string, std::string>;
  CHECK(h.messages ==
        std::vector<item>{{sid, "first"}, {sid, "second"}, {sid, ""}, {sid, "third"}});

  // The next POST continues the order; a noop in between is no message.
  CHECK(h.post(sid, std::string("6") + rs + "4fourth").body() == "ok");
  REQUIRE(h.messages.size() == 5);
  CHECK(h.messages.back() == item{sid, "fourth"});
  CHECK(h.closed.empty());
}

TEST_CASE("a long-poll GET is held until a packet is sent") {
  harness h(quiet());
  auto sid = h.open();
  auto conn = h.opened.at(0);

  auto held = h.poll(sid);
  h.io.restart();
  h.io.poll();
  CHECK_FALSE(held.ready());

  CHECK(conn->send(packet("42[\"hello\",1]")));
  REQUIRE(held.ready());
  CHECK(*held.calls == 1);
  CHECK(held.get().status == 200);
  CHECK(held.get().content_type == "text/plain; charset=UTF-8");
  CHECK(header_of(held.get(), "Cache-Control") == "no-store");
  CHECK(held.body() == "42[\"hello\",1]");

  // Packets sent between polls wait, and the next poll takes them all, joined by 0x1E.
  CHECK(conn->send(packet("42[\"a\"]")));
  CHECK(conn->send(packet("42[\"b\"]")));
  auto batch = h.poll(sid);
  REQUIRE(batch.ready());
  CHECK(batch.body() == std::string("42[\"a\"]") + rs + "42[\"b\"]");

  // Each packet is answered once: the next poll is held again.
  auto again = h.poll(sid);
  CHECK_FALSE(again.ready());
  CHECK(h.closed.empty());
}

TEST_CASE("the server pings after pingInterval and a pong keeps the session") {
  sio::engine_options options;
  options.ping_interval_ms = 20;
  options.ping_timeout_ms = 5000;  // never reached here: every ping is answered
  harness h(options);
  auto sid = h.open();

  for (int round = 0; round < 3; ++round) {
    CAPTURE(round);
    auto held = h.poll(sid);
    h.run_until([&] { return held.ready(); });
    CHECK(held.body() == "2");
    auto pong = h.post(sid, "3");
    REQUIRE(pong.ready());
    CHECK(pong.body() == "ok");
  }
  CHECK(h.closed.empty());
  CHECK(h.messages.empty());  // a pong is no message
}

TEST_CASE("an unanswered ping closes the session after pingTimeout") {
  sio::engine_options options;
  options.ping_interval_ms = 10;
  options.ping_timeout_ms = 30;
  harness h(options);
  auto sid = h.open();

  auto ping = h.poll(sid);
  h.run_until([&] { return ping.ready(); });
  CHECK(ping.body() == "2");
  auto held = h.poll(sid);  // held when the timeout closes the session
  CHECK_FALSE(held.ready());

  h.run_until([&] { return h.is_closed(sid); });
  CHECK(h.closed == std::vector<std::string>{sid});
  // The server closed it: the held poll learns so with a close packet.
  REQUIRE(held.ready());
  CHECK(held.get().status == 200);
  CHECK(held.body() == "1");
  CHECK_FALSE(h.opened.at(0)->send(packet("42[\"late\"]")));
  check_error(h.poll(sid), 1, "Session ID unknown");
}

TEST_CASE("a request for an unknown sid is answered with error 1") {
  harness h(quiet());
  h.open();
  check_error(h.poll("AAAAAAAAAAAAAAAAAAAA"), 1, "Session ID unknown");
  check_error(h.post("AAAAAAAAAAAAAAAAAAAA", "4x"), 1, "Session ID unknown");
  CHECK(h.messages.empty());
  CHECK(h.closed.empty());
}

TEST_CASE("an unknown transport is answered with error 0 and opens nothing") {
  harness h(quiet());
  check_error(h.request("GET", "EIO=4&transport=carrier-pigeon"), 0, "Transport unknown");
  check_error(h.request("GET", "EIO=4"), 0, "Transport unknown");
  auto sid = h.open();
  check_error(h.request("GET", "EIO=4&transport=flash&sid=" + sid), 0, "Transport unknown");
  CHECK(h.opened.size() == 1);
  CHECK(h.closed.empty());
}

TEST_CASE("other refusals of the reference server") {
  harness h(quiet());
  SUBCASE("EIO=3 is not spoken") {
    check_error(h.request("GET", "EIO=3&transport=polling"), 5, "Unsupported protocol version");
  }
  SUBCASE("a handshake must be a GET") {
    check_error(h.request("POST", "EIO=4&transport=polling", "4x"), 2, "Bad handshake method");
  }
  CHECK(h.opened.empty());
}

TEST_CASE("a session whose queue overflows is closed") {
  sio::engine_options options = quiet();
  options.max_queued_packets = 3;
  harness h(options);
  auto sid = h.open();
  auto conn = h.opened.at(0);
  for (int i = 0; i < 3; ++i)
    CHECK(conn->send(packet("42[\"n\"," + std::to_string(i) + "]")));
  CHECK(h.closed.empty());
  CHECK_FALSE(conn->send(packet("42[\"n\",3]")));
  CHECK(h.closed == std::vector<std::string>{sid});
  CHECK_FALSE(conn->send(packet("42[\"n\",4]")));
  CHECK(h.closed.size() == 1);  // exactly once
  check_error(h.poll(sid), 1, "Session ID unknown");
}

TEST_CASE("a session whose queued bytes pass the bound is closed, whatever the packet count") {
  sio::engine_options options = quiet();
  options.max_queued_bytes = 100;
  harness h(options);
  auto sid = h.open();
  auto conn = h.opened.at(0);
  const std::string forty(40, 'x');
  CHECK(conn->send(packet(forty)));
  CHECK(conn->send(packet(forty)));
  // Polled: the queue is empty again and its bytes with it.
  auto got = h.poll(sid);
  REQUIRE(got.ready());
  CHECK(conn->send(packet(forty)));
  CHECK(conn->send(packet(forty)));
  CHECK(h.closed.empty());
  CHECK_FALSE(conn->send(packet(forty)));  // 120 bytes would wait
  CHECK(h.closed == std::vector<std::string>{sid});
}

TEST_CASE("a client close packet ends the session and its held poll with a noop") {
  harness h(quiet());
  auto sid = h.open();
  auto held = h.poll(sid);
  CHECK(h.post(sid, std::string("41") + rs + "1").body() == "ok");
  CHECK(h.closed == std::vector<std::string>{sid});
  REQUIRE(held.ready());
  CHECK(held.body() == "6");
  REQUIRE(h.messages.size() == 1);
  CHECK(h.messages[0].second == "1");  // the Socket.IO disconnect came first
}

TEST_CASE("two polls at once close the session") {
  harness h(quiet());
  auto sid = h.open();
  auto first = h.poll(sid);
  auto second = h.poll(sid);
  check_error(second, 3, "Bad request");
  REQUIRE(first.ready());
  CHECK(first.body() == "1");
  CHECK(h.closed == std::vector<std::string>{sid});
}

TEST_CASE("stop closes every session once and refuses new ones") {
  harness h(quiet());
  auto a = h.open();
  auto b = h.open();
  auto c = h.open();
  auto held = h.poll(b);
  h.engine.stop();

  REQUIRE(h.closed.size() == 3);
  for (const auto& sid : {a, b, c})
    CHECK(h.is_closed(sid));
  REQUIRE(held.ready());
  CHECK(*held.calls == 1);
  CHECK(held.body() == "1");  // closed by the server
  for (const auto& conn : h.opened)
    CHECK_FALSE(conn->send(packet("42[\"late\"]")));

  auto refused = h.request("GET", "EIO=4&transport=polling");
  REQUIRE(refused.ready());
  CHECK(refused.get().status == 503);
  CHECK(h.opened.size() == 3);

  h.engine.stop();  // again: nothing more
  CHECK(h.closed.size() == 3);
}

// ---- the session caps ----------------------------------------------------------------------

namespace {

void check_forbidden(const mh::response& r, std::string_view message) {
  CHECK(r.status == 403);
  CHECK(r.content_type == "application/json");
  CHECK(r.body == R"({"code":4,"message":")" + std::string(message) + R"("})");
}

sio::engine_options capped(std::size_t total, std::size_t per_address) {
  auto o = quiet();
  o.max_sessions = total;
  o.max_sessions_per_address = per_address;
  return o;
}

}  // namespace

TEST_CASE("an address at its cap is refused with 403 code 4, and others are not") {
  harness h(capped(100, 2));
  auto first = h.open();
  h.open();
  auto refused = h.handshake("127.0.0.1");
  REQUIRE(refused.ready());
  check_forbidden(refused.get(), "Too many sessions from this address");
  // Where the reference asks its allowRequest: before the protocol version is looked at.
  check_forbidden(h.request("GET", "EIO=3&transport=polling").get(),
                  "Too many sessions from this address");
  auto ws = h.ws_handshake("127.0.0.1");
  REQUIRE(ws);
  check_forbidden(*ws, "Too many sessions from this address");
  CHECK(h.opened.size() == 2);
  CHECK(h.closed.empty());  // nobody was closed to make room

  // Another address still gets in, over either transport.
  CHECK(h.handshake("192.0.2.7").get().status == 200);
  CHECK_FALSE(h.ws_handshake("192.0.2.7"));
  CHECK(h.opened.size() == 4);

  // A session that ends gives its place back at once.
  CHECK(h.post(first, "1").body() == "ok");
  CHECK(h.handshake("127.0.0.1").get().status == 200);
  check_forbidden(h.handshake("127.0.0.1").get(), "Too many sessions from this address");
}

TEST_CASE("once the total is reached every new session is refused and open ones stay") {
  harness h(capped(3, 2));
  h.open();
  h.open();
  h.ws_handshake("192.0.2.2");
  REQUIRE(h.opened.size() == 3);
  check_forbidden(h.handshake("192.0.2.3").get(), "Too many sessions");
  auto ws = h.ws_handshake("192.0.2.3");
  REQUIRE(ws);
  check_forbidden(*ws, "Too many sessions");
  // An address at its own cap hears about that one.
  check_forbidden(h.handshake("127.0.0.1").get(), "Too many sessions from this address");
  CHECK(h.opened.size() == 3);
  CHECK(h.closed.empty());
  CHECK_FALSE(h.sockets.front()->closed);
}

TEST_CASE("sessions that expire give their places back") {
  sio::engine_options options = capped(2, 2);
  options.ping_interval_ms = 60000;
  options.connect_timeout_ms = 20;  // no client here joins a namespace
  harness h(options);
  h.open();
  h.ws_handshake("127.0.0.1");
  check_forbidden(h.handshake("192.0.2.1").get(), "Too many sessions");
  h.run_until([&] { return h.closed.size() == 2; });
  CHECK(h.sockets.back()->closed);  // the websocket was closed with its session

  // Both places are free again, for any address and for the one that held them.
  for (const char* address : {"192.0.2.1", "127.0.0.1"})
    CHECK(h.handshake(address).get().status == 200);
  check_forbidden(h.handshake("192.0.2.9").get(), "Too many sessions");
  // A joined session keeps its place; the one that never joins goes.
  h.opened.at(2)->joined();
  h.run_until([&] { return h.closed.size() == 3; });
  CHECK(h.handshake("192.0.2.9").get().status == 200);
  check_forbidden(h.handshake("192.0.2.10").get(), "Too many sessions");
}
