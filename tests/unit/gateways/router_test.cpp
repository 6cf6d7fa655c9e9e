#include "gateways/http/router.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <caf/all.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "actors/auth/session_table.hpp"
#include "actors/mixer/mixer_actor.hpp"
#include "gateways/controller/controller_listener.hpp"
#include "gateways/plants/plants_listener.hpp"
#include "gateways/toast/toast_listener.hpp"
#include "protocol/json.hpp"
#include "protocol/toast.hpp"
#include "tests/unit/support/actors.hpp"
#include "tests/unit/support/files.hpp"
#include "tests/unit/support/io_thread.hpp"
#include "tests/unit/support/router_fixture.hpp"
#include "tests/unit/support/toast_handlers.hpp"

using json = nlohmann::json;
namespace http = mixerd::http;
using http::listener_kind;
using http::match_pattern;
using mixerd::test::body_of;
using mixerd::test::header_of;
using mixerd::test::receive_within;
using mixerd::test::router_fixture;
using namespace std::chrono_literals;

// ---- Patterns ---------------------------------------------------------------------------------

namespace {

// The parameters' text when `path` matches `pattern`, nullopt when it does not.
std::optional<std::vector<std::string>> matched(std::string_view pattern, std::string_view path) {
  std::vector<std::string> segments{"left over"};
  if (!match_pattern(pattern, path, segments)) return std::nullopt;
  return segments;
}

using texts = std::vector<std::string>;

}  // namespace

TEST_CASE("match_pattern: literal segments match exactly") {
  CHECK(matched("/api/sliders", "/api/sliders") == texts{});
  CHECK_FALSE(matched("/api/sliders", "/api/slider"));
  CHECK_FALSE(matched("/api/sliders", "/api/sliders2"));
  CHECK_FALSE(matched("/api/sliders", "/api/Sliders"));
  CHECK_FALSE(matched("/api/sliders", "/api"));
  CHECK_FALSE(matched("/api/sliders", "/api/sliders/1"));
  CHECK_FALSE(matched("/api/sliders", "api/sliders"));
  CHECK_FALSE(matched("/api/sliders", ""));
  CHECK(matched("/", "/") == texts{});
}

TEST_CASE("match_pattern: slashes are exact, no segment is skipped or added") {
  CHECK_FALSE(matched("/api/sliders", "/api/sliders/"));
  CHECK_FALSE(matched("/api/sliders", "//api/sliders"));
  CHECK_FALSE(matched("/api/sliders", "/api//sliders"));
  CHECK_FALSE(matched("/plants/{id}", "/plants//1"));
  CHECK_FALSE(matched("/plants/{id}", "/plants/1/"));
  CHECK_FALSE(matched("/plants/{id}", "/plants"));
  // A parameter may be an empty segment: its range check or handler answers it (400).
  CHECK(matched("/plants/{id}", "/plants/") == texts{""});
  CHECK(matched("/api/sliders/{index:1-4}", "/api/sliders/") == texts{""});
}

TEST_CASE("match_pattern: {name} and {name:lo-hi} take one segment's text") {
  CHECK(matched("/plants/{id}", "/plants/42") == texts{"42"});
  CHECK(matched("/plants/{id}", "/plants/-7") == texts{"-7"});
  CHECK(matched("/plants/{id}", "/plants/a%2Fb") == texts{"a%2Fb"});
  CHECK(matched("/api/toast/handlers/{id}", "/api/toast/handlers/system") == texts{"system"});
  // The range is checked by the router after the credentials (a 400 naming the parameter), not
  // by the match: any text matches.
  CHECK(matched("/api/sliders/{index:1-4}", "/api/sliders/2") == texts{"2"});
  CHECK(matched("/api/sliders/{index:1-4}", "/api/sliders/9") == texts{"9"});
  CHECK(matched("/api/sliders/{index:1-4}", "/api/sliders/x") == texts{"x"});
  CHECK(matched("/api/sliders/{index:1-4}/assignment", "/api/sliders/3/assignment") == texts{"3"});
  CHECK_FALSE(matched("/api/sliders/{index:1-4}/assignment", "/api/sliders/3"));
  CHECK_FALSE(matched("/api/sliders/{index:1-4}/assignment", "/api/sliders/3/assignments"));
  CHECK(matched("/a/{x}/b/{y}", "/a/1/b/2") == texts{"1", "2"});
}

TEST_CASE("match_pattern: decoding, each segment on its own") {
  auto decoded = [](std::string_view pattern, std::string_view path) {
    std::vector<std::string> segments;
    return match_pattern(pattern, path, segments, true) ? std::optional<texts>(segments)
                                                        : std::nullopt;
  };
  // An encoded '/' is part of its segment, never a separator.
  CHECK(decoded("/api/profiles/{name}", "/api/profiles/a%2Fb") == texts{"a/b"});
  CHECK(decoded("/api/profiles/{name}", "/api/profiles/%2E%2E%2Fx") == texts{"../x"});
  CHECK(decoded("/api/profiles/{name}", "/api/profiles/Late%20night") == texts{"Late night"});
  CHECK(decoded("/api/profiles/{name}", "/api/profiles/%E2%9C%BF") == texts{"\xE2\x9C\xBF"});
  CHECK_FALSE(decoded("/api/profiles/{name}", "/api/profiles/a/b"));
  CHECK_FALSE(decoded("/api/sliders/{index:1-4}", "/api/sliders%2F1"));
  // Literal segments compare decoded; a '+' is no space in a path.
  CHECK(decoded("/api/profiles", "/api/%70rofiles") == texts{});
  CHECK(decoded("/api/profiles/{name}", "/api/profiles/a+b") == texts{"a+b"});
  // The rest of the path is decoded whole (serve_files then refuses what leaves its folder).
  CHECK(decoded("/static/{path*}", "/static/a%2F..%2Fb") == texts{"a/../b"});
}

TEST_CASE("match_pattern: {rest*} takes the rest of the path, even nothing") {
  CHECK(matched("/static/{path*}", "/static/css/site.css") == texts{"css/site.css"});
  CHECK(matched("/static/{path*}", "/static/") == texts{""});
  CHECK(matched("/static/{path*}", "/static/a//b/") == texts{"a//b/"});
  CHECK(matched("/{path*}", "/") == texts{""});
  CHECK(matched("/{path*}", "/index.html") == texts{"index.html"});
  CHECK_FALSE(matched("/static/{path*}", "/static"));
  CHECK_FALSE(matched("/static/{path*}", "/other/x"));
}

// ---- Route tables -----------------------------------------------------------------------------

namespace {

struct documented_route {
  listener_kind listener;
  std::string method;
  std::string path;  // as docs/api.md names it, e.g. "/api/sliders/{index}"
  bool needs_credentials;
};

// The routes that answer without credentials: login and what the login page loads, the
// notification API's health check, and the plant store (its actor checks the bearer token).
// Every other route needs a session with login on (controller) or the API key (notification): a
// new route is private unless it is listed here.
using route_key = std::tuple<listener_kind, std::string, std::string>;
const std::set<route_key>& public_routes() {
  static const std::set<route_key> routes = {
      {listener_kind::controller, "GET", "/api/auth/status"},
      {listener_kind::controller, "POST", "/api/auth/login"},
      {listener_kind::controller, "POST", "/api/auth/logout"},
      // The first password comes from any client; a change is checked by the route itself.
      {listener_kind::controller, "POST", "/api/auth/password"},
      {listener_kind::controller, "GET", "/login"},
      {listener_kind::controller, "GET", "/assets/{path}"},
      {listener_kind::toast, "GET", "/api/toast/health"},
      {listener_kind::plants, "DELETE", "/plants/{id}"},
  };
  return routes;
}

std::set<route_key> headings_of_api_md();

// Every endpoint the API reference documents, and whether it needs credentials.
const std::vector<documented_route>& documented_routes() {
  static const std::vector<documented_route> routes = [] {
    std::vector<documented_route> out;
    for (const auto& [kind, method, path] : headings_of_api_md())
      out.push_back({kind, method, path, public_routes().count({kind, method, path}) == 0});
    return out;
  }();
  return routes;
}

// A concrete path for a documented one: each {parameter} becomes "1" ({id} of a handler:
// "system").
std::string example_path(const documented_route& r) {
  std::string out;
  std::string_view path = r.path;
  while (!path.empty()) {
    auto open = path.find('{');
    out += path.substr(0, open);
    if (open == std::string_view::npos) break;
    auto close = path.find('}', open);
    out += r.listener == listener_kind::toast ? "system" : "1";
    path.remove_prefix(close + 1);
  }
  return out;
}

// The route a request would be served by: the first whose pattern and method match.
const http::route* served_by(listener_kind kind, const std::string& method,
                             const std::string& path) {
  std::vector<std::string> segments;
  for (const auto& r : http::routes_of(kind))
    if (r.method == method && match_pattern(r.pattern, path, segments)) return &r;
  return nullptr;
}

// The "#### GET /api/sliders" headings of the API reference: docs/api.md by section (2
// controller, 4 notification, 5 plant store), and each page of docs/api/ (one per capability
// added since, its routes on the controller).
void read_headings(const std::filesystem::path& file, std::optional<listener_kind> section,
                   std::set<route_key>& out) {
  std::ifstream in(file);
  REQUIRE_MESSAGE(in.good(), "cannot read " << file.string());
  const bool by_section = !section;
  for (std::string line; std::getline(in, line);) {
    if (by_section && line.rfind("## ", 0) == 0) {
      section.reset();
      if (line.rfind("## 2.", 0) == 0) section = listener_kind::controller;
      if (line.rfind("## 4.", 0) == 0) section = listener_kind::toast;
      if (line.rfind("## 5.", 0) == 0) section = listener_kind::plants;
      continue;
    }
    if (!section || line.rfind("#### ", 0) != 0) continue;
    std::istringstream words(line.substr(5));
    std::string method;
    std::string path;
    words >> method >> path;
    if (method == "GET" || method == "POST" || method == "DELETE" || method == "PUT" ||
        method == "PATCH")
      out.emplace(*section, method, path);
  }
}

std::set<route_key> headings_of_api_md() {
  const std::filesystem::path docs = std::string(MIXERD_SOURCE_DIR) + "/docs";
  std::set<route_key> out;
  read_headings(docs / "api.md", std::nullopt, out);
  std::error_code ec;
  for (const auto& page : std::filesystem::directory_iterator(docs / "api", ec))
    if (page.path().extension() == ".md")
      read_headings(page.path(), listener_kind::controller, out);
  return out;
}

const char* name_of(listener_kind kind) {
  switch (kind) {
    case listener_kind::controller:
      return "controller";
    case listener_kind::toast:
      return "notification";
    case listener_kind::plants:
      return "plant store";
  }
  return "?";
}

}  // namespace

TEST_CASE("the reference documents every public route") {
  const auto headings = headings_of_api_md();
  CHECK(headings.size() > public_routes().size());
  for (const auto& [kind, method, path] : public_routes()) {
    CAPTURE(name_of(kind));
    CAPTURE(method);
    CAPTURE(path);
    CHECK(headings.count({kind, method, path}) == 1);
  }
}

TEST_CASE("every documented route is registered with its method and credential flag") {
  for (const auto& doc : documented_routes()) {
    const auto path = example_path(doc);
    CAPTURE(name_of(doc.listener));
    CAPTURE(doc.method);
    CAPTURE(path);
    const auto* r = served_by(doc.listener, doc.method, path);
    REQUIRE_MESSAGE(r != nullptr, "not registered");
    CHECK(r->needs_credentials == doc.needs_credentials);
    CHECK(static_cast<bool>(r->handler));
    // Registered on its own listener only.
    for (auto other : {listener_kind::controller, listener_kind::toast, listener_kind::plants})
      if (other != doc.listener) CHECK(served_by(other, doc.method, path) == nullptr);
  }
}

TEST_CASE("no listener has a route that is not documented") {
  for (auto kind : {listener_kind::controller, listener_kind::toast, listener_kind::plants}) {
    CAPTURE(name_of(kind));
    for (const auto& r : http::routes_of(kind)) {
      CAPTURE(r.method);
      CAPTURE(r.pattern);
      bool documented = false;
      for (const auto& doc : documented_routes()) {
        std::vector<std::string> segments;
        if (doc.listener == kind && doc.method == r.method &&
            match_pattern(r.pattern, example_path(doc), segments))
          documented = true;
      }
      CHECK(documented);
    }
  }
  // And no route twice: as many routes as documented ones.
  for (auto kind : {listener_kind::controller, listener_kind::toast, listener_kind::plants}) {
    CAPTURE(name_of(kind));
    const auto documented =
        std::count_if(documented_routes().begin(), documented_routes().end(),
                      [&](const documented_route& d) { return d.listener == kind; });
    CHECK(http::routes_of(kind).size() == static_cast<std::size_t>(documented));
  }
}

TEST_CASE(
    "slider and mute indices are 1 to 4, macro slots 0 to 8, and literal paths come before "
    "parameters") {
  CHECK(served_by(listener_kind::controller, "POST", "/api/mutes/master")->pattern ==
        "/api/mutes/master");
  CHECK(served_by(listener_kind::controller, "POST", "/api/mutes/3")->pattern ==
        "/api/mutes/{index:1-4}");
  CHECK(served_by(listener_kind::controller, "PUT", "/api/macros/pages/2")->pattern ==
        "/api/macros/pages/{page:0-3}");
  CHECK(served_by(listener_kind::controller, "PUT", "/api/macros/2/8")->pattern ==
        "/api/macros/{page:0-3}/{index:0-8}");
  for (const auto& r : http::routes_of(listener_kind::controller)) {
    CAPTURE(r.pattern);
    const bool macro = r.pattern.rfind("/api/macros/", 0) == 0;
    if (r.pattern.find("{index") != std::string_view::npos)
      CHECK(r.pattern.find(macro ? "{index:0-8}" : "{index:1-4}") != std::string_view::npos);
    if (r.pattern.find("{page") != std::string_view::npos)
      CHECK(r.pattern.find("{page:0-3}") != std::string_view::npos);
  }
}

// ---- The router at work -------------------------------------------------------------------------

namespace {

mixerd::mixer_snapshot sample_mix() {
  auto mix = mixerd::mixer_from_settings(
      {{"sliders", {{{"label", "Music"}, {"assignment", {{"type", "app"}, {"names", {"vlc"}}}}}}},
       {"mutes", {{"individual", {false, true, false, false}}, {"master", false}}},
       {"master_volume", 33}});
  mix.sliders[0].value = 61;
  return mix;
}

}  // namespace

TEST_CASE_FIXTURE(router_fixture, "controller: reads are answered from the published views") {
  dir.slot(mixerd::mixer_view_of(sample_mix()));
  use(mixerd::controller::listener_policy(false));
  // No mixer actor runs: the answers come from the view alone.
  REQUIRE_FALSE(dir.get<mixerd::mixer_actor>());

  auto sliders = call("GET", "/api/sliders");
  CHECK(sliders.status == 200);
  CHECK(sliders.content_type == "application/json");
  CHECK(body_of(sliders) == mixerd::json::sliders_to_json(sample_mix()));
  CHECK(body_of(sliders)["sliders"][0]["value"] == 61);
  CHECK(body_of(sliders)["sliders"][0]["label"] == "Music");
  // The same bytes again (encoded once per view).
  CHECK(call("GET", "/api/sliders").body == sliders.body);
  // HEAD is served wherever GET is.
  CHECK(call("HEAD", "/api/sliders").status == 200);

  CHECK(body_of(call("GET", "/api/mutes")) ==
        json{{"individual", {false, true, false, false}}, {"master", false}});
  CHECK(body_of(call("GET", "/api/volume/master")) == json{{"volume", 33}});
  CHECK(body_of(call("GET", "/api/sliders/1/assignment")) ==
        json{{"type", "app"}, {"names", {"vlc"}}});
  // Every answer of this listener carries the CORS headers.
  CHECK_FALSE(header_of(sliders, "Access-Control-Allow-Origin").empty());
}

TEST_CASE_FIXTURE(router_fixture, "controller: without a mixer view the mixer's reads are 503") {
  use(mixerd::controller::listener_policy(false));
  auto res = call("GET", "/api/mutes");
  CHECK(res.status == 503);
  CHECK(body_of(res) == json{{"error", "The mixer is not running"}});
  // Status and sessions have their empty shapes without views.
  auto status = call("GET", "/api/status");
  CHECK(status.status == 200);
  CHECK(body_of(status)["connected"] == false);
  CHECK(body_of(status)["audio_connected"] == false);
  CHECK(body_of(call("GET", "/api/audio/sessions"))["sessions"] == json::array());
}

TEST_CASE_FIXTURE(router_fixture, "controller: 404 for unknown and inexact paths, 405 with Allow") {
  dir.slot(mixerd::mixer_view_of(sample_mix()));
  use(mixerd::controller::listener_policy(false));
  for (const char* path : {"/api/nothing", "/api/sliders/1/assignment/", "/api//sliders",
                           "/api/volume/master/", "/api/volume"}) {
    CAPTURE(path);
    auto res = call("GET", path);
    CHECK(res.status == 404);
    CHECK(body_of(res) == json{{"error", std::string("Not found: ") + path}});
  }
  auto del = call("DELETE", "/api/sliders");
  CHECK(del.status == 405);
  CHECK(header_of(del, "Allow") == "GET");
  CHECK(body_of(del) == json{{"error", "Method DELETE is not allowed on /api/sliders"}});
  auto put = call("PUT", "/api/volume/master");
  CHECK(put.status == 405);
  CHECK(header_of(put, "Allow") == "GET, POST");
  auto get_slider = call("GET", "/api/sliders/2");
  CHECK(get_slider.status == 405);
  CHECK(header_of(get_slider, "Allow") == "POST");
}

TEST_CASE_FIXTURE(router_fixture, "controller: a bad index is a 400 naming it") {
  dir.slot(mixerd::mixer_view_of(sample_mix()));
  use(mixerd::controller::listener_policy(false));
  const json refused = {{"error", "index must be an integer from 1 to 4"}};
  for (const char* target : {"/api/sliders/9", "/api/sliders/0", "/api/sliders/x", "/api/sliders/",
                             "/api/sliders/+1", "/api/mutes/5"}) {
    CAPTURE(target);
    auto res = call("POST", target, {}, R"({"value": 5})");
    CHECK(res.status == 400);
    CHECK(body_of(res) == refused);
  }
  auto res = call("GET", "/api/sliders/9/assignment");
  CHECK(res.status == 400);
  CHECK(body_of(res) == refused);
}

TEST_CASE_FIXTURE(router_fixture, "controller: a write asks the mixer through the io actor") {
  caf::scoped_actor mixer{actors.sys};
  dir.add(caf::actor_cast<mixerd::mixer_actor>(caf::actor{mixer}));
  use(mixerd::controller::listener_policy(false));
  auto answer = send("POST", "/api/sliders/2", {}, R"({"value": 75})");
  mixerd::set_slider_value asked;
  REQUIRE(receive_within(mixer, [&](const mixerd::set_slider_value& req) {
    asked = req;
    return 74;  // what the mixer says is now in effect
  }));
  CHECK(asked.index == 1);  // 0-based in requests
  CHECK(asked.value == 75);
  auto res = wait(answer);
  CHECK(res.status == 200);
  CHECK(body_of(res) == json{{"success", true}, {"index", 2}, {"value", 74}});

  // A body that fails its checks never reaches the mixer.
  auto bad = call("POST", "/api/sliders/2", {}, R"({"value": 101})");
  CHECK(bad.status == 400);
  CHECK(body_of(bad) == json{{"error", "value must be an integer from 0 to 100"}});
  mixer->receive([](const mixerd::set_slider_value&) { FAIL("the mixer was asked"); },
                 caf::after(0ms) >> [] {});
}

TEST_CASE_FIXTURE(router_fixture, "controller: a mixer that is gone is a 503") {
  {
    caf::scoped_actor gone{actors.sys};
    dir.add(caf::actor_cast<mixerd::mixer_actor>(caf::actor{gone}));
  }
  use(mixerd::controller::listener_policy(false));
  auto res = call("POST", "/api/mutes/master");
  CHECK(res.status == 503);
  CHECK(body_of(res) == json{{"error", "The daemon is stopping"}});
}

TEST_CASE_FIXTURE(router_fixture,
                  "controller: with login on a session is needed, except for login") {
  dir.slot(mixerd::mixer_view_of(sample_mix()));
  mixerd::auth_view table;
  table.enabled = true;
  table.password_set = true;
  table.sessions[mixerd::auth::session_digest("good-session")] = {
      "admin", std::make_shared<std::atomic<std::int64_t>>(mixerd::auth::steady_ms()), 0,
      "127.0.0.1", 0};
  dir.slot(std::move(table));
  use(mixerd::controller::listener_policy(false));

  const json required = {{"error", "Authentication required"}};
  auto res = call("GET", "/api/sliders");
  CHECK(res.status == 401);
  CHECK(body_of(res) == required);
  // Login comes before the index check, the path and method before login.
  CHECK(call("POST", "/api/sliders/9").status == 401);
  CHECK(call("GET", "/api/nothing").status == 404);
  CHECK(call("DELETE", "/api/sliders").status == 405);
  // A cookie that names no session is refused; one that does is accepted.
  CHECK(call("GET", "/api/sliders", {{"Cookie", "controller_session=bad"}}).status == 401);
  auto ok = call("GET", "/api/sliders", {{"Cookie", "x=1; controller_session=good-session"}});
  CHECK(ok.status == 200);
  CHECK(body_of(ok) == mixerd::json::sliders_to_json(sample_mix()));
  // ... but not from another site's page.
  CHECK(call("GET", "/api/sliders",
             {{"Cookie", "controller_session=good-session"},
              {"Origin", "http://evil.example"},
              {"Host", "127.0.0.1:5000"}})
            .status == 401);
  // The login routes need no session.
  auto status = call("GET", "/api/auth/status");
  CHECK(status.status == 200);
  CHECK(body_of(status) == json{{"auth_enabled", true},
                                {"authenticated", false},
                                {"username", nullptr},
                                {"password_set", true}});
  auto mine = call("GET", "/api/auth/status", {{"Cookie", "controller_session=good-session"}});
  CHECK(body_of(mine) == json{{"auth_enabled", true},
                              {"authenticated", true},
                              {"username", "admin"},
                              {"password_set", true}});
}

// ---- Notification listener: the gate asks the toast actor ------------------------------------

namespace {

struct notification_fixture : router_fixture {
  caf::scoped_actor toast{actors.sys};

  notification_fixture() {
    dir.add(caf::actor_cast<mixerd::toast_actor>(caf::actor{toast}));
    use(mixerd::toast_api::listener_policy(
        {"127.0.0.1", false, std::make_shared<const std::uint16_t>(8889)}));
  }

  // Plays the toast actor's admission: returns what it was asked.
  mixerd::toast_admit admit(mixerd::toast_admission verdict) {
    mixerd::toast_admit asked;
    REQUIRE_MESSAGE(receive_within(toast,
                                   [&](const mixerd::toast_admit& req) {
                                     asked = req;
                                     return verdict;
                                   }),
                    "the toast actor was not asked to admit the request");
    return asked;
  }
};

using verdict = mixerd::toast_admission::verdict;

}  // namespace

TEST_CASE_FIXTURE(notification_fixture, "notification: the health check needs no key") {
  auto answer = send("GET", "/api/toast/health");
  auto asked = admit({verdict::ok, 0});
  CHECK(asked.address == "192.0.2.7");
  CHECK_FALSE(asked.needs_key);
  auto res = wait(answer);
  CHECK(res.status == 200);
  CHECK(body_of(res) == json{{"status", "ok"}, {"version", "1.0"}, {"port", 8889}});
}

TEST_CASE_FIXTURE(notification_fixture, "notification: over the rate limit is 429") {
  auto answer = send("GET", "/api/toast/health");
  admit({verdict::rate_limited, 17});
  auto res = wait(answer);
  CHECK(res.status == 429);
  CHECK(header_of(res, "Retry-After") == "17");
  CHECK(body_of(res) == json{{"error", "Rate limited"}, {"message", "Too many requests"}});
}

TEST_CASE_FIXTURE(notification_fixture, "notification: a missing or wrong key is 401") {
  auto missing = send("GET", "/api/toast/status");
  auto asked = admit({verdict::unauthorized, 0});
  CHECK(asked.needs_key);
  CHECK(asked.api_key.empty());
  auto res = wait(missing);
  CHECK(res.status == 401);
  CHECK(body_of(res) == json{{"error", "Unauthorized"},
                             {"message",
                              "Missing API key: send it in the X-API-Key header or the api_key "
                              "query parameter"}});

  auto wrong = send("GET", "/api/toast/status", {{"x-api-key", "nope"}});
  CHECK(admit({verdict::unauthorized, 0}).api_key == "nope");
  res = wait(wrong);
  CHECK(res.status == 401);
  CHECK(body_of(res)["message"] == "Invalid API key");

  // The query parameter is percent-decoded; the header wins over it.
  auto by_query = send("GET", "/api/toast/status?x=1&api_key=a%2Bb+c");
  CHECK(admit({verdict::unauthorized, 0}).api_key == "a+b c");
  wait(by_query);
  auto both = send("GET", "/api/toast/status?api_key=query", {{"X-API-Key", "header"}});
  CHECK(admit({verdict::unauthorized, 0}).api_key == "header");
  wait(both);
}

TEST_CASE_FIXTURE(notification_fixture, "notification: unknown paths count, then are 404") {
  auto answer = send("GET", "/api/toast/nothing");
  CHECK_FALSE(admit({verdict::ok, 0}).needs_key);
  auto res = wait(answer);
  CHECK(res.status == 404);
  CHECK(body_of(res) ==
        json{{"error", "Not found"}, {"message", "No such endpoint: /api/toast/nothing"}});
  auto wrong_method = send("DELETE", "/api/toast/send");
  admit({verdict::ok, 0});
  res = wait(wrong_method);
  CHECK(res.status == 405);
  CHECK(header_of(res, "Allow") == "POST");
}

TEST_CASE_FIXTURE(notification_fixture, "notification: handlers come from the toast view") {
  // The router reads the directory at each request.
  dir.slot(mixerd::toast_view{mixerd::test::every_toast_handler()});
  auto answer = send("GET", "/api/toast/handlers", {{"X-API-Key", "k"}});
  admit({verdict::ok, 0});
  auto res = wait(answer);
  CHECK(res.status == 200);
  auto body = body_of(res);
  CHECK(body["status"] == "success");
  REQUIRE(body["handlers"].size() == 6);
  CHECK(body["handlers"][0] ==
        mixerd::toast::handler_to_json(mixerd::test::every_toast_handler()[0]));
}

// ---- Plant store listener ---------------------------------------------------------------------

TEST_CASE_FIXTURE(router_fixture, "plant store: exact paths, DELETE only, the bearer first") {
  use(mixerd::plants_api::listener_policy());
  for (const char* path : {"/plants", "/plants//1", "/plants/1/", "/plant/1"}) {
    CAPTURE(path);
    auto res = call("DELETE", path);
    CHECK(res.status == 404);
    CHECK(body_of(res) ==
          json{{"error", 404}, {"message", std::string("No such endpoint: ") + path}});
  }
  auto get = call("GET", "/plants/1");
  CHECK(get.status == 405);
  CHECK(header_of(get, "Allow") == "DELETE");
  auto head = call("HEAD", "/plants/1");
  CHECK(head.status == 405);
  auto unauthorized = call("DELETE", "/plants/1");
  CHECK(unauthorized.status == 401);
  CHECK(header_of(unauthorized, "WWW-Authenticate") == "Bearer");
}
