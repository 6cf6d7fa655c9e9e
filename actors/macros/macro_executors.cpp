#include "actors/macros/macro_executors.hpp"

#include <algorithm>
#include <caf/all.hpp>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "actors/macros/keyboard_output.hpp"
#include "actors/macros/macro_holds.hpp"
#include "actors/support/interface_addresses.hpp"
#include "actors/support/log.hpp"
#include "actors/support/program_runner.hpp"
#include "protocol/hotkeys.hpp"
#include "protocol/http_targets.hpp"
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

// ---- http: through the daemon's one outgoing HTTP client, on the io thread -------------------

// The step's request: the fields of a validated http macro, the macro limits, and the check of
// every address its host resolves to.
http_request_spec http_request_of(self_ptr self, const json& fields, int depth) {
  http_request_spec spec;
  spec.url = *uri::split_url(fields.at("url").get<std::string>());
  spec.method = fields.value("method", "POST");
  spec.body = fields.value("body", "");
  if (auto h = fields.find("headers"); h != fields.end())
    for (const auto& [name, value] : h->items()) {
      if (uri::iequals(name, "Content-Type"))
        spec.content_type = value.get<std::string>();
      else
        spec.headers.emplace_back(name, value.get<std::string>());
    }
  if (spec.content_type.empty())
    spec.content_type = json::accept(spec.body) ? "application/json" : "text/plain; charset=utf-8";
  // A request that reaches mixerd's API after all (through a proxy the user runs) says how deep
  // it is: its run counts one level deeper.
  spec.headers.emplace_back(std::string(commands::depth_header), std::to_string(depth));
  spec.deadline = macros::http_timeout;
  spec.max_body_bytes = macros::max_http_answer_bytes;
  spec.max_header_bytes = macros::max_http_answer_header_bytes;
  http_targets::rule rule{self->state.http_allow, {}};
  if (const auto& own = self->state.wiring.own_listeners)
    if (auto ports = own->load()) rule.own_ports = ports->ports;
  spec.check_address = [rule = std::move(rule), url = spec.url](const std::string& address) {
    std::vector<std::string> mine;
    for (const auto& a : read_interface_addresses())
      mine.push_back(a.address);
    return http_targets::check_address(address, url, rule, mine);
  };
  return spec;
}

// The step's outcome as clients see it. Whatever kept the request from the server (no such
// name, a closed port, an address the rule refuses) reads the same, so that the outcome is no
// port scanner; the log says which it was.
std::string outcome_of(const http_answer& answer, const std::string& host) {
  using failure = http_answer::failure;
  switch (answer.failed) {
    case failure::none:
      if (answer.status >= 200 && answer.status <= 299) return "";
      return "the server answered HTTP " + std::to_string(answer.status);
    case failure::unreachable:
      return "could not reach " + host;
    case failure::timed_out:
      return "no answer within " +
             std::to_string(
                 std::chrono::duration_cast<std::chrono::seconds>(macros::http_timeout).count()) +
             " s";
    case failure::too_large:
      return "the answer passed its limit (" +
             std::to_string(macros::max_http_answer_header_bytes / 1024) + " KiB of header, " +
             std::to_string(macros::max_http_answer_bytes / 1024) + " KiB of body)";
    case failure::broken:
      return "the connection broke before a whole answer came";
    case failure::tls:
      return "the TLS handshake or the server's certificate was not accepted";
  }
  return "request failed";
}

void run_http_macro(self_ptr self, step_ref at, const json& fields) {
  auto* client = self->state.wiring.http;
  if (client == nullptr) return report(self, at, "http macros are not available");
  auto it = self->state.runs.find(at.run);
  const int depth = it == self->state.runs.end() ? 0 : it->second.depth + 1;
  auto spec = http_request_of(self, fields, depth);
  const auto host = spec.url.host;
  const bool started =
      client->fetch(std::move(spec), [me = caf::actor_cast<caf::actor>(self), at, host,
                                      label = label_of(self, at)](http_answer answer) {
        auto error = outcome_of(answer, host);
        if (!error.empty() && answer.failed != http_answer::failure::none)
          log::info(component, label, ": ", answer.detail);
        caf::anon_send(me, macro_step_done{at.run, at.step, error.empty(), std::move(error)});
      });
  if (!started)
    report(self, at,
           "too many http requests are running (at most " +
               std::to_string(client->max_in_flight()) + " at once); try again when one ends");
}

// ---- hotkey: a key press on a detached helper actor ------------------------------------------

// The helper takes its work as spawn arguments: CAF 0.17 dereferences a null argument tuple when
// a function actor takes none (UBSan reports it).
void hotkey_helper(caf::event_based_actor*, const hotkeys::combo& combo, step_ref at,
                   const caf::actor& me) {
  auto error = keyboard::press(combo);
  caf::anon_send(me, macro_step_done{at.run, at.step, error.empty(), error});
}

void run_hotkey_macro(self_ptr self, step_ref at, const json& fields) {
  std::string why;
  auto combo = hotkeys::parse(fields.at("key").get<std::string>(), why);
  if (!combo) return report(self, at, "key " + why);
  // A thread the system cannot give (too many threads, no memory) fails this step, not the
  // macro actor.
  try {
    self->system().spawn<caf::detached>(hotkey_helper, *combo, at,
                                        caf::actor_cast<caf::actor>(self));
  } catch (const std::exception& e) {
    report(self, at, std::string("could not start the key press: ") + e.what());
  }
}

// ---- Every other kind: the command of the capability it acts on --------------------------------

// A kind of another capability names the command that runs it (protocol/macro_kinds.hpp). The
// answer is the step's outcome: its error sentence when it failed, or the command's "not
// available" sentence when its owner did not answer at all.
void run_as_command(self_ptr self, step_ref at, const command_request& request) {
  const auto* commands = self->state.wiring.commands;
  const auto* known = commands ? commands->table().find(request.name) : nullptr;
  if (known == nullptr) return report(self, at, request.name + " is not available in this build");
  commands->run(self, run_origin(self, at.run), *known, request.args,
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

command_origin run_origin(self_ptr self, std::uint64_t run) {
  command_origin origin;
  origin.from = command_origin::front_end::macro;
  origin.grants = {commands::permission::control, commands::permission::local,
                   commands::permission::trusted};
  origin.who = run_label(self, run);
  auto it = self->state.runs.find(run);
  origin.depth = it == self->state.runs.end() ? 1 : it->second.depth + 1;
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
  auto request = kind->command(fields);
  if (kind->held()) {
    auto it = self->state.runs.find(run);
    if (it != self->state.runs.end())
      request.args["holder"] = macro_holds::holder_of(it->second.page, it->second.index);
  }
  run_as_command(self, at, request);
}

}  // namespace mixerd::macro_executors
