// What the plugins capability declares to the daemon: the `plugin` macro kind, its part of
// settings.json, its toast handler and its restart counter (protocol/README.md, "Plugins"). The
// manifest, the line codec and the hooks are in plugins.cpp.
#include <atomic>
#include <string>

#include "protocol/json.hpp"
#include "protocol/macro_kinds.hpp"
#include "protocol/plugins.hpp"
#include "protocol/settings_schema.hpp"

namespace mixerd {

// ---- Macro kind: plugin, run by the handler a plugin registered for its plugin_type -----------

namespace {

constexpr std::size_t max_plugin_fields_bytes = 16 * 1024;
constexpr int max_plugin_nesting = 16;

// plugin_type plus that type's own fields, kept as they are.
bool read_plugin_macro(macros::field_reader& r) {
  const auto* type = r.find("plugin_type");
  if (type == nullptr) return r.missing("plugin_type");
  if (!type->is_string() || !plugins::valid_macro_type(type->get_ref<const std::string&>()))
    return r.fail("plugin_type", "must be 1 to 64 letters, digits, '_', '-' or '.'");
  // Copying and encoding JSON recurse: a deeply nested value is refused before either.
  if (json::nested_deeper_than(r.in(), max_plugin_nesting))
    return r.fail("plugin_type", "has fields nested deeper than " +
                                     std::to_string(max_plugin_nesting) + " levels with it");
  nlohmann::json own = nlohmann::json::object();
  for (const auto& [key, value] : r.in().items())
    if (key != "type" && key != "name" && key != "icon") own[key] = value;
  if (own.dump().size() > max_plugin_fields_bytes)
    return r.fail("plugin_type", "has more than 16 KiB of fields with it");
  for (auto& [key, value] : own.items())
    r.out[key] = std::move(value);
  return true;
}

}  // namespace

std::vector<macros::kind> plugins_macro_kinds() {
  // Not a step of a sequence: its handler answers for the whole macro.
  return {{"plugin", false, read_plugin_macro, [](const nlohmann::json& fields) {
             return command_request{"plugin.run_macro", {{"macro", fields}}};
           }}};
}

}  // namespace mixerd

namespace mixerd {

// ---- Settings: each plugin's switch and own settings -----------------------------------------

namespace {

using json = nlohmann::json;

// The plugin bridge's key: plugin id -> {"enabled": bool, "settings": object}. The values of a
// plugin's settings are checked against its manifest when it sets them, not here (the manifest
// may change while the file stays).
std::optional<settings_schema::problem> check_plugins(const json& s) {
  auto it = s.find("plugins");
  if (it == s.end()) return std::nullopt;
  if (!it->is_object())
    return settings_schema::problem{
        "plugins", "must be an object of plugin ids to {\"enabled\", \"settings\"}"};
  for (const auto& [id, entry] : it->items()) {
    const std::string key = "plugins." + id;
    if (!entry.is_object()) return settings_schema::problem{key, "must be an object"};
    if (auto e = entry.find("enabled"); e != entry.end() && !e->is_boolean())
      return settings_schema::problem{key + ".enabled", "must be true or false"};
    if (auto st = entry.find("settings"); st != entry.end() && !st->is_object())
      return settings_schema::problem{key + ".settings", "must be an object"};
  }
  return std::nullopt;
}

}  // namespace

settings_schema::part plugins_settings() {
  return {"plugins",
          {settings_schema::guarded(
              {"plugins",
               {{"type", "object"},
                {"description",
                 "Plugin id -> {\"enabled\": bool (default true), \"settings\": the plugin's own "
                 "settings, checked against its manifest's settings_schema}"},
                {"additionalProperties",
                 {{"type", "object"},
                  {"properties",
                   {{"enabled", {{"type", "boolean"}, {"default", true}}},
                    {"settings", {{"type", "object"}}}}}}}},
               check_plugins})}};
}

}  // namespace mixerd

namespace mixerd {

toast_handler_list plugins_toast_handlers() {
  return {{"plugins", "Plugins", "#F59E0B", true, false}};
}

}  // namespace mixerd

namespace mixerd {

std::atomic<std::uint64_t>& plugin_restarts_of_process() {
  static std::atomic<std::uint64_t> restarts{0};
  return restarts;
}

}  // namespace mixerd
