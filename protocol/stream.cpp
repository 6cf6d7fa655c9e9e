#include "protocol/stream.hpp"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <algorithm>
#include <array>

#include "protocol/json.hpp"
#include "protocol/macro_kinds.hpp"
#include "protocol/settings_schema.hpp"
#include "protocol/validation.hpp"

namespace mixerd {

// ---- Events ------------------------------------------------------------------------------

nlohmann::json stream_change::to_json() const {
  return {{"scene", scene}};
}

nlohmann::json stream_status::to_json() const {
  return {{"connected", connected}, {"streaming", streaming}, {"recording", recording}};
}

}  // namespace mixerd

namespace mixerd::stream {

namespace {

using nlohmann::json;

// Standard padded base64 of `bytes`.
std::string base64(const unsigned char* bytes, std::size_t size) {
  std::string out(4 * ((size + 2) / 3), '\0');
  const int written =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), bytes, static_cast<int>(size));
  out.resize(static_cast<std::size_t>(std::max(written, 0)));
  return out;
}

std::string base64_sha256(std::string_view first, std::string_view second) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  EVP_DigestUpdate(ctx, first.data(), first.size());
  EVP_DigestUpdate(ctx, second.data(), second.size());
  unsigned int size = 0;
  EVP_DigestFinal_ex(ctx, digest.data(), &size);
  EVP_MD_CTX_free(ctx);
  return base64(digest.data(), size);
}

const json* field(const json& object, const char* name) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

std::optional<int> int_of(const json& object, const char* name) {
  const json* v = field(object, name);
  if (v == nullptr || !v->is_number_integer()) return std::nullopt;
  const auto n = v->get<std::int64_t>();
  if (n < -1'000'000'000 || n > 1'000'000'000) return std::nullopt;
  return static_cast<int>(n);
}

json data_object(const json& d, const char* name) {
  const json* v = field(d, name);
  return v != nullptr && v->is_object() ? *v : json::object();
}

// The first `max_chars` characters of UTF-8 text, control bytes as spaces (a toast field).
std::string toast_text(std::string_view text, std::size_t max_chars) {
  std::string out;
  std::size_t chars = 0;
  for (const char c : text) {
    const bool continuation = (static_cast<unsigned char>(c) & 0xC0) == 0x80;
    if (!continuation && chars++ == max_chars) break;
    out.push_back(validation::is_control_byte(c) ? ' ' : c);
  }
  return out;
}

}  // namespace

std::optional<settings> settings_from(const nlohmann::json& all, std::string& key,
                                      std::string& error) {
  settings out;
  auto it = all.find(std::string(settings_key));
  if (it != all.end()) {
    if (!it->is_object()) {
      key = settings_key;
      error = "must be an object {\"url\", \"password\"}";
      return std::nullopt;
    }
    if (const json* url = field(*it, "url")) {
      if (!url->is_string()) {
        key = "stream.url";
        error = "must be a ws:// or wss:// URL such as \"ws://127.0.0.1:4455\"";
        return std::nullopt;
      }
      out.url = url->get<std::string>();
    }
    if (const json* password = field(*it, "password")) {
      if (!password->is_string() ||
          password->get_ref<const std::string&>().size() > max_password_bytes) {
        key = "stream.password";
        error = "must be a string of at most " + std::to_string(max_password_bytes) + " bytes";
        return std::nullopt;
      }
      out.password = password->get<std::string>();
    }
  }
  auto parts = uri::split_url(out.url, uri::url_family::ws);
  if (!parts) {
    key = "stream.url";
    error = "must be a ws:// or wss:// URL such as \"ws://127.0.0.1:4455\"";
    return std::nullopt;
  }
  out.endpoint = std::move(*parts);
  return out;
}

std::string auth_string(std::string_view password, std::string_view salt,
                        std::string_view challenge) {
  const std::string secret = base64_sha256(password, salt);
  return base64_sha256(secret, challenge);
}

std::optional<message> parse_message(std::string_view text, std::string& error) {
  auto parsed = mixerd::json::parse_depth_limited(text, max_json_depth, error);
  if (!parsed) return std::nullopt;
  const json& j = *parsed;
  auto op = int_of(j, "op");
  const json* d = field(j, "d");
  if (!op || d == nullptr || !d->is_object()) {
    error = "not an obs-websocket message ({\"op\": number, \"d\": object})";
    return std::nullopt;
  }
  switch (*op) {
    case 0: {
      hello h;
      auto rpc = int_of(*d, "rpcVersion");
      if (!rpc) break;
      h.rpc_version = *rpc;
      if (const json* auth = field(*d, "authentication")) {
        h.challenge = string_of(*auth, "challenge");
        h.salt = string_of(*auth, "salt");
        if (!h.challenge || !h.salt) break;
      }
      return h;
    }
    case 2: {
      auto rpc = int_of(*d, "negotiatedRpcVersion");
      if (!rpc) break;
      return identified{*rpc};
    }
    case 5: {
      auto type = string_of(*d, "eventType");
      if (!type) break;
      return event{std::move(*type), data_object(*d, "eventData")};
    }
    case 7: {
      response r;
      auto type = string_of(*d, "requestType");
      auto id = string_of(*d, "requestId");
      const json* status = field(*d, "requestStatus");
      if (!type || !id || status == nullptr) break;
      const json* result = field(*status, "result");
      auto code = int_of(*status, "code");
      if (result == nullptr || !result->is_boolean() || !code) break;
      r.type = std::move(*type);
      r.id = std::move(*id);
      r.ok = result->get<bool>();
      r.code = *code;
      r.comment = string_of(*status, "comment").value_or("");
      r.data = data_object(*d, "responseData");
      return r;
    }
    default:
      error = "unexpected op code " + std::to_string(*op);
      return std::nullopt;
  }
  error = "op " + std::to_string(*op) + " without its required fields";
  return std::nullopt;
}

std::string identify_message(const hello& h, std::string_view password) {
  json d{{"rpcVersion", rpc_version}, {"eventSubscriptions", event_subscriptions}};
  if (h.challenge && h.salt) d["authentication"] = auth_string(password, *h.salt, *h.challenge);
  return json{{"op", 1}, {"d", std::move(d)}}.dump();
}

std::string request_message(std::string_view type, std::string_view id,
                            const nlohmann::json& data) {
  json d{{"requestType", type}, {"requestId", id}};
  if (!data.is_null()) d["requestData"] = data;
  return json{{"op", 6}, {"d", std::move(d)}}.dump();
}

std::optional<scene_list> scene_list_of(const nlohmann::json& data) {
  const json* scenes = field(data, "scenes");
  if (scenes == nullptr || !scenes->is_array()) return std::nullopt;
  std::vector<std::pair<int, std::string>> indexed;
  for (const auto& s : *scenes) {
    auto name = string_of(s, "sceneName");
    auto index = int_of(s, "sceneIndex");
    if (!name || !index) return std::nullopt;
    indexed.emplace_back(*index, std::move(*name));
  }
  // OBS numbers its list from the bottom: the highest index is the top of the UI's list.
  std::stable_sort(indexed.begin(), indexed.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  scene_list out;
  for (auto& [index, name] : indexed)
    out.scenes.push_back(std::move(name));
  // Absent in SceneListChanged; a null one would be a malformed answer.
  if (const json* current = field(data, "currentProgramSceneName")) {
    if (!current->is_string()) return std::nullopt;
    out.current = current->get<std::string>();
  }
  return out;
}

std::optional<std::vector<stream_source_item>> scene_items_of(const nlohmann::json& data) {
  const json* items = field(data, "sceneItems");
  if (items == nullptr || !items->is_array()) return std::nullopt;
  std::vector<std::pair<int, stream_source_item>> indexed;
  for (const auto& i : *items) {
    auto name = string_of(i, "sourceName");
    auto index = int_of(i, "sceneItemIndex");
    const json* id = field(i, "sceneItemId");
    const json* enabled = field(i, "sceneItemEnabled");
    if (!name || !index || id == nullptr || !id->is_number_integer() || enabled == nullptr ||
        !enabled->is_boolean())
      return std::nullopt;
    indexed.emplace_back(*index, stream_source_item{std::move(*name), id->get<std::int64_t>(),
                                                    enabled->get<bool>()});
  }
  // Index 0 is the bottom item (drawn first); the sources list shows the top first.
  std::stable_sort(indexed.begin(), indexed.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<stream_source_item> out;
  for (auto& [index, item] : indexed)
    out.push_back(std::move(item));
  return out;
}

std::optional<bool> output_active_of(const nlohmann::json& data) {
  const json* active = field(data, "outputActive");
  if (active == nullptr || !active->is_boolean()) return std::nullopt;
  return active->get<bool>();
}

std::optional<std::string> string_of(const nlohmann::json& data, const char* name) {
  const json* v = field(data, name);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

nlohmann::json scenes_to_json(const stream_view& view) {
  return {{"scenes", view.scenes}, {"current", view.current}};
}

nlohmann::json sources_to_json(const stream_view& view) {
  json names = json::array();
  for (const auto& s : view.sources)
    names.push_back(s.name);
  return {{"sources", std::move(names)}};
}

nlohmann::json to_json(const stream_view& view) {
  json out{{"connected", view.connected},
           {"streaming", view.streaming},
           {"recording", view.recording},
           {"scenes", view.scenes},
           {"current", nullptr}};
  if (view.connected) out["current"] = view.current;
  out["sources"] = sources_to_json(view)["sources"];
  return out;
}

toast_content scene_toast(std::string_view scene) {
  toast_content t;
  t.message = toast_text(scene, limits::toast_message_max_chars);
  if (t.message.empty()) t.message = " ";
  t.subtitle = "Scene switched";
  t.icon = "refresh";
  return t;
}

toast_content output_toast(bool recording, bool active) {
  toast_content t;
  t.message = std::string(recording ? "Recording" : "Stream") + (active ? " started" : " stopped");
  t.icon = active ? "play" : "power";
  return t;
}

}  // namespace mixerd::stream

namespace mixerd {

// ---- Macro kinds: stream_scene and stream_source -------------------------------------------

namespace {

// `visible`: true, false or "toggle" (the default).
bool read_source(macros::field_reader& r) {
  if (!r.text("source_name", stream::max_name_bytes, true, true)) return false;
  const auto* visible = r.find("visible");
  if (visible == nullptr) {
    r.out["visible"] = "toggle";
  } else if (visible->is_boolean() || (visible->is_string() && *visible == "toggle")) {
    r.out["visible"] = *visible;
  } else {
    return r.fail("visible", "must be true, false or \"toggle\"");
  }
  return true;
}

command_request source_command(const nlohmann::json& fields) {
  const auto& visible = fields.at("visible");
  if (visible.is_boolean())
    return {"stream.source", {{"source_name", fields.at("source_name")}, {"visible", visible}}};
  return {"stream.source_toggle", {{"source_name", fields.at("source_name")}}};
}

}  // namespace

std::vector<macros::kind> stream_macro_kinds() {
  return {
      {"stream_scene", true,
       [](macros::field_reader& r) {
         return r.text("scene_name", stream::max_name_bytes, true, true);
       },
       [](const nlohmann::json& fields) {
         return command_request{"stream.scene", {{"scene_name", fields.at("scene_name")}}};
       }},
      {"stream_source", true, read_source, source_command},
  };
}

}  // namespace mixerd

namespace mixerd {

// ---- Settings: the streaming software's connection --------------------------------------------

namespace {

// The streaming software: {"url": ws:// or wss://, "password"} (protocol/stream.hpp).
std::optional<settings_schema::problem> check_stream(const nlohmann::json& s) {
  std::string key;
  std::string error;
  if (stream::settings_from(s, key, error)) return std::nullopt;
  return settings_schema::problem{key, error};
}

}  // namespace

settings_schema::part stream_settings() {
  return {
      "stream",
      {settings_schema::guarded({"stream",
                                 {{"type", "object"},
                                  {"description", "The streaming software (OBS, obs-websocket 5)"},
                                  {"properties",
                                   {{"url",
                                     {{"type", "string"},
                                      {"default", "ws://127.0.0.1:4455"},
                                      {"description", "Its WebSocket server, ws:// or wss://"}}},
                                    {"password",
                                     {{"type", "string"},
                                      {"writeOnly", true},
                                      {"description", "Its password, if set"}}}}}},
                                 check_stream})}};
}

}  // namespace mixerd

namespace mixerd {

toast_handler_list stream_toast_handlers() {
  return {{"stream", "Streaming", "#9146FF", true, true}};
}

}  // namespace mixerd
