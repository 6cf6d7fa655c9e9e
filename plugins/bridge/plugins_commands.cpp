// The plugin host's commands: switch a plugin on or off; and, for the macros, run a macro of a
// plugin's type and ask the plugins whether they handle a macro themselves.
#include "plugins/bridge/plugins_commands.hpp"

#include "protocol/json.hpp"
#include "protocol/plugins.hpp"

namespace mixerd {

namespace {

constexpr std::string_view plugins_missing = "The plugin capability is not running";

void switch_plugin(const command_call_ptr& call) {
  const auto id = call->text("id");
  call->ask(call->dir().get<plugins_actor>(), plugin_switch{id, call->flag("enabled")},
            [id](const command_call_ptr& c, const plugin_switch_result& out) {
              if (!out.found) return c->fail(404, "No plugin '" + id + "'");
              c->ok({{"success", true}, {"plugin", json::to_json(out.plugin)}});
            });
}

// The bridge answers when the handler returned, or when the plugin was killed for not
// returning within the hook time limit; this limit only covers a stuck bridge.
void run_macro(const command_call_ptr& call) {
  call->ask(
      call->dir().get<plugins_actor>(),
      plugin_macro_run{call->args().at("macro"), call->origin().depth},
      [](const command_call_ptr& c, const plugin_macro_outcome& out) {
        if (!out.ok) return c->fail(502, out.error);
        c->ok({{"success", true}});
      },
      plugins::hook_timeout + std::chrono::seconds(1));
}

// Every plugin's on_macro_execute: handled (true) when one of them returned True within
// plugins::macro_execute_wait.
void intercept(const command_call_ptr& call) {
  call->ask(
      call->dir().get<plugins_actor>(),
      plugin_macro_ask{call->args().at("macro"), call->origin().depth},
      [](const command_call_ptr& c, bool handled) {
        c->ok({{"handled", handled}});
      },
      plugins::macro_execute_wait + std::chrono::milliseconds(500));
}

}  // namespace

std::vector<command> plugins_commands() {
  auto enabled = commands::flag("enabled", "Started (true) or stopped; persisted");
  enabled.null_is_absent = true;
  return {
      {"plugin.switch",
       "Starts (enabled) or stops a plugin, and keeps the switch",
       {commands::text("id", 0, "The plugin's id"), enabled},
       commands::permission::control,
       plugins_missing,
       switch_plugin},
      {"plugin.run_macro",
       "Runs a plugin macro through the handler its plugin registered for its plugin_type",
       {commands::object("macro", "The plugin macro (type plugin, plugin_type and its fields)")},
       commands::permission::local,
       "Plugins not available",
       run_macro,
       "the plugin did not answer in time"},
      {"plugin.intercept",
       "Asks every plugin's on_macro_execute whether it handles a macro itself",
       {commands::object("macro", "The macro about to run")},
       commands::permission::local,
       "Plugins not available",
       intercept},
  };
}

}  // namespace mixerd
