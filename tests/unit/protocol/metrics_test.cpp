#include "protocol/metrics.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

using mixerd::metrics::escape_label;
using mixerd::metrics::exposition;
using mixerd::metrics::request_counts;

namespace {

std::uint64_t count_of(const request_counts& c, std::size_t listener, std::size_t route,
                       int status) {
  for (const auto& r : c.rows())
    if (r.listener == listener && r.route == route && r.status == status) return r.count;
  return 0;
}

}  // namespace

TEST_CASE("request counts: by listener, route and status, an untouched table has no rows") {
  auto c = std::make_unique<request_counts>();
  CHECK(c->rows().empty());
  c->count(0, 3, 200);
  c->count(0, 3, 200);
  c->count(0, 3, 404);
  c->count(1, 3, 200);
  c->count(0, request_counts::unmatched, 405);
  CHECK(count_of(*c, 0, 3, 200) == 2);
  CHECK(count_of(*c, 0, 3, 404) == 1);
  CHECK(count_of(*c, 1, 3, 200) == 1);
  CHECK(count_of(*c, 0, request_counts::unmatched, 405) == 1);
  CHECK(c->rows().size() == 4);
}

TEST_CASE("request counts: statuses past a route's slots are counted as other (status 0)") {
  auto c = std::make_unique<request_counts>();
  for (int i = 0; i < static_cast<int>(request_counts::statuses_per_route) + 2; ++i)
    c->count(2, 0, 400 + i);
  CHECK(count_of(*c, 2, 0, 400) == 1);
  CHECK(count_of(*c, 2, 0, 0) == 2);
  // A route index out of range is unmatched; a listener out of range is ignored.
  c->count(0, 100000, 200);
  c->count(7, 0, 200);
  CHECK(count_of(*c, 0, request_counts::unmatched, 200) == 1);
}

TEST_CASE("request counts: concurrent counting loses nothing and claims each status once") {
  auto c = std::make_unique<request_counts>();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&c, t] {
      for (int i = 0; i < 10000; ++i)
        c->count(0, 1, i % 2 == 0 ? 200 : 400 + t);
    });
  for (auto& t : threads)
    t.join();
  CHECK(count_of(*c, 0, 1, 200) == 20000);
  for (int t = 0; t < 4; ++t)
    CHECK(count_of(*c, 0, 1, 400 + t) == 5000);
  CHECK(c->rows().size() == 5);
}

TEST_CASE("exposition: HELP and TYPE lines, labels escaped, integers and doubles") {
  exposition out;
  out.family("mixerd_x_total", "Things.", "counter");
  out.sample("mixerd_x_total", {{"route", "/a/{b}"}, {"odd", "q\"\\\n"}}, std::uint64_t{3});
  out.sample("mixerd_x_total", std::uint64_t{0});
  out.family("mixerd_t", "A time.", "gauge");
  out.sample("mixerd_t", {}, 1.5);
  CHECK(out.text() ==
        "# HELP mixerd_x_total Things.\n"
        "# TYPE mixerd_x_total counter\n"
        "mixerd_x_total{route=\"/a/{b}\",odd=\"q\\\"\\\\\\n\"} 3\n"
        "mixerd_x_total 0\n"
        "# HELP mixerd_t A time.\n"
        "# TYPE mixerd_t gauge\n"
        "mixerd_t 1.5\n");
  CHECK(escape_label("plain") == "plain");
}

TEST_CASE("the process's start time is a plausible Unix time") {
  CHECK(mixerd::metrics::start_time_seconds() > 1.6e9);
}
