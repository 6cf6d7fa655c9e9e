// One Macro object: its kind, the fields of each kind and their bounds (protocol/README.md,
// "Macros").
#include <algorithm>
#include <array>
#include <cctype>
#include <utility>
#include <vector>

#include "protocol/hotkeys.hpp"
#include "protocol/json.hpp"
#include "protocol/macro_reader.hpp"
#include "protocol/macros.hpp"
#include "protocol/uri.hpp"
#include "protocol/validation.hpp"

namespace mixerd {

namespace macros::detail {
std::string sentence(const failure& f) {
  if (f.missing) return "Missing field: " + f.field;
  return f.field.empty() ? f.message : f.field + " " + f.message;
}

std::string range_text(long long lo, long long hi) {
  return "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
}

std::size_t utf8_chars(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

}  // namespace macros::detail

namespace {

using macros::detail::failure;
using macros::detail::range_text;

using nlohmann::json;

constexpr std::array<std::pair<macro_kind, std::string_view>, 13> kind_names{{
    {macro_kind::none, "none"},
    {macro_kind::hotkey, "hotkey"},
    {macro_kind::command, "command"},
    {macro_kind::http, "http"},
    {macro_kind::media, "media"},
    {macro_kind::mute, "mute"},
    {macro_kind::volume, "volume"},
    {macro_kind::profile, "profile"},
    {macro_kind::stream_scene, "stream_scene"},
    {macro_kind::stream_source, "stream_source"},
    {macro_kind::smarthome, "smarthome"},
    {macro_kind::sequence, "sequence"},
    {macro_kind::plugin, "plugin"},
}};

constexpr const char* kinds_text =
    "none, hotkey, command, http, media, mute, volume, profile, stream_scene, stream_source, "
    "smarthome, sequence, plugin";
constexpr const char* step_kinds_text =
    "delay, hotkey, command, http, media, mute, volume, profile, stream_scene, stream_source, "
    "smarthome";

constexpr std::size_t max_text_field_bytes = 256;  // scene, source, entity and plugin type names
constexpr std::size_t max_profile_name_bytes = 64;
constexpr std::size_t max_header_value_bytes = 4096;
constexpr std::size_t max_plugin_fields_bytes = 16 * 1024;
constexpr int max_plugin_nesting = 16;

// One macro object being read into its stored form.
class macro_reader {
 public:
  macro_reader(const json& in, std::string prefix, macros::origin from)
      : in_(in), prefix_(std::move(prefix)), from_(from) {}

  std::optional<failure> failed;
  json out = json::object();

  bool fail(const std::string& name, std::string message) {
    failed = failure{prefix_ + name, std::move(message)};
    return false;
  }
  bool missing(const std::string& name) {
    failed = failure{prefix_ + name, "is missing", true};
    return false;
  }
  const json* find(const char* name) const {
    auto it = in_.find(name);
    return it == in_.end() ? nullptr : &*it;
  }

  // A string field of at most `max_bytes`; free text for the device when `device`.
  bool text(const char* name, std::size_t max_bytes, bool required, bool non_empty,
            bool device = true) {
    const json* v = find(name);
    if (v == nullptr) {
      if (required) return missing(name);
      out[name] = "";
      return true;
    }
    if (!v->is_string()) return fail(name, "must be a string");
    std::string s = v->get<std::string>();
    if (s.size() > max_bytes)
      return fail(name, "must be at most " + std::to_string(max_bytes) + " bytes");
    if (non_empty && s.empty()) return fail(name, "must not be empty");
    std::string why;
    if (device && !validation::device_text(s, name, why))
      return fail(name, "must not contain control characters");
    out[name] = std::move(s);
    return true;
  }

  // A string that must be one of `allowed` (stored as given).
  bool one_of(const char* name, std::initializer_list<std::string_view> allowed,
              const char* fallback) {
    const json* v = find(name);
    std::string list;
    for (auto a : allowed)
      list += (list.empty() ? "" : ", ") + std::string(a);
    if (v == nullptr) {
      if (fallback == nullptr) return missing(name);
      out[name] = fallback;
      return true;
    }
    if (v->is_string() && std::find(allowed.begin(), allowed.end(),
                                    v->get_ref<const std::string&>()) != allowed.end()) {
      out[name] = *v;
      return true;
    }
    return fail(name, "must be one of " + list);
  }

  bool integer(const char* name, long long lo, long long hi, bool required) {
    const json* v = find(name);
    if (v == nullptr) return required ? missing(name) : true;
    if (!v->is_number_integer() || v->get<long long>() < lo || v->get<long long>() > hi)
      return fail(name, range_text(lo, hi));
    out[name] = v->get<long long>();
    return true;
  }

  // `target`: 1-4 or "master".
  bool target() {
    const json* v = find("target");
    if (v == nullptr) return missing("target");
    if ((v->is_number_integer() && v->get<long long>() >= 1 && v->get<long long>() <= 4) ||
        (v->is_string() && v->get_ref<const std::string&>() == "master")) {
      out["target"] = *v;
      return true;
    }
    return fail("target", "must be 1-4 or \"master\"");
  }

  bool read(bool as_step);

 private:
  bool hotkey();
  bool command();
  bool http();
  bool volume();
  bool smarthome();
  bool sequence();
  bool plugin();

  const json& in_;
  std::string prefix_;
  macros::origin from_;
};

bool macro_reader::hotkey() {
  const json* v = find("key");
  if (v == nullptr) return missing("key");
  if (!v->is_string()) return fail("key", "must be a string such as ctrl+shift+m");
  std::string why;
  auto combo = hotkeys::parse(v->get_ref<const std::string&>(), why);
  if (!combo) return fail("key", why);
  out["key"] = hotkeys::to_string(*combo);
  return true;
}

bool macro_reader::command() {
  if (from_ == macros::origin::api) {
    // The 403 names the step when the command is inside a sequence.
    failed = prefix_.empty()
                 ? failure{"", "command macros can only be set in settings.json", false, true}
                 : failure{prefix_.substr(0, prefix_.size() - 1),
                           "is a command macro: command macros can only be set in settings.json",
                           false, true};
    return false;
  }
  const json* v = find("argv");
  if (v == nullptr) return missing("argv");
  if (!v->is_array() || v->empty() || v->size() > macros::max_argv)
    return fail("argv", "must be an array of 1 to " + std::to_string(macros::max_argv) +
                            " strings (the program and its arguments)");
  for (std::size_t i = 0; i < v->size(); ++i) {
    const auto& a = (*v)[i];
    const std::string name = "argv[" + std::to_string(i) + "]";
    if (!a.is_string()) return fail(name, "must be a string");
    const auto& s = a.get_ref<const std::string&>();
    if (s.size() > macros::max_argv_bytes)
      return fail(name, "must be at most " + std::to_string(macros::max_argv_bytes) + " bytes");
    if (s.find('\0') != std::string::npos) return fail(name, "must not contain a NUL byte");
  }
  const auto& program = (*v)[0].get_ref<const std::string&>();
  if (program.empty() || (program.find('/') != std::string::npos && program.front() != '/'))
    return fail("argv[0]", "must be an absolute path or a program name found in PATH");
  out["argv"] = *v;
  return true;
}

bool header_name_ok(const std::string& name) {
  static constexpr std::string_view token_extra = "!#$%&'*+-.^_`|~";
  return !name.empty() && name.size() <= 256 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           token_extra.find(c) != std::string_view::npos;
  });
}

bool macro_reader::http() {
  const json* url = find("url");
  if (url == nullptr) return missing("url");
  if (!url->is_string() || url->get_ref<const std::string&>().size() > macros::max_url_bytes ||
      !uri::split_url(url->get_ref<const std::string&>()))
    return fail("url", "must be an http or https URL of at most " +
                           std::to_string(macros::max_url_bytes) + " bytes");
  out["url"] = *url;
  if (const json* m = find("method")) {
    std::string method = m->is_string() ? m->get<std::string>() : std::string();
    for (auto& c : method)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (method != "GET" && method != "POST" && method != "PUT" && method != "DELETE")
      return fail("method", "must be one of GET, POST, PUT, DELETE");
    out["method"] = method;
  } else {
    out["method"] = "POST";
  }
  if (const json* b = find("body")) {
    if (!b->is_string()) return fail("body", "must be a string");
    if (b->get_ref<const std::string&>().size() > macros::max_http_body_bytes)
      return fail("body",
                  "must be at most " + std::to_string(macros::max_http_body_bytes) + " bytes");
    out["body"] = *b;
  }
  if (const json* h = find("headers")) {
    if (!h->is_object() || h->size() > macros::max_http_headers)
      return fail("headers", "must be an object of at most " +
                                 std::to_string(macros::max_http_headers) +
                                 " header names to string values");
    for (const auto& [name, value] : h->items()) {
      const std::string field = "headers." + name;
      if (!header_name_ok(name)) return fail(field, "is not a valid header name");
      if (uri::iequals(name, "Content-Length") || uri::iequals(name, "Transfer-Encoding") ||
          uri::iequals(name, "Connection"))
        return fail(field, "is set by mixerd itself");
      if (!value.is_string()) return fail(field, "must be a string");
      const auto& text = value.get_ref<const std::string&>();
      if (text.size() > max_header_value_bytes)
        return fail(field, "must be at most " + std::to_string(max_header_value_bytes) + " bytes");
      if (std::any_of(text.begin(), text.end(),
                      [](char c) { return c != '\t' && validation::is_control_byte(c); }))
        return fail(field, "must not contain control characters");
    }
    out["headers"] = *h;
  }
  return true;
}

bool macro_reader::volume() {
  if (!target()) return false;
  const bool step = find("step") != nullptr;
  const bool value = find("value") != nullptr;
  if (step == value)
    return fail(step ? "step" : "value",
                step ? "and value cannot both be given" : "or step is required");
  return step ? integer("step", -100, 100, true)
              : integer("value", limits::volume_min, limits::volume_max, true);
}

bool entity_id_ok(const std::string& id) {
  auto dot = id.find('.');
  auto part_ok = [](std::string_view part) {
    return !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
  };
  return id.size() <= 255 && dot != std::string::npos &&
         part_ok(std::string_view(id).substr(0, dot)) &&
         part_ok(std::string_view(id).substr(dot + 1));
}

bool macro_reader::smarthome() {
  const json* id = find("entity_id");
  if (id == nullptr) return missing("entity_id");
  if (!id->is_string() || !entity_id_ok(id->get_ref<const std::string&>()))
    return fail("entity_id", "must be an entity id such as light.desk");
  out["entity_id"] = *id;
  return one_of("action", {"toggle", "turn_on", "turn_off"}, nullptr) &&
         integer("brightness", 0, 100, false);
}

bool macro_reader::sequence() {
  const json* steps = find("steps");
  if (steps == nullptr) return missing("steps");
  if (!steps->is_array() || steps->empty() || steps->size() > macros::max_sequence_steps)
    return fail("steps", "must be an array of 1 to " + std::to_string(macros::max_sequence_steps) +
                             " steps");
  json list = json::array();
  for (std::size_t i = 0; i < steps->size(); ++i) {
    macro_reader step((*steps)[i], prefix_ + "steps[" + std::to_string(i) + "].", from_);
    if (!step.read(true)) {
      failed = step.failed;
      return false;
    }
    list.push_back(std::move(step.out));
  }
  out["steps"] = std::move(list);
  return true;
}

bool macro_reader::plugin() {
  const json* type = find("plugin_type");
  if (type == nullptr) return missing("plugin_type");
  if (!type->is_string() || type->get_ref<const std::string&>().empty() ||
      type->get_ref<const std::string&>().size() > 64 ||
      !std::all_of(type->get_ref<const std::string&>().begin(),
                   type->get_ref<const std::string&>().end(), [](char c) {
                     return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
                            c == '.';
                   }))
    return fail("plugin_type", "must be 1 to 64 letters, digits, '_', '-' or '.'");
  // Copying and encoding JSON recurse: a deeply nested value is refused before either.
  if (mixerd::json::nested_deeper_than(in_, max_plugin_nesting))
    return fail("plugin_type", "has fields nested deeper than " +
                                   std::to_string(max_plugin_nesting) + " levels with it");
  json own = json::object();
  for (const auto& [key, value] : in_.items())
    if (key != "type" && key != "name" && key != "icon") own[key] = value;
  if (own.dump().size() > max_plugin_fields_bytes)
    return fail("plugin_type", "has more than 16 KiB of fields with it");
  for (auto& [key, value] : own.items())
    out[key] = std::move(value);
  return true;
}

// Reads the object into `out` ("type", "name", "icon", then the kind's own fields). A step of a
// sequence is a delay or a macro of a kind that is neither a sequence nor a plugin.
bool macro_reader::read(bool as_step) {
  if (!in_.is_object()) return fail("", "must be an object with a type");
  const json* type = find("type");
  if (type == nullptr) return missing("type");
  const std::string type_name = type->is_string() ? type->get<std::string>() : std::string();
  if (as_step && type_name == "delay") {
    out["type"] = "delay";
    return integer("ms", 0, macros::max_delay_ms, true);
  }
  auto kind = macro_kind_from_string(type_name);
  if (as_step && (!kind || *kind == macro_kind::none || *kind == macro_kind::sequence ||
                  *kind == macro_kind::plugin))
    return fail("type", std::string("must be one of ") + step_kinds_text);
  if (!kind) return fail("type", std::string("must be one of ") + kinds_text);
  out["type"] = type_name;
  if (*kind == macro_kind::none) {
    out["name"] = "";
    out["icon"] = "";
    return true;
  }
  if (!text("name", macros::max_name_bytes, false, false) ||
      !text("icon", macros::max_icon_bytes, false, false))
    return false;
  switch (*kind) {
    case macro_kind::hotkey:
      return hotkey();
    case macro_kind::command:
      return command();
    case macro_kind::http:
      return http();
    case macro_kind::media:
      return one_of("action", {"play_pause", "play", "pause", "next", "previous", "stop"}, nullptr);
    case macro_kind::mute:
      return target();
    case macro_kind::volume:
      return volume();
    case macro_kind::profile:
      return text("profile", max_profile_name_bytes, true, true);
    case macro_kind::stream_scene:
      return text("scene_name", max_text_field_bytes, true, true);
    case macro_kind::stream_source: {
      if (!text("source_name", max_text_field_bytes, true, true)) return false;
      const json* visible = find("visible");
      if (visible == nullptr) {
        out["visible"] = "toggle";
      } else if (visible->is_boolean() || (visible->is_string() && *visible == "toggle")) {
        out["visible"] = *visible;
      } else {
        return fail("visible", "must be true, false or \"toggle\"");
      }
      return true;
    }
    case macro_kind::smarthome:
      return smarthome();
    case macro_kind::sequence:
      return sequence();
    case macro_kind::plugin:
      return plugin();
    case macro_kind::none:
      break;
  }
  return true;
}

}  // namespace

std::string_view to_string(macro_kind kind) {
  for (const auto& [k, name] : kind_names)
    if (k == kind) return name;
  return "none";
}

std::optional<macro_kind> macro_kind_from_string(std::string_view text) {
  for (const auto& [k, name] : kind_names)
    if (name == text) return k;
  return std::nullopt;
}

std::string macro::name() const {
  auto it = fields.find("name");
  return it != fields.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string macro::icon() const {
  auto it = fields.find("icon");
  return it != fields.end() && it->is_string() ? it->get<std::string>() : std::string();
}

namespace macros {

namespace detail {

std::optional<macro> read_macro(const nlohmann::json& j, origin from, failure& f) {
  macro_reader reader(j, "", from);
  if (!reader.read(false)) {
    f = *reader.failed;
    return std::nullopt;
  }
  macro m;
  m.kind = *macro_kind_from_string(reader.out["type"].get<std::string>());
  m.fields = std::move(reader.out);
  return m;
}

}  // namespace detail

std::optional<macro> parse_macro(const nlohmann::json& j, origin from, std::string& error,
                                 bool* forbidden) {
  detail::failure f;
  auto m = detail::read_macro(j, from, f);
  if (!m) {
    error = detail::sentence(f);
    if (forbidden) *forbidden = f.forbidden;
  }
  return m;
}

}  // namespace macros

}  // namespace mixerd
