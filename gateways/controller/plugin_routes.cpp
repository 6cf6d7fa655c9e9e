// Routes of the plugin-host capability (docs/api.md, "Plugins"): the list is answered from the
// bridge's published view; a switch asks the bridge, which starts or stops the plugin's process
// and persists the switch.
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
  for (const auto& p : view->plugins)
    list.push_back(json::to_json(p));
  reply(x, {{"plugins", std::move(list)}});
}

void post_plugin(http::exchange& x) {
  auto body = body_object(x);
  if (!body) return;
  auto enabled = body->find("enabled");
  if (enabled == body->end() || enabled->is_null())
    return x.respond(x.error(400, "Missing field: enabled"));
  if (!enabled->is_boolean()) return x.respond(x.error(400, "enabled must be true or false"));
  auto bridge = x.dir.get<plugins_actor>();
  if (!bridge) return x.respond(x.error(503, not_running));
  x.ask(
      bridge,
      [respond = x.respond, errors = x.policy.errors,
       id = x.segment(0)](const plugin_switch_result& out) {
        if (!out.found) return respond(errors(404, "No plugin '" + id + "'"));
        respond(
            http::json_response(200, {{"success", true}, {"plugin", json::to_json(out.plugin)}}));
      },
      plugin_switch{x.segment(0), enabled->get<bool>()});
}

const http::route_registration routes{http::listener_kind::controller,
                                      {
                                          {"GET", "/api/plugins", true, get_plugins},
                                          {"POST", "/api/plugins/{id}", true, post_plugin},
                                      }};

}  // namespace

}  // namespace mixerd::controller
