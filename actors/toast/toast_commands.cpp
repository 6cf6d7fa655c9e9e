// The toast capability's commands: show a toast, switch a handler, regenerate the notification
// API key. They need the notification API key (the notification listener checks it), except
// for a plugin's toast, which goes through the `plugins` handler.
#include "actors/toast/toast_commands.hpp"

#include <caf/send.hpp>

#include "protocol/toast.hpp"

namespace mixerd {

namespace {

constexpr std::string_view toast_missing = "Toasts not available";

// The whole toast request (message, subtitle, icon, color, duration_ms), with the wording of
// the notification API.
bool read_toast(const nlohmann::json& input, nlohmann::json& args, commands::problem& why) {
  auto toast = toast::parse_toast_request(input, why.text);
  if (!toast) return false;
  args["message"] = toast->message;
  args["subtitle"] = toast->subtitle;
  args["icon"] = toast->icon;
  args["color"] = toast->color;
  args["duration_ms"] = toast->duration_ms;
  return true;
}

// No field of their own: read with "message".
bool read_with_message(const nlohmann::json&, nlohmann::json&, commands::problem&) {
  return true;
}

bool read_enabled(const nlohmann::json& input, nlohmann::json& args, commands::problem& why) {
  auto enabled = input.find("enabled");
  if (enabled == input.end() || enabled->is_null()) {
    why.text = "enabled field is required";
    return false;
  }
  if (!enabled->is_boolean()) {
    why.text = "enabled must be true or false";
    return false;
  }
  args["enabled"] = enabled->get<bool>();
  return true;
}

void send(const command_call_ptr& call) {
  const auto& a = call->args();
  toast_content toast;
  toast.message = a.at("message").get<std::string>();
  toast.subtitle = a.at("subtitle").get<std::string>();
  toast.icon = a.at("icon").get<std::string>();
  toast.color = a.at("color").get<std::string>();
  toast.duration_ms = a.at("duration_ms").get<int>();
  // A toast is shown through the handler of where it comes from.
  const bool from_plugin = call->origin().from == command_origin::front_end::plugin;
  std::string handler = from_plugin ? "plugins" : "api";
  call->ask(call->dir().get<toast_actor>(), toast_post{handler, std::move(toast)},
            [handler](const command_call_ptr& c, const toast_outcome& out) {
              using r = toast_outcome::result;
              if (out.what == r::shown)
                return c->ok({{"status", "success"}, {"message", "Toast sent to the device"}});
              if (out.what == r::handler_disabled)
                return c->fail(503, "The " + handler + " handler is disabled");
              c->fail(503, "Device not connected");
            });
}

void switch_handler(const command_call_ptr& call) {
  const auto id = call->text("id");
  call->ask(call->dir().get<toast_actor>(), toast_switch{id, call->flag("enabled")},
            [id](const command_call_ptr& c, const toast_switch_result& out) {
              if (!out.found) return c->fail(404, "No handler '" + id + "'");
              c->ok({{"status", "success"}, {"handler", toast::handler_to_json(out.handler)}});
            });
}

// An integration tells whether its handler's source runs (GET /api/toast/handlers shows it).
void handler_loaded(const command_call_ptr& call) {
  caf::anon_send(call->dir().get<toast_actor>(),
                 toast_loaded{call->text("id"), call->flag("loaded")});
  call->ok({{"success", true}});
}

void regenerate_key(const command_call_ptr& call) {
  call->ask(call->dir().get<toast_actor>(), regenerate_atom_v,
            [](const command_call_ptr& c, const std::string& key) {
              c->ok({{"status", "success"}, {"api_key", key}, {"message", "API key regenerated"}});
            });
}

}  // namespace

std::vector<command> toast_commands() {
  auto message = commands::text("message", 0, "The toast's first line (at most 30 characters)");
  message.read = read_toast;
  auto later = [](commands::param p) {
    p.required = false;
    p.read = read_with_message;
    return p;
  };
  auto enabled = commands::flag("enabled", "Switched on (true) or off");
  enabled.read = read_enabled;
  return {
      {"toast.send",
       "Shows a toast on the device",
       {message, later(commands::text("subtitle", 0, "The second line (at most 40 characters)")),
        later(commands::text("icon", 0, "One of the icon names of GET /api/toast/status")),
        later(commands::text("color", 0, "3 or 6 hex digits, with or without #")),
        later(commands::integer("duration_ms", 1000, 30000, "How long it shows"))},
       commands::permission::toast_api_key,
       toast_missing,
       send},
      {"toast.switch_handler",
       "Switches a toast handler on or off",
       {commands::text("id", 0, "The handler"), enabled},
       commands::permission::toast_api_key,
       toast_missing,
       switch_handler},
      {"toast.handler_loaded",
       "Marks a toast handler's source as running (loaded) or not",
       {commands::text("id", 0, "The handler"), commands::flag("loaded", "Its source runs")},
       commands::permission::local,
       toast_missing,
       handler_loaded},
      {"toast.regenerate_key",
       "Replaces the notification API key; the old one is refused from then on",
       {},
       commands::permission::toast_api_key,
       toast_missing,
       regenerate_key},
  };
}

}  // namespace mixerd
