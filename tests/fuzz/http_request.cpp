// Fuzz target: the bytes of an HTTP connection to any of the three listeners. They go through
// what the server core does (gateways/http/http_session.hpp): Beast's request parser with the
// server's limits (16 KiB of headers, 64 KiB of body; read_header, then read), keep-alive
// requests one after the other, the core's 400/413/431 for refused ones, then the conversion to
// an http::request (percent-decoded path, raw query, headers, body). Each request goes to the
// routers of the controller, notification and plant store listeners as the daemon builds them
// (http::make_router with each listener's real policy, the route files linked whole), run the
// way the daemon runs them: handlers on the "io thread" (an io_context polled here), requests to
// actors through the http::io_actor, the actors on CAF's deterministic test scheduler. The
// actors are typed stand-ins registered in a directory, the views the routes read are published
// to its slots before each input, both picked per input so that every branch is reached
// (route_table_backends.hpp: login on or off with a live, idle or unknown session, ...); the
// stand-ins check what reaches them. The same input is also sent once more with its
// Content-Length set to the length of what follows the head, so that body mutations reach the
// JSON validation of every endpoint instead of stalling the parser.
// Checked: each request is answered exactly once, within a bounded number of turns and before
// any request timeout could fire (the scheduler's clock stands still while requests are open),
// never 500 "Internal error" (an exception, or an actor's reply the route did not expect), with
// a status the listener can give, a JSON body in the listener's error style, an Allow header on
// 405, Retry-After on 429, the CORS headers on every controller answer and WWW-Authenticate on
// the plant store's 401; after each input, the io actor still takes replies (an exception in a
// route's continuation would end it).
// Not covered: the Socket.IO engine under /socket.io/ (stateful; its codec has its own targets);
// the branches for a capability that does not run (the capability table always runs all of them).
#include <boost/asio/io_context.hpp>
#include <boost/beast/_experimental/test/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>

#include "actors/device/device_commands.hpp"
#include "actors/macros/macros_commands.hpp"
#include "actors/mixer/mixer_commands.hpp"
#include "actors/music/music_commands.hpp"
#include "actors/plants/plants_commands.hpp"
#include "actors/profiles/profiles_commands.hpp"
#include "actors/smarthome/smarthome_commands.hpp"
#include "actors/stream/stream_commands.hpp"
#include "actors/support/directory.hpp"
#include "actors/toast/toast_commands.hpp"
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/detail.hpp"
#include "gateways/http/io_actor.hpp"
#include "gateways/http/router.hpp"
#include "gateways/plants/plants_listener.hpp"
#include "gateways/toast/toast_listener.hpp"
#include "plugins/bridge/plugins_commands.hpp"
#include "protocol/limits.hpp"
#include "protocol/uri.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "tests/fuzz/route_table_backends.hpp"

namespace {

namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace net = boost::asio;
using namespace mixerd;

// The server core's limits (http_session.hpp kHeaderLimit; daemon.cpp passes http_body_max).
constexpr std::uint32_t header_limit = 16 * 1024;
constexpr std::size_t body_limit = limits::http_body_max;
constexpr int max_requests_per_connection = 8;
// Rounds of (actors, io thread) per request: the longest exchange (notification admission, then
// the route's own request) settles in three.
constexpr int max_rounds = 16;

struct listener {
  http::listener_kind kind;
  http::handler route;
  std::set<int> statuses;  // what the listener may answer
};

std::vector<command> all_commands() {
  std::vector<command> all;
  for (auto list : {device_commands(), mixer_commands(), macros_commands(), profiles_commands(),
                    toast_commands(), plants_commands(), smarthome_commands(), stream_commands(),
                    music_commands(), plugins_commands()})
    all.insert(all.end(), list.begin(), list.end());
  return all;
}

struct world {
  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  net::io_context io;  // the io thread's: route handlers and the io actor's messages
  http::io_actor actor;
  directory dir;
  fuzz::capabilities capabilities;
  // Every capability's commands, as the daemon's rows list them (the routes run them).
  command_table commands{all_commands()};
  command_runner runner{commands, dir};
  const http::listener_policy controller_policy = controller::listener_policy(false);
  const http::listener_policy notification_policy =
      toast_api::listener_policy({"0.0.0.0", false, std::make_shared<std::uint16_t>(8889)});
  const http::listener_policy plants_policy = plants_api::listener_policy();
  std::vector<listener> listeners;

  static caf::actor_system_config& configure(caf::actor_system_config& cfg) {
    // The type-ID blocks of the capabilities route_table_backends.hpp stands in for.
    cfg.add_message_types<caf::id_block::mixerd_core>();
    cfg.add_message_types<caf::id_block::mixerd_macros>();
    cfg.add_message_types<caf::id_block::mixerd_profiles>();
    cfg.add_message_types<caf::id_block::mixerd_toast>();
    cfg.add_message_types<caf::id_block::mixerd_plants>();
    cfg.set("scheduler.policy", caf::atom("testing"));
    cfg.set("logger.verbosity", caf::atom("quiet"));
    return cfg;
  }

  world()
      : sys(configure(cfg)),
        sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())),
        actor(sys, io),
        capabilities(sys, dir) {
    listeners.push_back(
        {http::listener_kind::controller,
         http::make_router(runner, actor, controller_policy),
         {200, 201, 204, 400, 401, 403, 404, 405, 409, 413, 415, 429, 500, 503, 507, 508}});
    listeners.push_back({http::listener_kind::toast,
                         http::make_router(runner, actor, notification_policy),
                         {200, 400, 401, 404, 405, 429, 503}});
    listeners.push_back({http::listener_kind::plants,
                         http::make_router(runner, actor, plants_policy),
                         {204, 400, 401, 404, 405, 500, 503}});
    sched.run();
  }

  // Runs the actors and the io thread by turns until neither has anything left to do; false
  // when that takes more than `max_rounds`.
  bool settle() {
    for (int round = 0; round < max_rounds; ++round) {
      std::size_t done = sched.run();
      io.restart();
      done += io.poll();
      if (done == 0) return true;
    }
    return false;
  }
};

world& the_world() {
  static world* w = new world();  // lives until exit (reachable, so not a leak)
  return *w;
}

bool has_header(const http::response& res, std::string_view name, std::string_view value = {}) {
  http::request probe;
  probe.headers = res.headers;
  const auto got = probe.header(name);
  return !got.empty() && (value.empty() || got == value);
}

bool is_string(const nlohmann::json& body, const char* key) {
  return body.contains(key) && body.at(key).is_string();
}

void check_answer(const listener& l, const http::request& req, const http::response& res) {
  const std::string context = req.method + " " + req.target + " [" + req.body + "] -> " +
                              std::to_string(res.status) + " " + res.body;
  FUZZ_CHECK(l.statuses.count(res.status) == 1, context);
  for (const auto& [name, value] : res.headers)
    FUZZ_CHECK(!http::detail::has_crlf(name) && !http::detail::has_crlf(value), context);
  if (l.kind == http::listener_kind::controller)
    FUZZ_CHECK(has_header(res, "Access-Control-Allow-Origin"), context);
  if (res.status == 204) {
    FUZZ_CHECK(res.body.empty() && res.content_type.empty(), context);
    return;
  }
  FUZZ_CHECK(res.content_type == "application/json", context);
  const auto body = nlohmann::json::parse(res.body, nullptr, false);
  FUZZ_CHECK(body.is_object(), context);
  if (res.status == 405) FUZZ_CHECK(has_header(res, "Allow"), context);
  if (res.status == 429) FUZZ_CHECK(has_header(res, "Retry-After"), context);
  if (res.status < 400) return;
  switch (l.kind) {
    case http::listener_kind::controller:
      FUZZ_CHECK(body.size() == 1 && is_string(body, "error"), context);
      // A 500 names what failed (a profile that could not be written), never an exception.
      FUZZ_CHECK(body.at("error") != "Internal error", context);
      break;
    case http::listener_kind::toast:
      FUZZ_CHECK(body.size() == 2 && is_string(body, "error") && is_string(body, "message"),
                 context);
      break;
    case http::listener_kind::plants:
      FUZZ_CHECK(body.size() == 2 && body.contains("error") && body.at("error") == res.status &&
                     is_string(body, "message"),
                 context);
      FUZZ_CHECK(body.at("message") != "Internal error", context);
      if (res.status == 401) FUZZ_CHECK(has_header(res, "WWW-Authenticate", "Bearer"), context);
      break;
  }
}

// MIXERD_FUZZ_VERBOSE=1 prints every answer (to see what a corpus reaches).
const bool verbose = std::getenv("MIXERD_FUZZ_VERBOSE") != nullptr;

void route(world& w, const http::request& req) {
  for (const auto& l : w.listeners) {
    struct answers {
      int count = 0;
      http::response last;
    };
    auto got = std::make_shared<answers>();
    http::responder respond = [got](http::response res) {
      ++got->count;
      got->last = std::move(res);
    };
    // The server core calls the handler on the io thread, which is this one.
    l.route(http::request(req), std::move(respond));
    const std::string context = req.method + " " + req.target;
    FUZZ_CHECK(w.settle(),
               context + ": still busy after " + std::to_string(max_rounds) + " rounds");
    FUZZ_CHECK(got->count == 1, context + ": answered " + std::to_string(got->count) + " times");
    check_answer(l, req, got->last);
    if (verbose) {
      std::fprintf(stderr, "%s %s -> %d %s\n", req.method.c_str(), req.target.c_str(),
                   got->last.status, got->last.body.c_str());
    }
  }
}

// The io actor still takes replies: an exception in a reply handler (a route's continuation)
// would have ended it, and every later request that asks an actor would go unanswered.
void check_io_actor(world& w) {
  bool replied = false;
  w.actor.request(w.dir.get<network_actor>(), std::chrono::seconds(1), caf::get_atom_v)
      .then([&replied](const network_snapshot&) { replied = true; }, [](caf::error&) {});
  FUZZ_CHECK(w.settle() && replied, "the io actor no longer handles replies");
}

// CAF 0.17 keeps a request's timeout in the clock after the reply came (it fires, unheeded, once
// its time is up); the test clock never moves, so they are fired here, for nothing but memory.
void drop_spent_timeouts(world& w) {
  w.sched.clock().trigger_timeouts();
  FUZZ_CHECK(w.settle(), "spent timeouts");
}

// http_session::to_request, which is private to the session template.
http::request to_request(bhttp::request<bhttp::string_body>& message) {
  http::request req;
  req.method = std::string(message.method_string());
  req.target = std::string(message.target());
  const auto question = req.target.find('?');
  req.path = uri::percent_decode(std::string_view(req.target).substr(0, question));
  if (question != std::string::npos) req.query = req.target.substr(question + 1);
  for (const auto& field : message)
    req.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  req.body = std::move(message.body());
  req.client_address = "127.0.0.1";
  return req;
}

// One connection that sends `bytes` and then closes its sending side.
void connection(world& w, std::string_view bytes) {
  net::io_context io;
  beast::test::stream client(io);
  beast::test::stream server(io);
  client.connect(server);
  server.append(bytes);
  client.close();
  beast::flat_buffer buffer;
  for (int n = 0; n < max_requests_per_connection; ++n) {
    bhttp::request_parser<bhttp::string_body> parser;
    parser.header_limit(header_limit);
    parser.body_limit(body_limit);
    beast::error_code ec;
    bhttp::read_header(server, buffer, parser, ec);
    if (!ec && !parser.is_done()) bhttp::read(server, buffer, parser, ec);
    if (ec) {
      // http_session::on_read_error answers 413, 431 or 400 and closes; nothing to route.
      return;
    }
    auto message = parser.release();
    const bool keep_alive = message.keep_alive();
    route(w, to_request(message));
    if (!keep_alive) return;
  }
}

// The input with its Content-Length made to fit what follows the head (none when nothing does).
std::string with_fitting_length(std::string_view bytes) {
  const auto end = bytes.find("\r\n\r\n");
  if (end == std::string_view::npos) return {};
  std::string head;
  std::string_view rest = bytes.substr(0, end + 2);
  while (!rest.empty()) {
    const auto eol = rest.find("\r\n");
    const auto line = rest.substr(0, eol + 2);
    rest.remove_prefix(line.size());
    std::string lower(line.substr(0, 18));
    for (auto& c : lower)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.rfind("content-length:", 0) == 0 || lower.rfind("transfer-encoding:", 0) == 0)
      continue;
    head.append(line);
  }
  const auto body = bytes.substr(end + 4);
  return head + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  world& w = the_world();
  const std::string_view bytes = fuzz::as_text(data, size);
  fuzz::scenario = fuzz::input_hash(bytes);
  w.capabilities.publish_views();
  connection(w, bytes);
  const std::string fitted = with_fitting_length(bytes);
  if (!fitted.empty() && fitted != bytes) connection(w, fitted);
  check_io_actor(w);
  drop_spent_timeouts(w);
  return 0;
}
