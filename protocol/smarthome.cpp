#include "protocol/smarthome.hpp"

#include <algorithm>
#include <cmath>

#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/macro_kinds.hpp"
#include "protocol/settings_schema.hpp"
#include "protocol/validation.hpp"

namespace mixerd {

// ---- Events ------------------------------------------------------------------------------

nlohmann::json smarthome_change::to_json() const {
  return json::to_json(device);
}

nlohmann::json smarthome_status::to_json() const {
  return {{"connected", connected}};
}

}  // namespace mixerd

namespace mixerd::smarthome {

namespace {

using nlohmann::json;

// Home Assistant's messages nest a few levels (event > data > new_state > attributes > ...);
// attributes of some integrations nest deeper, never near this.
constexpr int max_message_depth = 32;

const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const std::string* string_member(const json& object, const char* key) {
  const json* value = member(object, key);
  return value != nullptr && value->is_string() ? &value->get_ref<const std::string&>() : nullptr;
}

bool has_control_byte(std::string_view text) {
  return std::any_of(text.begin(), text.end(), validation::is_control_byte);
}

// The first `max_chars` characters of valid UTF-8 text.
std::string first_chars(const std::string& text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0U) == 0x80U) continue;
    if (chars == max_chars) return text.substr(0, i);
    ++chars;
  }
  return text;
}

// At most `max_bytes` bytes of valid UTF-8 text, cut before a character that does not fit.
std::string first_bytes(const std::string& text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0U) == 0x80U)
    --end;
  return text.substr(0, end);
}

std::string without_control_bytes(std::string text) {
  for (auto& c : text)
    if (validation::is_control_byte(c)) c = ' ';
  return text;
}

std::optional<settings_problem> check_url(const json& value) {
  if (!value.is_string())
    return settings_problem{"smarthome.url",
                            "must be the http(s)://host:port address of Home Assistant"};
  const auto& url = value.get_ref<const std::string&>();
  if (url.empty()) return std::nullopt;  // not configured
  auto parts = uri::split_url(url, uri::url_family::http);
  if (!parts)
    return settings_problem{"smarthome.url",
                            "must be the http(s)://host:port address of Home Assistant"};
  if (parts->target.find('?') != std::string::npos)
    return settings_problem{"smarthome.url", "must not carry a query"};
  return std::nullopt;
}

}  // namespace

// ---- Settings ---------------------------------------------------------------------------------

std::optional<settings_problem> check_settings(const json& all) {
  const json* key = member(all, "smarthome");
  if (key == nullptr) return std::nullopt;
  if (!key->is_object())
    return settings_problem{"smarthome", "must be an object with url and token"};
  const json* url = member(*key, "url");
  if (url == nullptr) return settings_problem{"smarthome.url", "is required"};
  if (auto bad = check_url(*url)) return bad;
  const bool configured = !url->get_ref<const std::string&>().empty();
  const json* token = member(*key, "token");
  if (token == nullptr) {
    if (configured) return settings_problem{"smarthome.token", "is required"};
  } else {
    // The value itself is never quoted: it is a secret.
    if (!token->is_string())
      return settings_problem{"smarthome.token", "must be a string (a long-lived access token)"};
    const auto& text = token->get_ref<const std::string&>();
    if ((configured && text.empty()) || text.size() > max_token_bytes)
      return settings_problem{"smarthome.token",
                              "must be 1 to " + std::to_string(max_token_bytes) + " bytes"};
    if (has_control_byte(text))
      return settings_problem{"smarthome.token", "must not contain control characters"};
  }
  if (const json* entities = member(*key, "entities")) {
    if (!entities->is_array() || entities->size() > max_entities)
      return settings_problem{
          "smarthome.entities",
          "must be an array of at most " + std::to_string(max_entities) + " entity ids"};
    for (std::size_t i = 0; i < entities->size(); ++i) {
      const auto& id = (*entities)[i];
      if (!id.is_string() || !valid_entity_id(id.get_ref<const std::string&>()))
        return settings_problem{"smarthome.entities[" + std::to_string(i) + "]",
                                "must be an entity id such as light.desk"};
    }
  }
  if (const json* verify = member(*key, "verify_tls"); verify != nullptr && !verify->is_boolean())
    return settings_problem{"smarthome.verify_tls", "must be true or false"};
  return std::nullopt;
}

std::optional<settings> settings_from(const json& all) {
  if (check_settings(all)) return std::nullopt;
  const json* key = member(all, "smarthome");
  if (key == nullptr) return std::nullopt;
  settings out;
  out.url = key->at("url").get<std::string>();
  if (out.url.empty()) return std::nullopt;
  auto parts = uri::split_url(out.url, uri::url_family::http);
  if (!parts) return std::nullopt;
  out.websocket = *parts;
  // The WebSocket API is <base>/api/websocket; a base with a path (behind a proxy) keeps it.
  std::string base = out.websocket.target;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  out.websocket.target = base + "/api/websocket";
  out.token = key->value("token", std::string());
  if (const json* entities = member(*key, "entities"))
    out.entities = entities->get<std::vector<std::string>>();
  out.verify_tls = key->value("verify_tls", true);
  return out;
}

bool valid_entity_id(std::string_view id) {
  auto dot = id.find('.');
  auto part_ok = [](std::string_view part) {
    return !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
  };
  return id.size() <= max_entity_id_bytes && dot != std::string_view::npos &&
         part_ok(id.substr(0, dot)) && part_ok(id.substr(dot + 1));
}

std::string_view domain_of(std::string_view entity_id) {
  return entity_id.substr(0, entity_id.find('.'));
}

bool listed(std::string_view entity_id, const std::vector<std::string>& entities) {
  if (!entities.empty())
    return std::find(entities.begin(), entities.end(), entity_id) != entities.end();
  const auto domain = domain_of(entity_id);
  return std::find(std::begin(default_domains), std::end(default_domains), domain) !=
         std::end(default_domains);
}

// ---- Home Assistant's messages -----------------------------------------------------------------

std::optional<incoming> parse(std::string_view text) {
  std::string why;
  auto j = mixerd::json::parse_depth_limited(text, max_message_depth, why);
  if (!j || !j->is_object()) return std::nullopt;
  const std::string* type = string_member(*j, "type");
  if (type == nullptr) return std::nullopt;
  incoming out;
  if (const json* id = member(*j, "id"); id != nullptr && id->is_number_integer())
    out.id = id->get<std::int64_t>();
  if (*type == "auth_required") {
    out.type = incoming::kind::auth_required;
  } else if (*type == "auth_ok") {
    out.type = incoming::kind::auth_ok;
  } else if (*type == "auth_invalid") {
    out.type = incoming::kind::auth_invalid;
    if (const std::string* message = string_member(*j, "message")) out.error = *message;
  } else if (*type == "pong") {
    out.type = incoming::kind::pong;
  } else if (*type == "result") {
    out.type = incoming::kind::result;
    const json* success = member(*j, "success");
    out.success = success != nullptr && success->is_boolean() && success->get<bool>();
    if (member(*j, "result") != nullptr) out.result = std::move((*j)["result"]);
    if (!out.success) {
      const json* error = member(*j, "error");
      const std::string* code = error ? string_member(*error, "code") : nullptr;
      const std::string* message = error ? string_member(*error, "message") : nullptr;
      out.error = (code ? *code : std::string("error")) + (message ? ": " + *message : "");
    }
  } else if (*type == "event") {
    out.type = incoming::kind::event;
    const json* event = member(*j, "event");
    const std::string* event_type = event ? string_member(*event, "event_type") : nullptr;
    const json* data = event ? member(*event, "data") : nullptr;
    if (event_type != nullptr && *event_type == "state_changed" && data != nullptr) {
      if (const std::string* entity = string_member(*data, "entity_id"))
        out.changed_entity = *entity;
      if (const json* state = member(*data, "new_state")) out.new_state = *state;
    }
  }
  return out;
}

int brightness_percent(double ha_brightness) {
  if (!(ha_brightness > 0)) return 0;  // NaN included
  if (ha_brightness >= 255) return 100;
  return static_cast<int>(std::floor(ha_brightness * 100.0 / 255.0 + 0.5));
}

std::optional<smarthome_device> device_of(const json& state) {
  const std::string* entity = string_member(state, "entity_id");
  const std::string* value = string_member(state, "state");
  if (entity == nullptr || value == nullptr || !valid_entity_id(*entity)) return std::nullopt;
  smarthome_device d;
  d.entity_id = *entity;
  d.domain = std::string(domain_of(*entity));
  d.state = first_bytes(without_control_bytes(*value), max_state_bytes);
  d.friendly_name = *entity;
  if (const json* attributes = member(state, "attributes")) {
    if (const std::string* name = string_member(*attributes, "friendly_name");
        name != nullptr && !name->empty())
      d.friendly_name = first_bytes(without_control_bytes(*name), max_friendly_name_bytes);
    if (const json* b = member(*attributes, "brightness"); b != nullptr && b->is_number())
      d.brightness = brightness_percent(b->get<double>());
  }
  return d;
}

std::string auth_message(const std::string& token) {
  return json{{"type", "auth"}, {"access_token", token}}.dump();
}

std::string subscribe_state_changed(std::int64_t id) {
  return json{{"id", id}, {"type", "subscribe_events"}, {"event_type", "state_changed"}}.dump();
}

std::string get_states(std::int64_t id) {
  return json{{"id", id}, {"type", "get_states"}}.dump();
}

std::string ping(std::int64_t id) {
  return json{{"id", id}, {"type", "ping"}}.dump();
}

std::string call_service(std::int64_t id, std::string_view domain, std::string_view service,
                         const std::string& entity_id, std::optional<int> brightness_pct) {
  json message{{"id", id},
               {"type", "call_service"},
               {"domain", domain},
               {"service", service},
               {"target", {{"entity_id", entity_id}}}};
  if (brightness_pct) message["service_data"] = {{"brightness_pct", *brightness_pct}};
  return message.dump();
}

// ---- API bodies --------------------------------------------------------------------------------

json to_json(const smarthome_view& view) {
  json devices = json::array();
  for (const auto& d : view.devices)
    devices.push_back(mixerd::json::to_json(d));
  return {{"connected", view.connected}, {"devices", std::move(devices)}};
}

toast_text toggle_toast(const smarthome_device& device) {
  toast_text out;
  out.message =
      first_chars(without_control_bytes(device.friendly_name), limits::toast_message_max_chars);
  out.subtitle =
      first_chars("Now " + without_control_bytes(device.state), limits::toast_subtitle_max_chars);
  return out;
}

}  // namespace mixerd::smarthome

namespace mixerd {

// ---- Macro kind: smarthome, a Home Assistant service call -----------------------------------

namespace {

bool read_service_call(macros::field_reader& r) {
  const auto* id = r.find("entity_id");
  if (id == nullptr) return r.missing("entity_id");
  if (!id->is_string() || !smarthome::valid_entity_id(id->get_ref<const std::string&>()))
    return r.fail("entity_id", "must be an entity id such as light.desk");
  r.out["entity_id"] = *id;
  return r.one_of("action", {"toggle", "turn_on", "turn_off"}, nullptr) &&
         r.integer("brightness", 0, 100, false);
}

// turn_on with a brightness sets it (0 turns the light off); the others ignore it.
command_request service_command(const nlohmann::json& fields) {
  const auto action = fields.at("action").get<std::string>();
  nlohmann::json args = {{"entity_id", fields.at("entity_id")}};
  if (action == "turn_on" && fields.contains("brightness")) {
    args["value"] = fields.at("brightness");
    return {"smarthome.brightness", std::move(args)};
  }
  return {"smarthome." + action, std::move(args)};
}

}  // namespace

std::vector<macros::kind> smarthome_macro_kinds() {
  return {{"smarthome", true, read_service_call, service_command}};
}

}  // namespace mixerd

namespace mixerd {

// ---- Settings: Home Assistant -----------------------------------------------------------------

namespace {

std::optional<settings_schema::problem> check_smarthome(const nlohmann::json& s) {
  if (auto home = smarthome::check_settings(s))
    return settings_schema::problem{std::move(home->key), std::move(home->message)};
  return std::nullopt;
}

}  // namespace

settings_schema::part smarthome_settings() {
  return {"smarthome",
          {settings_schema::guarded(
              {"smarthome",
               {{"type", "object"},
                {"description", "Home Assistant; without url: off"},
                {"properties",
                 {{"url",
                   {{"type", "string"}, {"description", "http(s)://host:port of Home Assistant"}}},
                  {"token",
                   {{"type", "string"},
                    {"writeOnly", true},
                    {"description", "A long-lived access token"}}},
                  {"entities",
                   {{"type", "array"},
                    {"items", {{"type", "string"}}},
                    {"description",
                     "The entities listed (default: every light, switch, fan and input_boolean)"}}},
                  {"verify_tls", {{"type", "boolean"}, {"default", true}}}}}},
               check_smarthome})}};
}

}  // namespace mixerd

namespace mixerd {

toast_handler_list smarthome_toast_handlers() {
  return {{"smarthome", "Smart home", "#41BDF5", true, true}};
}

}  // namespace mixerd
