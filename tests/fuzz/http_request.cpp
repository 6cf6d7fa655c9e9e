// Fuzz target: the bytes of an HTTP connection to any of the three listeners. They go through
// what the server core does (gateways/http/http_session.hpp): Beast's request parser with the
// server's limits (16 KiB of headers, 64 KiB of body; read_header, then read), keep-alive
// requests one after the other, the core's 400/413/431 for refused ones, then the conversion to
// an http::request (percent-decoded path, raw query, headers, body). Each request goes to the
// real controller, notification and plant store route tables (the gateway actors, run on CAF's
// deterministic test scheduler), whose backends are stand-ins that check what reaches them
// (route_table_backends.hpp). The same input is also sent once more with its Content-Length
// set to the length of what follows the head, so that body mutations reach the JSON validation
// of every endpoint instead of stalling the parser.
// Checked: each request is answered exactly once, never 500 "Internal error" (an exception in a
// route), with a status the listener can give, a JSON body in the listener's error style, an
// Allow header on 405 and WWW-Authenticate on the plant store's 401.
// Not covered: the Socket.IO engine under /socket.io/ (stateful; its codec has its own targets).
#include <boost/asio/io_context.hpp>
#include <boost/beast/_experimental/test/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>

#include "gateways/controller/controller_gateway.hpp"
#include "gateways/http/call.hpp"
#include "gateways/http/detail.hpp"
#include "gateways/plants/plants_gateway.hpp"
#include "gateways/toast/toast_gateway.hpp"
#include "protocol/limits.hpp"
#include "protocol/messages.hpp"
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

enum class style { controller, notification, plant_store };

struct listener {
  style kind;
  caf::actor gateway;
  std::set<int> statuses;  // what the listener may answer
};

caf::behavior backend_actor(caf::event_based_actor*, caf::behavior (*make)()) {
  return make();
}

struct world {
  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  std::vector<listener> listeners;

  static caf::actor_system_config& configure(caf::actor_system_config& cfg) {
    cfg.add_message_types<caf::id_block::mixerd>();
    cfg.set("scheduler.policy", caf::atom("testing"));
    cfg.set("logger.verbosity", caf::atom("quiet"));
    return cfg;
  }

  world()
      : sys(configure(cfg)),
        sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {
    // The maker travels as an argument: CAF 0.17 dereferences a null argument tuple when a
    // function actor takes none (UBSan reports it).
    auto backend = [this](caf::behavior (*make)()) { return sys.spawn(backend_actor, make); };
    controller_targets ct{backend(fuzz::device_backend), backend(fuzz::mixer_backend),
                          backend(fuzz::auth_backend), backend(fuzz::audio_backend), false};
    notification_targets nt{
        backend(fuzz::toast_backend),       ct.device, backend(fuzz::network_backend),
        [] { return std::uint16_t{8889}; }, "0.0.0.0", false};
    listeners.push_back({style::controller,
                         sys.spawn(controller_gateway, ct),
                         {200, 204, 400, 401, 404, 405, 429}});
    listeners.push_back({style::notification,
                         sys.spawn(notification_gateway, nt),
                         {200, 400, 401, 404, 405, 429, 503}});
    listeners.push_back({style::plant_store,
                         sys.spawn(plants_gateway, backend(fuzz::plant_store_backend)),
                         {204, 400, 401, 404, 405, 500, 503}});
    sched.run();
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

void check_answer(const listener& l, const http::request& req, const http::response& res) {
  const std::string context = req.method + " " + req.target + " [" + req.body + "] -> " +
                              std::to_string(res.status) + " " + res.body;
  FUZZ_CHECK(l.statuses.count(res.status) == 1, context);
  for (const auto& [name, value] : res.headers)
    FUZZ_CHECK(!http::detail::has_crlf(name) && !http::detail::has_crlf(value), context);
  if (res.status == 204) {
    FUZZ_CHECK(res.body.empty() && res.content_type.empty(), context);
    return;
  }
  FUZZ_CHECK(res.content_type == "application/json", context);
  const auto body = nlohmann::json::parse(res.body, nullptr, false);
  FUZZ_CHECK(body.is_object(), context);
  if (res.status == 405) FUZZ_CHECK(has_header(res, "Allow"), context);
  if (res.status < 400) return;
  switch (l.kind) {
    case style::controller:
      FUZZ_CHECK(body.size() == 1 && body["error"].is_string(), context);
      break;
    case style::notification:
      FUZZ_CHECK(body.size() == 2 && body["error"].is_string() && body["message"].is_string(),
                 context);
      break;
    case style::plant_store:
      FUZZ_CHECK(body.size() == 2 && body["error"] == res.status && body["message"].is_string(),
                 context);
      FUZZ_CHECK(body["message"] != "Internal error", context);
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
    caf::anon_send(l.gateway, http::call{req, std::move(respond)});
    w.sched.run();
    FUZZ_CHECK(got->count == 1, req.method + " " + req.target + ": answered " +
                                    std::to_string(got->count) + " times");
    check_answer(l, req, got->last);
    if (verbose) {
      std::fprintf(stderr, "%s %s -> %d %s\n", req.method.c_str(), req.target.c_str(),
                   got->last.status, got->last.body.c_str());
    }
  }
}

// http_session::to_request, which is private to the session template.
http::request to_request(bhttp::request<bhttp::string_body>& message) {
  http::request req;
  req.method = std::string(message.method_string());
  req.target = std::string(message.target());
  const auto question = req.target.find('?');
  req.path = http::detail::percent_decode(std::string_view(req.target).substr(0, question));
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
  connection(w, bytes);
  const std::string fitted = with_fitting_length(bytes);
  if (!fitted.empty() && fitted != bytes) connection(w, fitted);
  return 0;
}
