#include "protocol/toast.hpp"

#include <algorithm>

#include "protocol/settings_schema.hpp"
#include "protocol/validation.hpp"

namespace mixerd::toast {

namespace {

bool is_continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// An optional field: absent and null both mean "not given".
const nlohmann::json* optional_field(const nlohmann::json& body, const char* name) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return nullptr;
  return &*it;
}

// A text field of at most `max_chars` characters; `error` names it when it is not one.
std::optional<std::string> text_field(const nlohmann::json& value, const char* name,
                                      std::size_t max_chars, std::string& error) {
  if (!value.is_string()) {
    error = std::string(name) + " must be a string";
    return std::nullopt;
  }
  std::string text = value.get_ref<const std::string&>();
  if (auto n = utf8_length(text); n > max_chars) {
    error = std::string(name) + " must be at most " + std::to_string(max_chars) +
            " characters (got " + std::to_string(n) + ")";
    return std::nullopt;
  }
  if (!validation::device_text(text, name, error)) return std::nullopt;
  return text;
}

std::string icon_list() {
  std::string out;
  for (auto name : icon_names())
    out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

}  // namespace

const std::vector<std::string_view>& icon_names() {
  static const std::vector<std::string_view> names{
      "bell",  "checkmark", "warning", "close", "settings", "wifi", "audio",    "play",
      "pause", "volume",    "mute",    "power", "refresh",  "home", "download", "upload"};
  return names;
}

std::array<std::atomic<std::uint64_t>, toast_outcome_names.size()>& toasts_of_process() {
  static std::array<std::atomic<std::uint64_t>, toast_outcome_names.size()> block{};
  return block;
}

toast_handler_list own_handlers() {
  // api: this interface; system: device connect/disconnect (and a lost audio server). The
  // integrations declare their own (stream, smarthome, music, plugins).
  return {
      {"api", "API Receiver", "#3B82F6", true, true},
      {"system", "System", "#6B7280", true, true},
  };
}

std::size_t utf8_length(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return !is_continuation(c); }));
}

std::optional<std::string> normalize_color(std::string_view text) {
  if (!text.empty() && text.front() == '#') text.remove_prefix(1);
  if (text.size() != 3 && text.size() != 6) return std::nullopt;
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const int v = hex_value(c);
    if (v < 0) return std::nullopt;
    out.push_back(digits[v]);
    if (text.size() == 3) out.push_back(digits[v]);  // "0F0" -> "00FF00"
  }
  return out;
}

std::optional<toast_content> parse_toast_request(const nlohmann::json& body, std::string& error) {
  toast_content t;
  const auto* message = optional_field(body, "message");
  if (message == nullptr) {
    error = "message field is required";  // the text clients match, word for word
    return std::nullopt;
  }
  auto text = text_field(*message, "message", limits::toast_message_max_chars, error);
  if (!text) return std::nullopt;
  if (text->empty()) {
    error = "message must not be empty";
    return std::nullopt;
  }
  t.message = std::move(*text);

  if (const auto* icon = optional_field(body, "icon")) {
    if (!icon->is_string()) {
      error = "icon must be a string";
      return std::nullopt;
    }
    const auto& name = icon->get_ref<const std::string&>();
    const auto& known = icon_names();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      error = "icon must be one of " + icon_list() + " (got '" + name + "')";
      return std::nullopt;
    }
    t.icon = name;
  }

  if (const auto* subtitle = optional_field(body, "subtitle")) {
    auto sub = text_field(*subtitle, "subtitle", limits::toast_subtitle_max_chars, error);
    if (!sub) return std::nullopt;
    t.subtitle = std::move(*sub);
  }

  if (const auto* duration = optional_field(body, "duration_ms")) {
    // 5000.0 is a float on the wire and true is not a number: integers only.
    bool ok = duration->is_number_integer();
    long long v = ok ? duration->get<long long>() : 0;
    if (!ok || v < limits::toast_duration_min || v > limits::toast_duration_max) {
      error = "duration_ms must be an integer from " + std::to_string(limits::toast_duration_min) +
              " to " + std::to_string(limits::toast_duration_max);
      return std::nullopt;
    }
    t.duration_ms = static_cast<int>(v);
  }

  if (const auto* color = optional_field(body, "color")) {
    std::optional<std::string> normalized;
    if (color->is_string()) normalized = normalize_color(color->get_ref<const std::string&>());
    if (!normalized) {
      error = "color must be 3 or 6 hex digits, with or without a leading #";
      return std::nullopt;
    }
    t.color = std::move(*normalized);
  }
  return t;
}

protocol::cmd_toast to_device_command(const toast_content& toast) {
  return {toast.duration_ms, toast.icon, toast.color, toast.message, toast.subtitle};
}

nlohmann::json handler_to_json(const toast_handler& h) {
  return {{"id", h.id},
          {"name", h.name},
          {"enabled", h.enabled},
          {"loaded", h.loaded},
          {"color", h.color}};
}

}  // namespace mixerd::toast

namespace mixerd {

// ---- Settings: the notification API key and the handler switches -----------------------------

namespace {

using json = nlohmann::json;

// {"<handler id>": <bool>}; ids mixerd does not know (yet) are kept and ignored.
std::optional<settings_schema::problem> check_toast_handlers(const json& s) {
  auto it = s.find("toast_handlers");
  if (it == s.end()) return std::nullopt;
  if (!it->is_object())
    return settings_schema::problem{"toast_handlers",
                                    "must be an object of handler ids to true or false"};
  for (const auto& [id, enabled] : it->items())
    if (!enabled.is_boolean())
      return settings_schema::problem{"toast_handlers." + id, "must be true or false"};
  return std::nullopt;
}

}  // namespace

settings_schema::part toast_settings() {
  return {"toast",
          {
              settings_schema::guarded(
                  {"toast_api_key",
                   settings_schema::secret_schema(
                       "The notification API key (X-API-Key); made on first start, at least 16 "
                       "characters")}),
              {"toast_handlers",
               {{"type", "object"},
                {"additionalProperties", {{"type", "boolean"}}},
                {"description", "Handler id -> switched on (true) or off; absent: on"}},
               check_toast_handlers},
          }};
}

}  // namespace mixerd
