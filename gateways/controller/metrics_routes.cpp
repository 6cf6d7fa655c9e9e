// GET /metrics: the daemon's counters (protocol/metrics.hpp) in the Prometheus text format. It
// reads atomics and the device's published status only, so a scrape costs no actor a message.
// Credentials: the controller's login rule, or the metrics_token as a bearer token
// (controller_listener.cpp).
#include <map>
#include <tuple>

#include "gateways/controller/controller_listener.hpp"
#include "protocol/metrics.hpp"
#include "protocol/types.hpp"

namespace mixerd::controller {

namespace {

constexpr std::string_view listener_names[] = {"controller", "notification", "plant_store"};

// Requests summed over the methods of a pattern (GET and POST /api/sliders/{index:1-4} are one
// route label), so that no two samples share their labels.
void write_requests(metrics::exposition& out) {
  out.family("mixerd_http_requests_total",
             "HTTP requests answered, by listener, route pattern and status.", "counter");
  std::map<std::tuple<std::string_view, std::string_view, int>, std::uint64_t> sums;
  for (const auto& row : metrics::requests().rows()) {
    const auto listener = listener_names[row.listener];
    const auto& routes = http::routes_of(static_cast<http::listener_kind>(row.listener));
    const std::string_view pattern =
        row.route < routes.size() ? routes[row.route].pattern : std::string_view("unmatched");
    sums[{listener, pattern, row.status}] += row.count;
  }
  for (const auto& [key, count] : sums) {
    const auto& [listener, pattern, status] = key;
    out.sample("mixerd_http_requests_total",
               {{"listener", std::string(listener)},
                {"route", std::string(pattern)},
                {"status", status == 0 ? std::string("other") : std::to_string(status)}},
               count);
  }
}

void get_metrics(http::exchange& x) {
  auto& c = metrics::process();
  metrics::exposition out;
  out.family("mixerd_build_info", "The running mixerd's version (the value is always 1).", "gauge");
  out.sample("mixerd_build_info", {{"version", std::string(app_version)}}, std::uint64_t{1});
  out.family("mixerd_start_time_seconds", "When the process started, in Unix seconds.", "gauge");
  out.sample("mixerd_start_time_seconds", {}, metrics::start_time_seconds());
  write_requests(out);
  out.family("mixerd_socketio_clients", "Open Socket.IO connections.", "gauge");
  const auto clients = c.socketio_clients.load(std::memory_order_relaxed);
  out.sample("mixerd_socketio_clients", static_cast<std::uint64_t>(clients < 0 ? 0 : clients));
  out.family("mixerd_socketio_events_sent_total",
             "Live events sent to Socket.IO clients (one per client and event).", "counter");
  out.sample("mixerd_socketio_events_sent_total", metrics::read(c.socketio_events_sent));
  // Each capability's own families, in the order of the rows.
  for (auto write : x.dir.metrics())
    write(x.dir, out);
  http::response res;
  res.content_type = std::string(metrics::content_type);
  res.headers = {{"Cache-Control", "no-store"}};
  res.body = out.text();
  x.respond(std::move(res));
}

http::route metrics_route() {
  http::route r{"GET", "/metrics", true, get_metrics};
  r.accepts_metrics_token = true;
  return r;
}

const http::route_registration routes{http::listener_kind::controller, {metrics_route()}};

}  // namespace

}  // namespace mixerd::controller
