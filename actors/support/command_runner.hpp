// The command table and the command runner (docs/architecture.md, "Commands"). Every operation
// that changes state is a command: a name, typed parameters, the permission it needs and one
// function that asks the owning actor and maps its reply. Each capability declares its commands
// in its own files (actors/<cap>/<cap>_commands.cpp) and its row lists them; every front end
// (the REST routes, POST /api/commands/{name}, MQTT, the plugins' methods, the macro kinds) runs
// them by name through one command_runner, so a command reaches every front end at once and a new
// front end needs no per-command code.
//
// Indices are 1-based at every edge (the REST API, MQTT, plugins, OSC): a command takes them as
// the API shows them, and its function converts to the owner's 0-based index, in that one place.
#pragma once

#include <caf/behavior.hpp>
#include <caf/detail/type_traits.hpp>
#include <caf/error.hpp>
#include <caf/fwd.hpp>
#include <caf/message.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "actors/support/directory.hpp"
#include "protocol/command_params.hpp"
#include "protocol/limits.hpp"

namespace mixerd {

// What a command answered: a status as HTTP has them (200, 201, 204; 400 a bad argument, 403 not
// allowed, 404 unknown, 409 a conflict, 503 not available, ...) with the body of a success or
// the sentence of a failure. Each front end shows it its own way (a REST body, a macro's error,
// a plugin's return value, a log line).
struct command_result {
  int status = 200;
  nlohmann::json body;  // a success's body (null: none, e.g. 204)
  std::string error;    // a failure's sentence, naming the field or the thing
  // Extra response headers a REST front end adds (Retry-After, WWW-Authenticate).
  std::vector<std::pair<std::string, std::string>> headers;
  // The owner did not answer, or answered what it should not: logged by the runner.
  bool internal = false;
  bool ok() const { return status < 400; }

  static command_result success(nlohmann::json body, int status = 200);
  static command_result failure(int status, std::string error);
};

// Which front end a call comes from and what it may do.
struct command_origin {
  enum class front_end { rest, mqtt, plugin, macro, osc };
  front_end from = front_end::rest;
  std::vector<commands::permission> grants{commands::permission::control};
  // For logs: "POST /api/sliders/2", "mqtt", "plugin com.example.echo", "macro 'Mic' (page 0,
  // slot 3)".
  std::string who;
  // A credential the owner checks itself (the plant store's bearer token).
  std::string credential;
  // How many macro runs led to this call: 0 for a person (a button, a client), n + 1 for what a
  // run at depth n asked (its steps, an http step reaching the API, a plugin it woke).
  int depth = 0;
  bool may(commands::permission p) const;
};

class command_call;

struct command {
  std::string_view name;  // "slider.set": object.verb
  std::string_view description;
  std::vector<commands::param> params;
  commands::permission needs = commands::permission::control;
  // The 503 sentence when its owner does not run (a build without it, or a stopped actor):
  // "Mixer not available".
  std::string_view unavailable;
  // Asks the owner (call.ask) and answers (call.done), at once or once the owner replied.
  void (*run)(const std::shared_ptr<command_call>& call) = nullptr;
  // The 504 sentence when the owner does not answer within the ask's time limit, for an owner
  // that waits on someone else (a plugin); empty: that is an internal error (500, logged).
  std::string_view late{};
};

// Every command of the daemon, by name: the union of what the capability rows declare.
class command_table {
 public:
  command_table() = default;
  explicit command_table(const std::vector<command>& all);
  void add(const command& c);  // a second command of the same name replaces nothing: it throws
  const command* find(std::string_view name) const;
  const std::map<std::string, command, std::less<>>& all() const { return by_name_; }
  // GET /api/commands: {"commands": [{"name", "description", "permission", "params"}]}, by name.
  nlohmann::json to_json() const;

 private:
  std::map<std::string, command, std::less<>> by_name_;
};

// Runs commands by name for a front end. `self` is the actor the front end asks from (the io
// actor for REST, the MQTT actor, the plugin bridge, the macro actor): the owner's reply and
// `done` come there, on that actor's thread.
class command_runner {
 public:
  command_runner(const command_table& table, const directory& dir) : table_(table), dir_(dir) {}

  // Finds the command (404 "Unknown command: <name>"), checks the origin's permission (403),
  // reads the arguments (400 naming the field) and runs it; `done` is called exactly once.
  void run(caf::scheduled_actor* self, command_origin origin, std::string_view name,
           const nlohmann::json& input, std::function<void(command_result)> done) const;
  void run(caf::scheduled_actor* self, command_origin origin, const command& c,
           const nlohmann::json& input, std::function<void(command_result)> done) const;

  const command_table& table() const { return table_; }
  const directory& dir() const { return dir_; }

 private:
  const command_table& table_;
  const directory& dir_;
};

// One command being run: its checked arguments, the directory of owners, and the way back.
class command_call : public std::enable_shared_from_this<command_call> {
 public:
  command_call(caf::scheduled_actor* self, const command& c, const directory& dir,
               nlohmann::json args, command_origin origin,
               std::function<void(command_result)> done);
  command_call(const command_call&) = delete;
  command_call& operator=(const command_call&) = delete;

  const command& what() const { return command_; }
  const directory& dir() const { return dir_; }
  const command_origin& origin() const { return origin_; }
  const nlohmann::json& args() const { return args_; }
  bool has(std::string_view name) const;
  long long integer(std::string_view name) const;
  std::string text(std::string_view name) const;
  bool flag(std::string_view name) const;

  // Asks `owner` and calls on_reply(call, reply) on the caller's actor when it answers. An owner
  // that does not run answers 503 with the command's `unavailable` sentence; one that stops
  // meanwhile 503 "The daemon is stopping"; no answer in time or an unexpected one is 500.
  template <class Handle, class Request, class OnReply>
  void ask(const Handle& owner, Request request, OnReply on_reply,
           std::chrono::milliseconds timeout = limits::actor_request_timeout) {
    using args = typename caf::detail::get_callable_trait<OnReply>::arg_types;
    if (!owner) return unavailable();
    ask_untyped(caf::actor_cast<caf::strong_actor_ptr>(owner),
                caf::make_message(std::move(request)), timeout,
                reply_handler(std::move(on_reply), args{}));
  }

  // The answer (exactly once; later ones are dropped).
  void done(command_result result);
  void ok(nlohmann::json body, int status = 200) {
    done(command_result::success(std::move(body), status));
  }
  void fail(int status, std::string error) {
    done(command_result::failure(status, std::move(error)));
  }
  void unavailable() { fail(503, std::string(command_.unavailable)); }

  // Runs f; an exception it throws answers 500 (and is logged) instead of ending the actor.
  void guarded(const std::function<void()>& f);

 private:
  template <class OnReply, class Call, class Reply>
  caf::behavior reply_handler(OnReply on_reply, caf::detail::type_list<Call, Reply>) {
    using value = std::decay_t<Reply>;
    auto me = shared_from_this();
    return caf::behavior{[me, on_reply = std::move(on_reply)](value& reply) mutable {
                           me->guarded([&] { on_reply(me, reply); });
                         },
                         [me](caf::error& e) { me->failed(e); }};
  }
  void ask_untyped(const caf::strong_actor_ptr& owner, caf::message request,
                   std::chrono::milliseconds timeout, caf::behavior handler);
  void failed(const caf::error& e);

  caf::scheduled_actor* self_;
  const command& command_;
  const directory& dir_;
  nlohmann::json args_;
  command_origin origin_;
  std::function<void(command_result)> done_;
};

using command_call_ptr = std::shared_ptr<command_call>;

}  // namespace mixerd
