// Routes of the macros: the page set, the pages, the trigger and the edits (docs/api.md,
// "Macros"). Reads answer from the macro actor's published view; the trigger and the edits ask
// the macro actor.
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
  auto latest = x.dir.view<macro_view>();
  if (!latest) return not_running(x);
  http::response res;
  res.body = latest->body.get([&] { return http::json_text(macros::to_json(latest->set)); });
  x.respond(std::move(res));
}

void get_pages(http::exchange& x) {
  auto latest = x.dir.view<macro_view>();
  if (!latest) return not_running(x);
  reply(x, macros::pages_to_json(latest->set));
}

void post_page(http::exchange& x) {
  x.respond(x.error(403, page_refused));
}

void post_trigger(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  std::string error;
  auto index = validation::int_field(*body, "index", 0, limits::macro_count - 1, error);
  if (!index) return x.respond(x.error(400, error));
  macro_trigger req{std::nullopt, *index};
  if (auto page = body->find("page"); page != body->end() && !page->is_null()) {
    auto value = validation::int_field(*body, "page", 0, limits::macro_page_count - 1, error);
    if (!value) return x.respond(x.error(400, error));
    req.page = *value;
  }
  x.ask(
      x.dir.get<macros_actor>(),
      [index = *index, respond = x.respond,
       errors = x.policy.errors](const macro_trigger_outcome& out) {
        const std::string where =
            "page " + std::to_string(out.page) + ", index " + std::to_string(index);
        switch (out.what) {
          case macro_trigger_outcome::result::empty:
            return respond(errors(404, "No macro at " + where));
          case macro_trigger_outcome::result::running:
            return respond(errors(409, "The macro at " + where + " is still running"));
          case macro_trigger_outcome::result::started:
            break;
        }
        respond(http::json_response(
            200, {{"success", true}, {"index", index}, {"page", out.page}, {"macro", out.name}}));
      },
      req);
}

// A Macro object of any kind but command (which only settings.json may hold).
void put_macro(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  std::string error;
  bool forbidden = false;
  auto parsed = macros::parse_macro(*body, macros::origin::api, error, &forbidden);
  if (!parsed) return x.respond(x.error(forbidden ? 403 : 400, error));
  macro_edit req{x.integer(0), x.integer(1), std::move(*parsed), true};
  x.ask(
      x.dir.get<macros_actor>(),
      [respond = x.respond, errors = x.policy.errors](const macro& stored) {
        // The slot holds a command macro, which the API may delete but not write over.
        if (stored.kind == macro_kind::command)
          return respond(errors(403,
                                "The slot holds a command macro, which can only be changed "
                                "in settings.json (the API may delete it)"));
        respond(http::json_response(200, {{"success", true}, {"macro", stored.fields}}));
      },
      std::move(req));
}

void delete_macro(http::exchange& x) {
  macro_edit req{x.integer(0), x.integer(1), macro{}, false};
  x.ask(
      x.dir.get<macros_actor>(),
      [respond = x.respond](const macro&) {
        respond(http::json_response(200, {{"success", true}}));
      },
      std::move(req));
}

void put_page_name(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  std::string error;
  auto name = validation::string_field(*body, "name", 4 * macros::max_page_name_chars, error);
  if (!name) return x.respond(x.error(400, error));
  std::size_t chars = 0;
  for (char c : *name)
    chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  if (chars == 0 || chars > macros::max_page_name_chars)
    return x.respond(x.error(400, "name must be 1 to 32 characters"));
  if (!validation::device_text(*name, "name", error)) return x.respond(x.error(400, error));
  const int page = x.integer(0);
  x.ask(
      x.dir.get<macros_actor>(),
      [page, respond = x.respond](const std::string& stored) {
        respond(http::json_response(200, {{"success", true}, {"page", page}, {"name", stored}}));
      },
      macro_page_rename{page, std::move(*name)});
}

// "/api/macros/pages/{page}" comes before "/api/macros/{page}/{index}": the first match wins.
const http::route_registration routes{
    http::listener_kind::controller,
    {
        {"GET", "/api/macros", true, get_macros},
        {"GET", "/api/macros/pages", true, get_pages},
        {"POST", "/api/macros/page", true, post_page},
        {"POST", "/api/macros/trigger", true, post_trigger},
        {"PUT", "/api/macros/pages/{page:0-3}", true, put_page_name},
        {"PUT", "/api/macros/{page:0-3}/{index:0-8}", true, put_macro},
        {"DELETE", "/api/macros/{page:0-3}/{index:0-8}", true, delete_macro},
    }};

}  // namespace

}  // namespace mixerd::controller
