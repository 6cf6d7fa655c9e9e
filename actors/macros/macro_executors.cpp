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
#include "protocol/uri.hpp"
#include "protocol/validation.hpp"

namespace mixerd::macro_executors {

namespace {

using nlohmann::json;

constexpr std::string_view component = "macros";
// A command's output (stdout and stderr) goes to the log; more than this ends it.
constexpr std::size_t max_command_output = 64 * 1024;

// The texts of macro_executed when a capability does not run (protocol/README.md, "Macros"):
// each is absent only where the system table is not used.
constexpr const char* music_missing = "Music player not available";
constexpr const char* streaming_missing = "Streaming software not available";
constexpr const char* smarthome_missing = "Smart home not available";
constexpr const char* smarthome_not_connected = "Smart home not connected";
constexpr const char* plugins_missing = "Plugins not available";
constexpr const char* profiles_missing = "Profiles not available";
constexpr const char* mixer_missing = "Mixer not available";

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
  auto it = self->state.runs.find(at.run);
  if (it == self->state.runs.end()) return "macro";
  const auto& r = it->second;
  return "macro '" + r.name + "' (page " + std::to_string(r.page) + ", slot " +
         std::to_string(r.index) + ")";
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

// ---- mute, volume, profile: requests to their owners -----------------------------------------

int target_index(const json& target) {
  return target.is_string() ? protocol::master_index : target.get<int>() - 1;
}

void run_mute_macro(self_ptr self, step_ref at, const json& fields) {
  const auto& mixer = self->state.wiring.mixer;
  if (!mixer) return report(self, at, mixer_missing);
  self->request(mixer, limits::actor_request_timeout, toggle_mute{target_index(fields["target"])})
      .then([self, at](bool) { report(self, at, ""); },
            [self, at](caf::error&) { report(self, at, mixer_missing); });
}

void set_volume(self_ptr self, step_ref at, int target, int value) {
  const auto& mixer = self->state.wiring.mixer;
  auto done = [self, at](int) { report(self, at, ""); };
  auto failed = [self, at](caf::error&) { report(self, at, mixer_missing); };
  value = std::clamp(value, limits::volume_min, limits::volume_max);
  if (target == protocol::master_index)
    self->request(mixer, limits::actor_request_timeout, set_master_volume{value})
        .then(done, failed);
  else
    self->request(mixer, limits::actor_request_timeout, set_slider_value{target, value})
        .then(done, failed);
}

void run_volume_macro(self_ptr self, step_ref at, const json& fields) {
  const auto& mixer = self->state.wiring.mixer;
  if (!mixer) return report(self, at, mixer_missing);
  const int target = target_index(fields["target"]);
  if (fields.contains("value")) return set_volume(self, at, target, fields["value"].get<int>());
  const int step = fields["step"].get<int>();
  // Relative to the value now in effect.
  self->request(mixer, limits::actor_request_timeout, caf::get_atom_v)
      .then(
          [self, at, target, step](const mixer_snapshot& mix) {
            const int now =
                target == protocol::master_index ? mix.master_volume : mix.sliders[target].value;
            set_volume(self, at, target, now + step);
          },
          [self, at](caf::error&) { report(self, at, mixer_missing); });
}

void run_profile_macro(self_ptr self, step_ref at, const json& fields) {
  const auto& profiles = self->state.profiles;
  if (!profiles) return report(self, at, profiles_missing);
  self->request(profiles, limits::actor_request_timeout,
                profile_load{fields["profile"].get<std::string>()})
      .then(
          [self, at](const profile_outcome& out) {
            if (out.what == profile_outcome::result::ok) return report(self, at, "");
            report(self, at, out.error.empty() ? "the profile could not be loaded" : out.error);
          },
          [self, at](caf::error&) { report(self, at, profiles_missing); });
}

// ---- smarthome: a service call through the smart-home actor -----------------------------------

std::optional<smarthome_command::action> smarthome_action(const std::string& name) {
  using action = smarthome_command::action;
  if (name == "toggle") return action::toggle;
  if (name == "turn_on") return action::turn_on;
  if (name == "turn_off") return action::turn_off;
  return std::nullopt;
}

void run_smarthome_macro(self_ptr self, step_ref at, const json& fields) {
  const auto& smarthome = self->state.smarthome;
  if (!smarthome) return report(self, at, smarthome_missing);
  auto what = smarthome_action(fields.value("action", ""));
  if (!what) return report(self, at, "unknown smart-home action");
  smarthome_command req{fields["entity_id"].get<std::string>(), *what, std::nullopt};
  // turn_on with a brightness sets it (0 turns the light off); the others ignore it.
  if (auto b = fields.find("brightness");
      b != fields.end() && *what == smarthome_command::action::turn_on)
    req.brightness = b->get<int>();
  // The actor answers within smarthome::call_timeout; the request's own limit is a backstop.
  self->request(smarthome, smarthome::call_timeout + std::chrono::seconds(2), std::move(req))
      .then(
          [self, at](const smarthome_outcome& out) {
            if (out.what == smarthome_outcome::result::ok) return report(self, at, "");
            report(self, at, out.error.empty() ? smarthome_not_connected : out.error);
          },
          [self, at](caf::error&) { report(self, at, smarthome_missing); });
}

// ---- stream_scene, stream_source: requests to the stream actor --------------------------------

template <class Request>
void ask_stream(self_ptr self, step_ref at, Request request) {
  const auto& stream = self->state.stream;
  if (!stream) return report(self, at, streaming_missing);
  self->request(stream, limits::actor_request_timeout, std::move(request))
      .then(
          [self, at](const stream_outcome& out) {
            if (out.what == stream_outcome::result::ok) return report(self, at, "");
            report(self, at, out.error);
          },
          [self, at](caf::error&) { report(self, at, streaming_missing); });
}

void run_stream_scene_macro(self_ptr self, step_ref at, const json& fields) {
  ask_stream(self, at, stream_scene_set{fields["scene_name"].get<std::string>()});
}

void run_stream_source_macro(self_ptr self, step_ref at, const json& fields) {
  stream_source_set req{fields["source_name"].get<std::string>(), std::nullopt};
  // Validated: true, false or "toggle" (the default).
  if (auto v = fields.find("visible"); v != fields.end() && v->is_boolean())
    req.visible = v->get<bool>();
  ask_stream(self, at, std::move(req));
}

// ---- media: the active music player (MPRIS), through the music actor ---------------------------

void run_media_macro(self_ptr self, step_ref at, const json& fields) {
  const auto& music = self->state.music;
  if (!music) return report(self, at, music_missing);
  // The music actor answers within the bus call's limit; this one only covers a stuck actor.
  self->request(music, limits::actor_request_timeout,
                media_command{fields["action"].get<std::string>()})
      .then([self, at](const media_outcome& out) { report(self, at, out.ok ? "" : out.error); },
            [self, at](caf::error&) { report(self, at, music_missing); });
}

// ---- plugin: the handler a plugin registered for the macro's plugin_type ----------------------

void run_plugin_macro(self_ptr self, step_ref at, const json& fields) {
  const auto& plugins = self->state.plugins;
  if (!plugins) return report(self, at, plugins_missing);
  // The bridge answers when the handler returned, or when the plugin was killed for not
  // returning within the hook time limit; this one only covers a stuck bridge.
  self->request(plugins, plugins::hook_timeout + std::chrono::seconds(1), plugin_macro_run{fields})
      .then([self,
             at](const plugin_macro_outcome& out) { report(self, at, out.ok ? "" : out.error); },
            [self, at](caf::error&) { report(self, at, "the plugin did not answer in time"); });
}

}  // namespace

void start(self_ptr self, std::uint64_t run, std::size_t step, const nlohmann::json& fields) {
  const step_ref at{run, step};
  auto kind = macro_kind_from_string(fields.value("type", "none"));
  switch (kind.value_or(macro_kind::none)) {
    case macro_kind::command:
      return run_command_macro(self, at, fields);
    case macro_kind::http:
      return run_http_macro(self, at, fields);
    case macro_kind::hotkey:
      return run_hotkey_macro(self, at, fields);
    case macro_kind::mute:
      return run_mute_macro(self, at, fields);
    case macro_kind::volume:
      return run_volume_macro(self, at, fields);
    case macro_kind::profile:
      return run_profile_macro(self, at, fields);
    // The integrations: each a request to its capability's actor.
    case macro_kind::media:
      return run_media_macro(self, at, fields);
    case macro_kind::stream_scene:
      return run_stream_scene_macro(self, at, fields);
    case macro_kind::stream_source:
      return run_stream_source_macro(self, at, fields);
    case macro_kind::smarthome:
      return run_smarthome_macro(self, at, fields);
    case macro_kind::plugin:
      return run_plugin_macro(self, at, fields);
    case macro_kind::none:
    case macro_kind::sequence:
      break;
  }
  report(self, at, "this step cannot run on its own");
}

}  // namespace mixerd::macro_executors
