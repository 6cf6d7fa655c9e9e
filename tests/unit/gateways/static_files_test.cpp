// The static-file handler (serve_files) and the web controller's routes on the controller
// listener: types, tags and 304, the stored gzip copies, the folder fence, and the login rule.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actors/auth/session_table.hpp"
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/router.hpp"
#include "tests/unit/support/files.hpp"
#include "tests/unit/support/router_fixture.hpp"

using json = nlohmann::json;
namespace http = mixerd::http;
using mixerd::test::body_of;
using mixerd::test::header_of;
using mixerd::test::router_fixture;

TEST_CASE_FIXTURE(router_fixture, "static files: a route's folder, never outside it") {
  mixerd::test::temp_dir root;
  std::filesystem::create_directories(root.file("web/sub"));
  mixerd::test::write_file(root.file("web/index.html"), "<p>home</p>");
  mixerd::test::write_file(root.file("web/app.js"), "let x = 1;");
  mixerd::test::write_file(root.file("web/sub/index.html"), "<p>sub</p>");
  mixerd::test::write_file(root.file("web/data.bin"), "01");
  mixerd::test::write_file(root.file("secret.txt"), "secret");
  auto p = mixerd::controller::listener_policy(false);
  p.static_root = root.path();
  const http::route r{"GET", "/{path*}", false, http::serve_files, "web"};
  std::vector<std::pair<std::string, std::string>> request_headers;

  // What serve_files answers for the rest of the path `rest` (the {path*} parameter).
  auto serve = [&](const std::string& rest) {
    std::optional<http::response> out;
    http::request req;
    req.method = "GET";
    req.path = "/" + rest;
    req.headers = request_headers;
    http::exchange x{std::move(req),
                     [&](http::response res) { out = std::move(res); },
                     dir,
                     runner,
                     *actor,
                     p,
                     {rest},
                     {},
                     {},
                     &r};
    http::serve_files(x);
    REQUIRE(out.has_value());
    return *out;
  };

  auto home = serve("");
  CHECK(home.status == 200);
  CHECK(home.body == "<p>home</p>");
  CHECK(home.content_type == "text/html; charset=utf-8");
  // Always revalidated (cheap with the tag); never framed, sniffed or fed from elsewhere.
  CHECK(header_of(home, "Cache-Control") == "no-cache");
  CHECK(header_of(home, "ETag").size() > 2);
  CHECK(header_of(home, "X-Content-Type-Options") == "nosniff");
  CHECK(header_of(home, "Content-Security-Policy").find("default-src 'self'") == 0);
  CHECK(header_of(home, "Content-Security-Policy").find("frame-ancestors 'none'") !=
        std::string::npos);
  CHECK(serve("index.html").body == "<p>home</p>");
  auto js = serve("app.js");
  CHECK(js.body == "let x = 1;");
  CHECK(js.content_type == "text/javascript; charset=utf-8");
  CHECK(serve("data.bin").content_type == "application/octet-stream");
  CHECK(serve("sub/").body == "<p>sub</p>");
  for (const std::string& rest :
       {std::string("sub"), std::string("missing.css"), std::string("../secret.txt"),
        std::string("sub/../../secret.txt"), std::string(".."), std::string("sub/.."),
        std::string("..\\secret.txt"), std::string("app.js\0", 7), std::string("app.js/")}) {
    CAPTURE(rest);
    auto res = serve(rest);
    CHECK(res.status == 404);
    CHECK(body_of(res) == json{{"error", "Not found: /" + rest}});
  }
}

TEST_CASE_FIXTURE(router_fixture, "static files: a stored tag answers 304, a changed file 200") {
  mixerd::test::temp_dir root;
  std::filesystem::create_directories(root.file("assets"));
  mixerd::test::write_file(root.file("assets/app.js"), "let x = 1;");
  use(mixerd::controller::listener_policy(false));
  policy->static_root = root.path();
  router = http::make_router(runner, *actor, *policy);

  auto fresh = call("GET", "/assets/app.js");
  REQUIRE(fresh.status == 200);
  const auto tag = header_of(fresh, "ETag");
  REQUIRE(tag.size() > 2);

  auto again = call("GET", "/assets/app.js", {{"If-None-Match", tag}});
  CHECK(again.status == 304);
  CHECK(again.body.empty());
  CHECK(header_of(again, "ETag") == tag);
  CHECK(call("GET", "/assets/app.js", {{"If-None-Match", "\"other\", W/" + tag}}).status == 304);
  CHECK(call("GET", "/assets/app.js", {{"If-None-Match", "\"other\""}}).status == 200);

  // A new build of the file has another tag: the browser's copy is not reused.
  mixerd::test::write_file(root.file("assets/app.js"), "let x = 22;");
  auto changed = call("GET", "/assets/app.js", {{"If-None-Match", tag}});
  CHECK(changed.status == 200);
  CHECK(changed.body == "let x = 22;");
  CHECK(header_of(changed, "ETag") != tag);
}

TEST_CASE_FIXTURE(router_fixture, "static files: the stored gzip copy goes to who accepts it") {
  mixerd::test::temp_dir root;
  std::filesystem::create_directories(root.file("assets"));
  const std::string plain = "body { color: red; }";
  const std::string packed("\x1f\x8b\x08\x00packed", 10);
  mixerd::test::write_file(root.file("assets/site.css"), plain);
  mixerd::test::write_file(root.file("assets/site.css.gz"), packed);
  mixerd::test::write_file(root.file("assets/small.css"), "p {}");
  use(mixerd::controller::listener_policy(false));
  policy->static_root = root.path();
  router = http::make_router(runner, *actor, *policy);

  auto zipped = call("GET", "/assets/site.css", {{"Accept-Encoding", "gzip, deflate, br"}});
  CHECK(zipped.status == 200);
  CHECK(zipped.body == packed);
  CHECK(zipped.content_type == "text/css; charset=utf-8");
  CHECK(header_of(zipped, "Content-Encoding") == "gzip");
  CHECK(header_of(zipped, "Vary") == "Accept-Encoding");
  auto as_is = call("GET", "/assets/site.css");
  CHECK(as_is.body == plain);
  CHECK(header_of(as_is, "Content-Encoding").empty());
  CHECK(header_of(as_is, "Vary") == "Accept-Encoding");
  CHECK(header_of(as_is, "ETag") != header_of(zipped, "ETag"));
  CHECK(call("GET", "/assets/site.css", {{"Accept-Encoding", "gzip;q=0"}}).body == plain);
  // Each form revalidates against its own tag.
  CHECK(call("GET", "/assets/site.css",
             {{"Accept-Encoding", "gzip"}, {"If-None-Match", header_of(zipped, "ETag")}})
            .status == 304);
  CHECK(call("GET", "/assets/site.css", {{"If-None-Match", header_of(zipped, "ETag")}}).status ==
        200);
  // A file without a stored copy goes as it is.
  auto small = call("GET", "/assets/small.css", {{"Accept-Encoding", "gzip"}});
  CHECK(small.body == "p {}");
  CHECK(header_of(small, "Content-Encoding").empty());
  CHECK(call("GET", "/assets/missing.css", {{"Accept-Encoding", "gzip"}}).status == 404);
}

TEST_CASE_FIXTURE(router_fixture,
                  "web controller: the page needs a session, its login form and "
                  "assets do not") {
  mixerd::test::temp_dir root;
  std::filesystem::create_directories(root.file("login"));
  std::filesystem::create_directories(root.file("assets"));
  mixerd::test::write_file(root.file("index.html"), "<p>page</p>");
  mixerd::test::write_file(root.file("login/index.html"), "<form></form>");
  mixerd::test::write_file(root.file("assets/app.js"), "go();");
  auto serve_from = [&](bool login_on) {
    mixerd::auth_view table;
    table.enabled = login_on;
    table.sessions[mixerd::auth::session_digest("good-session")] = {
        "admin", std::make_shared<std::atomic<std::int64_t>>(mixerd::auth::steady_ms()), 0,
        "127.0.0.1", 0};
    dir.slot(std::move(table));
    use(mixerd::controller::listener_policy(false));
    policy->static_root = root.path();
    router = http::make_router(runner, *actor, *policy);
  };

  serve_from(true);
  auto away = call("GET", "/", {{"Accept", "text/html"}});
  CHECK(away.status == 302);
  CHECK(header_of(away, "Location") == "/login");
  CHECK(header_of(away, "Cache-Control") == "no-store");
  CHECK(away.body.empty());
  CHECK(call("HEAD", "/").status == 302);
  CHECK(call("GET", "/", {{"Cookie", "controller_session=bad"}}).status == 302);
  auto page = call("GET", "/", {{"Cookie", "controller_session=good-session"}});
  CHECK(page.status == 200);
  CHECK(page.body == "<p>page</p>");
  auto form = call("GET", "/login");
  CHECK(form.status == 200);
  CHECK(form.body == "<form></form>");
  CHECK(call("GET", "/assets/app.js").body == "go();");
  // The API keeps answering 401 with its JSON body, and unknown paths stay 404.
  CHECK(call("GET", "/api/sliders", {{"Accept", "text/html"}}).status == 401);
  CHECK(call("GET", "/index.html").status == 404);
  CHECK(call("GET", "/assets/../index.html").status == 404);
  CHECK(call("POST", "/").status == 405);

  serve_from(false);
  CHECK(call("GET", "/").body == "<p>page</p>");
}
