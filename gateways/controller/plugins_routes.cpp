// Routes of the plugin-host capability (docs/api.md, "Plugins"): the list is answered from the
// bridge's published view; a switch runs plugin.switch (plugins/bridge/plugins_commands.cpp).
#include "gateways/controller/controller_listener.hpp"
#include "gateways/http/json_body.hpp"
#include "protocol/json.hpp"
#include "protocol/plugins.hpp"

namespace mixerd::controller {

namespace {

constexpr std::string_view not_running = "The plugin capability is not running";

void get_plugins(http::exchange& x) {
  auto view = x.dir.view<plugins_view>();
  if (!view) return x.respond(x.error(503, not_running));
  auto list = nlohmann::json::array();
  for (const auto& p : view->plugins) {
    auto plugin = json::to_json(p);
    auto schema = view->settings_schemas.find(p.id);
    plugin["settings_schema"] =
        schema != view->settings_schemas.end() ? schema->second : nlohmann::json::object();
    list.push_back(std::move(plugin));
  }
  reply(x, {{"plugins", std::move(list)}});
}

const http::route_registration routes{
    http::listener_kind::controller,
    {
        {"GET", "/api/plugins", true, get_plugins},
        http::command_route("POST", "/api/plugins/{id}", "plugin.switch"),
    }};

}  // namespace

}  // namespace mixerd::controller
