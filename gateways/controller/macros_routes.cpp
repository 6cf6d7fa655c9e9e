// Routes of the macros: the page set, the pages, the trigger and the edits (docs/api.md,
// "Macros"). Reads answer from the macro actor's published view; the trigger and the edits run
// the macros' commands (actors/macros/macros_commands.cpp).
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/limits.hpp"
#include "protocol/macros.hpp"
#include "protocol/validation.hpp"

namespace mixerd::controller {

namespace {

constexpr std::string_view page_refused =
    "The web controller cannot change the macro page: pages are switched on the device or in "
    "the desktop app";

void not_running(http::exchange& x) {
  x.respond(x.error(503, "The macros are not running"));
}

void get_macros(http::exchange& x) {
  auto latest = x.dir.view<macros_view>();
  if (!latest) return not_running(x);
  http::response res;
  res.body = latest->body.get([&] { return http::json_text(macros::to_json(latest->set)); });
  x.respond(std::move(res));
}

void get_pages(http::exchange& x) {
  auto latest = x.dir.view<macros_view>();
  if (!latest) return not_running(x);
  reply(x, macros::pages_to_json(latest->set));
}

void post_page(http::exchange& x) {
  x.respond(x.error(403, page_refused));
}

// "/api/macros/pages/{page}" comes before "/api/macros/{page}/{index}": the first match wins.
const http::route_registration routes{
    http::listener_kind::controller,
    {
        {"GET", "/api/macros", true, get_macros},
        {"GET", "/api/macros/pages", true, get_pages},
        {"POST", "/api/macros/page", true, post_page},
        http::command_route("POST", "/api/macros/trigger", "macro.trigger"),
        http::command_route("PUT", "/api/macros/pages/{page:0-3}", "macro.rename_page"),
        http::command_route("PUT", "/api/macros/{page:0-3}/{index:0-8}", "macro.set",
                            http::body_use::object, "macro"),
        http::command_route("DELETE", "/api/macros/{page:0-3}/{index:0-8}", "macro.clear",
                            http::body_use::none),
    }};

}  // namespace

}  // namespace mixerd::controller
