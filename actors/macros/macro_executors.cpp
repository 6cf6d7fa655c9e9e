#include "actors/macros/macro_executors.hpp"

#include <httplib.h>

#include <algorithm>
#include <caf/all.hpp>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "actors/macros/keyboard_output.hpp"
#include "actors/support/log.hpp"
#include "actors/support/program_runner.hpp"
#include "protocol/hotkeys.hpp"
#include "protocol/macro_kinds.hpp"
#include "protocol/uri.hpp"
#include "protocol/validation.hpp"

namespace mixerd::macro_executors {

namespace {

using nlohmann::json;

constexpr std::string_view component = "macros";
// A command's output (stdout and stderr) goes to the log; more than this ends it.
constexpr std::size_t max_command_output = 64 * 1024;

struct step_ref {
  std::uint64_t run = 0;
  std::size_t step = 0;
};

// The outcome of a step that needs no waiting, through the mailbox like every other outcome.
void report(self_ptr self, step_ref at, std::string error) {
  self->send(self, macro_step_done{at.run, at.step, error.empty(), std::move(error)});
}

// How the log names the slot a step belongs to.
std::string label_of(self_ptr self, step_ref at) {
  return run_label(self, at.run);
}

// ---- command: the program without a shell, on the io thread ---------------------------------

void log_output(const std::string& label, const std::string& text) {
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? end : end - start);
    // Its own log lines must not be forged by a program's output.
    for (auto& c : line)
      if (validation::is_control_byte(c) && c != '\t') c = ' ';
    if (!line.empty()) log::info(component, label, " output: ", line);
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

std::string command_error(const program_output& out, const std::string& program) {
  if (out.not_started) return "could not start " + program;
  if (out.timed_out)
    return "ran longer than " + std::to_string(macros::command_timeout.count()) +
           " s and was killed";
  if (!out.complete) return "printed more than 64 KiB and was killed";
  if (out.exit_signal != 0) return "was ended by signal " + std::to_string(out.exit_signal);
  if (out.exit_code != 0) return "exited with status " + std::to_string(out.exit_code);
  return "";
}

void run_command_macro(self_ptr self, step_ref at, const json& fields) {
  auto argv = fields.at("argv").get<std::vector<std::string>>();
  // Looked up at run time: PATH is the daemon's, and a program installed later is found.
  std::string program =
      argv[0].front() == '/' ? argv[0] : find_in_path(argv[0], std::getenv("PATH"));
  if (program.empty()) return report(self, at, "program '" + argv[0] + "' not found in PATH");
  if (self->state.wiring.io == nullptr) return report(self, at, "Commands not available");
  program_spec spec;
  spec.program = program;
  spec.argv0 = argv[0];
  spec.args.assign(argv.begin() + 1, argv.end());
  spec.timeout = macros::command_timeout;
  spec.max_bytes = max_command_output;
  spec.with_stderr = true;
  spec.wait_for_exit = true;
  run_program(*self->state.wiring.io, std::move(spec),
              [me = caf::actor_cast<caf::actor>(self), at, program,
               label = label_of(self, at)](program_output out) {
                log_output(label, out.text);
                auto error = command_error(out, program);
                caf::anon_send(me, macro_step_done{at.run, at.step, error.empty(), error});
              });
}

// ---- http and hotkey: blocking calls on a detached helper actor ------------------------------

struct http_job {
  uri::url_parts url;
  std::string method;
  std::string body;
  httplib::Headers headers;
  std::string content_type;
};

http_job http_job_of(const json& fields) {
  http_job job;
  job.url = *uri::split_url(fields.at("url").get<std::string>());
  job.method = fields.value("method", "POST");
  job.body = fields.value("body", "");
  if (auto h = fields.find("headers"); h != fields.end())
    for (const auto& [name, value] : h->items()) {
      if (uri::iequals(name, "Content-Type"))
        job.content_type = value.get<std::string>();
      else
        job.headers.emplace(name, value.get<std::string>());
    }
  if (job.content_type.empty())
    job.content_type = json::accept(job.body) ? "application/json" : "text/plain; charset=utf-8";
  return job;
}

std::string failure_text(httplib::Error e) {
  switch (e) {
    case httplib::Error::Connection:
      return "could not connect";
    case httplib::Error::ConnectionTimeout:
      return "connecting timed out";
    case httplib::Error::Read:
      return "no answer (the connection failed or timed out)";
    case httplib::Error::Write:
      return "could not send the request";
    case httplib::Error::SSLConnection:
      return "the TLS handshake failed";
    case httplib::Error::SSLServerVerification:
      return "the server's certificate was not accepted";
    default:
      return httplib::to_string(e);
  }
}

// "" when the server answered 2xx.
std::string perform(const http_job& job) {
  std::unique_ptr<httplib::ClientImpl> client;
  if (job.url.tls)
    client = std::make_unique<httplib::SSLClient>(job.url.host, job.url.port);
  else
    client = std::make_unique<httplib::ClientImpl>(job.url.host, job.url.port);
  const auto limit = std::chrono::duration_cast<std::chrono::seconds>(macros::http_timeout);
  client->set_connection_timeout(limit.count(), 0);
  client->set_read_timeout(limit.count(), 0);
  client->set_write_timeout(limit.count(), 0);
  auto res = job.method == "GET" ? client->Get(job.url.target, job.headers)
             : job.method == "PUT"
                 ? client->Put(job.url.target, job.headers, job.body, job.content_type)
             : job.method == "DELETE"
                 ? client->Delete(job.url.target, job.headers, job.body, job.content_type)
                 : client->Post(job.url.target, job.headers, job.body, job.content_type);
  if (!res) return "request failed: " + failure_text(res.error());
  if (res->status < 200 || res->status > 299)
    return "the server answered HTTP " + std::to_string(res->status);
  return "";
}

// The helper actors take their work as spawn arguments: CAF 0.17 dereferences a null argument
// tuple when a function actor takes none (UBSan reports it).
void http_helper(caf::event_based_actor*, const http_job& job, step_ref at, const caf::actor& me) {
  auto error = perform(job);
  caf::anon_send(me, macro_step_done{at.run, at.step, error.empty(), error});
}

void hotkey_helper(caf::event_based_actor*, const hotkeys::combo& combo, step_ref at,
                   const caf::actor& me) {
  auto error = keyboard::press(combo);
  caf::anon_send(me, macro_step_done{at.run, at.step, error.empty(), error});
}

void run_http_macro(self_ptr self, step_ref at, const json& fields) {
  self->system().spawn<caf::detached>(http_helper, http_job_of(fields), at,
                                      caf::actor_cast<caf::actor>(self));
  // The answer must come within the limit, however slowly the server trickles it.
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(macros::http_timeout);
  self->delayed_send(self, macros::http_timeout,
                     macro_step_done{at.run, at.step, false,
                                     "no answer within " + std::to_string(seconds.count()) + " s"});
}

void run_hotkey_macro(self_ptr self, step_ref at, const json& fields) {
  std::string why;
  auto combo = hotkeys::parse(fields.at("key").get<std::string>(), why);
  if (!combo) return report(self, at, "key " + why);
  self->system().spawn<caf::detached>(hotkey_helper, *combo, at, caf::actor_cast<caf::actor>(self));
}

// ---- Every other kind: the command of the capability it acts on --------------------------------

// A kind of another capability names the command that runs it (protocol/macro_kinds.hpp). The
// answer is the step's outcome: its error sentence when it failed, or the command's "not
// available" sentence when its owner did not answer at all.
void run_as_command(self_ptr self, step_ref at, const command_request& request) {
  const auto* commands = self->state.wiring.commands;
  const auto* known = commands ? commands->table().find(request.name) : nullptr;
  if (known == nullptr) return report(self, at, request.name + " is not available in this build");
  commands->run(self, macro_origin(label_of(self, at)), *known, request.args,
                [self, at, unavailable = std::string(known->unavailable)](command_result r) {
                  if (r.ok()) return report(self, at, "");
                  report(self, at, r.internal ? unavailable : r.error);
                });
}

}  // namespace

std::string run_label(self_ptr self, std::uint64_t run) {
  auto it = self->state.runs.find(run);
  if (it == self->state.runs.end()) return "macro";
  const auto& r = it->second;
  return "macro '" + r.name + "' (page " + std::to_string(r.page) + ", slot " +
         std::to_string(r.index) + ")";
}

command_origin macro_origin(std::string who) {
  command_origin origin;
  origin.from = command_origin::front_end::macro;
  origin.grants = {commands::permission::control, commands::permission::local};
  origin.who = std::move(who);
  return origin;
}

void start(self_ptr self, std::uint64_t run, std::size_t step, const nlohmann::json& fields) {
  const step_ref at{run, step};
  const auto type = fields.value("type", "none");
  if (type == "command") return run_command_macro(self, at, fields);
  if (type == "http") return run_http_macro(self, at, fields);
  if (type == "hotkey") return run_hotkey_macro(self, at, fields);
  const auto* kind = macros::find_kind(type);
  if (kind == nullptr || kind->command == nullptr)
    return report(self, at, "this step cannot run on its own");
  run_as_command(self, at, kind->command(fields));
}

}  // namespace mixerd::macro_executors
