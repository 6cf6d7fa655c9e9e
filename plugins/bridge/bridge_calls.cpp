// The plugins' method calls (protocol/README.md, "Methods (results and errors)"): checked here,
// answered from the capabilities' views or through their actors, never waiting on them.
#include <algorithm>
#include <caf/all.hpp>

#include "actors/support/log.hpp"
#include "plugins/bridge/bridge_internal.hpp"
#include "protocol/json.hpp"
#include "protocol/validation.hpp"

namespace mixerd::bridge {

namespace {

using nlohmann::json;

// A plugin's own settings together, as JSON: settings.json must stay small.
constexpr std::size_t max_settings_bytes = 256 * 1024;

// A failed call: the kind of exception the SDK raises, and its text.
struct call_error {
  std::string kind;
  std::string message;
};
call_error value_error(std::string m) {
  return {"ValueError", std::move(m)};
}
call_error type_error(std::string m) {
  return {"TypeError", std::move(m)};
}

// Replies later (after an actor answered), to the same process only.
struct reply_to {
  std::string id;
  std::uint64_t gen = 0;
  std::optional<std::uint64_t> call;

  void operator()(self_ptr self, const json& result) const {
    if (auto* p = find(self)) p->proc->send(plugins::encode_reply(*call, result));
  }
  void fail(self_ptr self, const call_error& e) const {
    if (auto* p = find(self)) p->proc->send(plugins::encode_reply_error(*call, e.kind, e.message));
  }
  plugin_entry* find(self_ptr self) const {
    if (!call) return nullptr;
    auto it = self->state.plugins.find(id);
    if (it == self->state.plugins.end() || it->second.gen != gen || !it->second.proc)
      return nullptr;
    return &it->second;
  }
};

const json* arg(const json& args, const char* name) {
  auto it = args.find(name);
  return it == args.end() ? nullptr : &*it;
}

// An integer argument; an error when it is missing or not an integer.
std::optional<call_error> int_arg(const json& args, const char* name, long long& out) {
  const json* v = arg(args, name);
  if (v == nullptr) return type_error(std::string("missing argument '") + name + "'");
  if (!v->is_number_integer()) return type_error(std::string(name) + " must be an integer");
  out = v->get<long long>();
  return std::nullopt;
}

std::optional<call_error> string_arg(const json& args, const char* name, std::string& out) {
  const json* v = arg(args, name);
  if (v == nullptr) return type_error(std::string("missing argument '") + name + "'");
  if (!v->is_string()) return type_error(std::string(name) + " must be a string");
  out = v->get<std::string>();
  return std::nullopt;
}

json own_settings(const plugins_state& st, const std::string& id) {
  auto e = st.stored.find(id);
  if (e == st.stored.end() || !e->is_object()) return json::object();
  auto s = e->find("settings");
  return s != e->end() && s->is_object() ? *s : json::object();
}

json device_state(const plugins_wiring& w) {
  auto device = w.device_source ? w.device_source->load() : nullptr;
  auto mixer = w.mixer ? w.mixer->load() : nullptr;
  const auto status = device ? *device : device_view{};
  const auto mix = mixer ? mixer->mix : mixer_snapshot{};
  return {{"connected", status.connected},
          {"port", status.port},
          {"page", status.page},
          {"firmware_version", status.firmware_version},
          {"sliders", mixerd::json::sliders_to_json(mix)["sliders"]},
          {"mutes", mixerd::json::mutes_to_json(mix.mutes)},
          {"volume", mix.master_volume}};
}

// The log text of a plugin: control bytes as spaces, cut at the stderr line limit.
std::string log_text(std::string text) {
  if (text.size() > plugins::max_stderr_line_bytes) text.resize(plugins::max_stderr_line_bytes);
  std::replace_if(text.begin(), text.end(), validation::is_control_byte, ' ');
  return text;
}

// The result of a call answered at once, or the error; nullopt when the answer comes later.
using answer = std::variant<json, call_error, std::monostate>;

// Runs a command on the plugin's behalf (docs/plugins.md, "Methods"): a plugin may do what the
// controller may, and what only local code may (device.send), and show toasts. A bad argument
// is the plugin's ValueError; `answer` maps the rest of the result to the call's reply.
answer run_for(self_ptr self, const plugin_entry& p, std::string_view command, const json& input,
               const reply_to& reply,
               std::function<void(self_ptr, const reply_to&, const command_result&)> answer) {
  const auto* commands = self->state.wiring.commands;
  if (commands == nullptr) return json(false);
  command_origin origin;
  origin.from = command_origin::front_end::plugin;
  origin.grants = {commands::permission::control, commands::permission::local,
                   commands::permission::trusted, commands::permission::toast_api_key};
  origin.who = "plugin " + p.info.id;
  if (clock::now() < p.woken_until) origin.depth = p.woken_depth;
  commands->run(self, std::move(origin), command, input,
                [self, reply, answer = std::move(answer)](command_result r) {
                  if (r.status == 400) return reply.fail(self, value_error(r.error));
                  answer(self, reply, r);
                });
  return std::monostate{};
}

// True when the line was queued to the connected device.
answer send_serial(self_ptr self, const plugin_entry& p, const json& args, const reply_to& reply) {
  std::string command;
  if (auto e = string_arg(args, "command", command)) return *e;
  return run_for(self, p, "device.send", {{"line", command}}, reply,
                 [](self_ptr me, const reply_to& to, const command_result& r) {
                   to(me, r.ok() && r.body.value("sent", false));
                 });
}

// True when the macro started; false for an empty slot or one still running.
answer trigger_macro(self_ptr self, const plugin_entry& p, const json& args,
                     const reply_to& reply) {
  long long index = 0;
  if (auto e = int_arg(args, "index", index)) return *e;
  json input = {{"index", index}};
  if (const json* page = arg(args, "page"); page != nullptr && !page->is_null()) {
    if (!page->is_number_integer()) return type_error("page must be an integer or None");
    input["page"] = *page;
  }
  return run_for(self, p, "macro.trigger", input, reply,
                 [](self_ptr me, const reply_to& to, const command_result& r) {
                   if (r.internal)
                     return to.fail(me, {"RuntimeError", "the macros did not answer in time"});
                   to(me, r.ok());
                 });
}

answer register_macro_type(self_ptr self, plugin_entry& p, const json& args) {
  std::string type;
  if (auto e = string_arg(args, "type_name", type)) return *e;
  if (!plugins::valid_macro_type(type))
    return value_error("type_name must be 1 to 64 letters, digits, '_', '-' or '.'");
  auto& types = self->state.macro_types;
  auto it = types.find(type);
  if (it != types.end() && it->second != p.info.id)
    return value_error("macro type '" + type + "' is registered by plugin " + it->second);
  types[type] = p.info.id;
  log::info(component_of(p), "handles macro type ", type);
  return json(true);
}

answer get_slider_value(self_ptr self, const json& args) {
  long long index = 0;
  if (auto e = int_arg(args, "index", index)) return *e;
  if (index < 1 || index > 4) return value_error("index must be 1 to 4");
  auto& w = self->state.wiring;
  auto mixer = w.mixer ? w.mixer->load() : nullptr;
  const auto mix = mixer ? mixer->mix : mixer_snapshot{};
  return json(mix.sliders[static_cast<std::size_t>(index - 1)].value);
}

answer get_setting(self_ptr self, plugin_entry& p, const json& args) {
  std::string key;
  if (auto e = string_arg(args, "key", key)) return *e;
  auto own = own_settings(self->state, p.info.id);
  if (auto v = own.find(key); v != own.end()) return *v;
  if (auto spec = p.m.schema.find(key);
      spec != p.m.schema.end() && !spec->second.default_value.is_null())
    return spec->second.default_value;
  const json* fallback = arg(args, "default");
  return fallback ? *fallback : json();
}

answer set_setting(self_ptr self, plugin_entry& p, const json& args) {
  std::string key;
  if (auto e = string_arg(args, "key", key)) return *e;
  const json* value = arg(args, "value");
  if (value == nullptr) return type_error("missing argument 'value'");
  if (auto problem = plugins::check_setting(p.m.schema, key, *value); !problem.empty())
    return value_error(problem);
  auto settings = own_settings(self->state, p.info.id);
  settings[key] = *value;
  if (settings.dump(-1, ' ', false, json::error_handler_t::replace).size() > max_settings_bytes)
    return value_error("the plugin's settings would be over " +
                       std::to_string(max_settings_bytes / 1024) + " KiB as JSON");
  auto& entry = self->state.stored[p.info.id];
  if (!entry.is_object()) entry = json::object();
  if (!entry.contains("enabled")) entry["enabled"] = p.info.enabled;
  entry["settings"] = std::move(settings);
  persist(self);
  return json(true);
}

// A toast of the `plugins` handler: the title is its first line, the message its second. True
// when the device shows it.
answer show_notification(self_ptr self, const plugin_entry& p, const json& args,
                         const reply_to& reply) {
  std::string title;
  std::string message;
  if (auto e = string_arg(args, "title", title)) return *e;
  if (auto e = string_arg(args, "message", message)) return *e;
  return run_for(self, p, "toast.send", {{"message", title}, {"subtitle", message}}, reply,
                 [](self_ptr me, const reply_to& to, const command_result& r) { to(me, r.ok()); });
}

answer write_log(plugin_entry& p, const json& args) {
  const json* message = arg(args, "message");
  if (message == nullptr) return type_error("missing argument 'message'");
  std::string level = "info";
  if (const json* l = arg(args, "level"); l != nullptr && !l->is_null()) {
    if (!l->is_string()) return type_error("level must be a string");
    level = l->get<std::string>();
  }
  const auto text = log_text(message->is_string()
                                 ? message->get<std::string>()
                                 : message->dump(-1, ' ', false, json::error_handler_t::replace));
  const auto where = component_of(p);
  if (level == "debug")
    log::debug(where, text);
  else if (level == "info")
    log::info(where, text);
  else if (level == "warning")
    log::warn(where, text);
  else if (level == "error")
    log::error(where, text);
  else
    return value_error("level must be debug, info, warning or error");
  return json();
}

answer dispatch(self_ptr self, plugin_entry& p, const plugins::line_call& call,
                const reply_to& reply) {
  const auto& m = call.method;
  const auto& args = call.args;
  auto& w = self->state.wiring;
  if (m == "send_serial") return send_serial(self, p, args, reply);
  if (m == "trigger_macro") return trigger_macro(self, p, args, reply);
  if (m == "register_macro_type") return register_macro_type(self, p, args);
  if (m == "get_slider_value") return get_slider_value(self, args);
  if (m == "get_device_state") return device_state(w);
  if (m == "get_music_state") {
    auto music = w.music ? w.music->load() : nullptr;
    return music && music->state ? mixerd::json::to_json(*music->state) : json();
  }
  if (m == "get_all_macros") {
    auto set = w.macro_set ? w.macro_set->load() : nullptr;
    return set ? macros::to_json(set->set) : json();
  }
  if (m == "get_setting") return get_setting(self, p, args);
  if (m == "set_setting") return set_setting(self, p, args);
  if (m == "get_all_settings")
    return plugins::effective_settings(p.m.schema, own_settings(self->state, p.info.id));
  if (m == "show_notification") return show_notification(self, p, args, reply);
  if (m == "log") return write_log(p, args);
  return call_error{"RuntimeError", "unknown method '" + log_text(m) + "'"};
}

}  // namespace

void handle_call(self_ptr self, plugin_entry& p, plugins::line_call& call) {
  const auto now = clock::now();
  if (now - p.calls_window >= std::chrono::seconds(1)) {
    p.calls_window = now;
    p.calls_in_window = 0;
  }
  if (++p.calls_in_window > plugins::max_calls_per_second) {
    if (p.pending_error.empty())
      log::warn(component_of(p), "flooding: over ", plugins::max_calls_per_second,
                " calls within one second; killed");
    return kill_plugin(p, "flooding: over " + std::to_string(plugins::max_calls_per_second) +
                              " calls within one second");
  }
  const reply_to reply{p.info.id, p.gen, call.id};
  auto result = dispatch(self, p, call, reply);
  if (auto* error = std::get_if<call_error>(&result)) {
    if (call.id)
      p.proc->send(plugins::encode_reply_error(*call.id, error->kind, error->message));
    else
      log::warn(component_of(p), call.method, " failed: ", error->kind, ": ", error->message);
  } else if (auto* value = std::get_if<json>(&result)) {
    if (call.id) p.proc->send(plugins::encode_reply(*call.id, *value));
  }
}

}  // namespace mixerd::bridge
