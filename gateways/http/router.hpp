// The one router of all three listeners. A route is a method, a path pattern with typed
// parameters, whether it needs credentials, and a handler. Each capability contributes its
// routes from gateways/<listener>/<capability>_routes.cpp through a route_registration; each
// listener contributes its policy (error body style, credential gate, extra headers). Handlers
// run on the io thread: reads answer from the capabilities' published views, writes ask the
// owning actor through the io actor.
//
// A write is a command route: the route names the command it runs (actors/support/
// command_runner.hpp) and how the request maps to its arguments: the pattern's parameters are
// arguments of the same names, and the body's fields are the others (or the whole body is one).
// The command's answer is the route's answer, in the listener's error style.
//
// Patterns: literal segments, "{name:min-max}" an integer in a range (a bad one is a 400 naming
// `name`, checked after the credentials), "{name}" one segment of text, "{name*}" the rest of
// the path (for static files; may be empty).
#pragma once

#include <caf/detail/type_list.hpp>
#include <caf/detail/type_traits.hpp>
#include <caf/error.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actors/support/command_runner.hpp"
#include "actors/support/directory.hpp"
#include "gateways/http/io_actor.hpp"
#include "gateways/http/server.hpp"
#include "protocol/limits.hpp"

namespace mixerd::http {

enum class listener_kind { controller, toast, plants };

struct listener_policy;
struct route;

// One request on its way through a route. Handlers copy `respond` into their continuations.
struct exchange {
  request req;
  responder respond;
  const directory& dir;
  const command_runner& commands;
  io_actor& actor;
  const listener_policy& policy;
  std::vector<std::string> segments;  // the parameters' text, in pattern order
  std::vector<long long> numbers;     // the integer parameters' values, same positions
  std::string session_id;             // controller: the session cookie, when usable
  const route* matched = nullptr;     // the route being served
  // The listener's gate found a caller who may aim mixerd at the network (commands'
  // permission::trusted).
  bool trusted = false;

  int integer(std::size_t i) const { return static_cast<int>(numbers.at(i)); }
  const std::string& segment(std::size_t i) const { return segments.at(i); }
  response error(int status, std::string_view message) const;
  // The percent-decoded value of a query parameter ('+' is a space there).
  std::optional<std::string> query(std::string_view name) const;
  // Answers a failed request to an actor: 503 while the daemon stops, 500 (and a log line)
  // for a timeout or a reply the handler did not expect.
  std::function<void(caf::error&)> failed(std::string_view what) const;

  // Asks `dest`; `on_reply` receives the typed reply on the io thread.
  template <class Handle, class OnReply, class... Ts>
  void ask(const Handle& dest, OnReply on_reply, Ts&&... xs) {
    ask_within(limits::actor_request_timeout, dest, std::move(on_reply), std::forward<Ts>(xs)...);
  }
  template <class Handle, class OnReply, class... Ts>
  void ask_within(std::chrono::milliseconds timeout, const Handle& dest, OnReply on_reply,
                  Ts&&... xs) {
    actor.request(dest, timeout, std::forward<Ts>(xs)...)
        .then(guarded(std::move(on_reply)), failed(typeid(Handle).name()));
  }

  // A reply handler that answers 500 (and logs) instead of letting an exception end the io actor,
  // which every listener's writes go through.
  template <class OnReply>
  auto guarded(OnReply on_reply) const {
    using args = typename caf::detail::get_callable_trait<OnReply>::arg_types;
    return guarded(std::move(on_reply), args{});
  }
  template <class OnReply, class... Args>
  auto guarded(OnReply on_reply, caf::detail::type_list<Args...>) const {
    // CAF reads a reply handler's argument types: this one keeps those of `on_reply`.
    return [on_reply = std::move(on_reply), fail = failed_by_exception()](Args... reply) mutable {
      try {
        on_reply(std::forward<Args>(reply)...);
      } catch (const std::exception& e) {
        fail(e);
      }
    };
  }
  std::function<void(const std::exception&)> failed_by_exception() const;

  // Runs a command for this request, as the listener grants (`credential`: a secret the owner
  // checks itself, the plant store's token), and answers with its result.
  void run(std::string_view command, const nlohmann::json& input, std::string credential = {});
  // The same, with the result handed to `done` on the io thread.
  void run(std::string_view command, const nlohmann::json& input, std::string credential,
           std::function<void(command_result)> done);
  // The answer of a command's result: its body and status, or the listener's error style.
  response answer(const command_result& result) const;
};

using route_handler = void (*)(exchange&);

// How a command route reads the request body: not at all, as a JSON object, or as a JSON
// object where an empty body counts as {}.
enum class body_use { none, object, object_or_empty };

struct route {
  std::string_view method;
  std::string_view pattern;
  bool needs_credentials = true;
  route_handler handler = nullptr;
  // Static files (handler serve_files): the folder, under the listener's static_root, that the
  // pattern's "{path*}" names a file in.
  std::string_view folder{};
  // Also open to `Authorization: Bearer <metrics_token>` when that setting is set (GET /metrics).
  bool accepts_metrics_token = false;
  // A command route (command_route): the command, how the body is read, and the parameter the
  // whole body is (empty: the body's fields are parameters).
  std::string_view command{};
  body_use body = body_use::none;
  std::string_view body_param{};
  // Checks each text parameter of the path before the body is read (a profile name); a
  // non-empty answer is the 400's sentence. Null: none.
  std::string (*path_check)(std::string_view segment) = nullptr;
  // A body limit above the listener's (0: the listener's), for the few routes that take a file.
  std::size_t max_body = 0;
};

// A route that runs `command` (its handler is run_command_route).
route command_route(std::string_view method, std::string_view pattern, std::string_view command,
                    body_use body = body_use::object, std::string_view body_param = {});
// The handler of command routes.
void run_command_route(exchange& x);

// The handler of a static-file route: the file the rest of the path names in the route's folder
// (index.html for a folder), with its content type; 404 when there is none. Never leaves the
// folder: a path with "..", a backslash or a NUL byte is 404.
void serve_files(exchange& x);

// What a listener adds around its routes.
struct listener_policy {
  listener_kind kind;
  std::string name;  // for logs
  error_writer errors;
  std::string not_found = "Not found: ";  // the 404 message, before the path
  std::string static_root;                // where static-file routes' folders are
  bool tls = false;
  // Runs before the route's handler (and before 404/405 answers): checks credentials, counts
  // requests, ... `found` is null when no route matches. It calls `next(*x)` to go on (at once or
  // once an actor answered) or answers itself. Empty: every request goes on.
  std::function<void(const std::shared_ptr<exchange>& x, const route* found,
                     std::function<void(exchange&)> next)>
      gate;
  // Wraps every answer of the listener (e.g. CORS headers); empty: none.
  std::function<responder(const request&, responder)> decorate;
  // What the listener's own routes need to know (e.g. the notification API's bound port).
  std::shared_ptr<const void> facts;
  // What a request that passed the gate may do: the commands' permissions it grants.
  std::vector<commands::permission> grants{commands::permission::control};
};

// Adds routes to a listener at start-up (a namespace-scope object in a *_routes.cpp file).
struct route_registration {
  route_registration(listener_kind kind, std::vector<route> routes);
};

// The `answered` hook of a listener's options: counts each answer under the route that took it
// (GET /metrics).
std::function<void(std::uint32_t route_tag, int status)> count_answers(listener_kind kind);

// Every route registered for a listener, in registration order.
const std::vector<route>& routes_of(listener_kind kind);
// The max_body of the route that `method` and `target` (query and all) reach; 0 when none says
// (the listener's limit).
std::size_t route_body_limit(listener_kind kind, std::string_view method, std::string_view target);
// The largest max_body of the listener's routes (0: none has one).
std::size_t largest_route_body(listener_kind kind);

// The server-core handler of one listener. `commands` (and its directory), `actor` and `policy`
// must outlive it.
handler make_router(const command_runner& commands, io_actor& actor, const listener_policy& policy);

// Matches a path against a pattern; the text of each parameter in `segments`. With `decode`,
// `path` is the path as sent: each segment is percent-decoded on its own before it is compared
// or captured (so "%2F" is part of a segment, never a separator). Exposed for tests.
bool match_pattern(std::string_view pattern, std::string_view path,
                   std::vector<std::string>& segments, bool decode = false);

}  // namespace mixerd::http
