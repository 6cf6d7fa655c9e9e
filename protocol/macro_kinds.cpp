// The macro capability's own kinds of macro (none, hotkey, command, http, sequence and the
// delay step), the reading of one Macro object, and the kinds the capabilities install
// (protocol/macro_kinds.hpp; protocol/README.md, "Macros").
#include "protocol/macro_kinds.hpp"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <utility>

#include "protocol/hotkeys.hpp"
#include "protocol/json.hpp"
#include "protocol/uri.hpp"
#include "protocol/validation.hpp"

namespace mixerd::macros {

namespace detail {

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

}  // namespace detail

namespace {

using detail::failure;
using detail::range_text;
using nlohmann::json;

constexpr std::size_t max_header_value_bytes = 4096;

bool read_hotkey(field_reader& r) {
  const json* v = r.find("key");
  if (v == nullptr) return r.missing("key");
  if (!v->is_string()) return r.fail("key", "must be a string such as ctrl+shift+m");
  std::string why;
  auto combo = hotkeys::parse(v->get_ref<const std::string&>(), why);
  if (!combo) return r.fail("key", why);
  r.out["key"] = hotkeys::to_string(*combo);
  return true;
}

bool read_command(field_reader& r) {
  if (r.from() == origin::api)
    return r.forbid("command macros can only be set in settings.json",
                    "is a command macro: command macros can only be set in settings.json");
  const json* v = r.find("argv");
  if (v == nullptr) return r.missing("argv");
  if (!v->is_array() || v->empty() || v->size() > max_argv)
    return r.fail("argv", "must be an array of 1 to " + std::to_string(max_argv) +
                              " strings (the program and its arguments)");
  for (std::size_t i = 0; i < v->size(); ++i) {
    const auto& a = (*v)[i];
    const std::string name = "argv[" + std::to_string(i) + "]";
    if (!a.is_string()) return r.fail(name, "must be a string");
    const auto& s = a.get_ref<const std::string&>();
    if (s.size() > max_argv_bytes)
      return r.fail(name, "must be at most " + std::to_string(max_argv_bytes) + " bytes");
    if (s.find('\0') != std::string::npos) return r.fail(name, "must not contain a NUL byte");
  }
  const auto& program = (*v)[0].get_ref<const std::string&>();
  if (program.empty() || (program.find('/') != std::string::npos && program.front() != '/'))
    return r.fail("argv[0]", "must be an absolute path or a program name found in PATH");
  r.out["argv"] = *v;
  return true;
}

bool header_name_ok(const std::string& name) {
  static constexpr std::string_view token_extra = "!#$%&'*+-.^_`|~";
  return !name.empty() && name.size() <= 256 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           token_extra.find(c) != std::string_view::npos;
  });
}

bool read_http(field_reader& r) {
  const json* url = r.find("url");
  if (url == nullptr) return r.missing("url");
  if (!url->is_string() || url->get_ref<const std::string&>().size() > max_url_bytes ||
      !uri::split_url(url->get_ref<const std::string&>()))
    return r.fail("url", "must be an http or https URL of at most " +
                             std::to_string(max_url_bytes) + " bytes");
  r.out["url"] = *url;
  if (const json* m = r.find("method")) {
    std::string method = m->is_string() ? m->get<std::string>() : std::string();
    for (auto& c : method)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (method != "GET" && method != "POST" && method != "PUT" && method != "DELETE")
      return r.fail("method", "must be one of GET, POST, PUT, DELETE");
    r.out["method"] = method;
  } else {
    r.out["method"] = "POST";
  }
  if (const json* b = r.find("body")) {
    if (!b->is_string()) return r.fail("body", "must be a string");
    if (b->get_ref<const std::string&>().size() > max_http_body_bytes)
      return r.fail("body", "must be at most " + std::to_string(max_http_body_bytes) + " bytes");
    r.out["body"] = *b;
  }
  if (const json* h = r.find("headers")) {
    if (!h->is_object() || h->size() > max_http_headers)
      return r.fail("headers", "must be an object of at most " + std::to_string(max_http_headers) +
                                   " header names to string values");
    for (const auto& [name, value] : h->items()) {
      const std::string field = "headers." + name;
      if (!header_name_ok(name)) return r.fail(field, "is not a valid header name");
      if (uri::iequals(name, "Content-Length") || uri::iequals(name, "Transfer-Encoding") ||
          uri::iequals(name, "Connection"))
        return r.fail(field, "is set by mixerd itself");
      if (!value.is_string()) return r.fail(field, "must be a string");
      const auto& text = value.get_ref<const std::string&>();
      if (text.size() > max_header_value_bytes)
        return r.fail(field,
                      "must be at most " + std::to_string(max_header_value_bytes) + " bytes");
      if (std::any_of(text.begin(), text.end(),
                      [](char c) { return c != '\t' && validation::is_control_byte(c); }))
        return r.fail(field, "must not contain control characters");
    }
    r.out["headers"] = *h;
  }
  return true;
}

bool read_sequence(field_reader& r) {
  return r.steps("steps", max_sequence_steps);
}

// The installed kinds: the own ones first, then those of the capabilities, in row order.
struct registry {
  std::mutex mutex;
  kind_list kinds = own_kinds();
};

registry& the_registry() {
  static registry r;
  return r;
}

std::string list_of(bool steps) {
  std::string text = steps ? "delay" : "";
  for (const auto& k : the_registry().kinds) {
    if (steps && !k.step) continue;
    text += (text.empty() ? "" : ", ") + std::string(k.type);
  }
  return text;
}

}  // namespace

kind_list own_kinds() {
  return {
      {"none", false, nullptr, nullptr},           {"hotkey", true, read_hotkey, nullptr},
      {"command", true, read_command, nullptr},    {"http", true, read_http, nullptr},
      {"sequence", false, read_sequence, nullptr},
  };
}

void install_kinds(const std::vector<kind_list>& others) {
  auto& r = the_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.kinds = own_kinds();
  for (const auto& list : others)
    for (const auto& k : list)
      if (std::none_of(r.kinds.begin(), r.kinds.end(),
                       [&](const kind& known) { return known.type == k.type; }))
        r.kinds.push_back(k);
}

const kind* find_kind(std::string_view type) {
  // Installed once at start-up, before any reader runs: read without the lock afterwards.
  const auto& kinds = the_registry().kinds;
  auto it = std::find_if(kinds.begin(), kinds.end(), [&](const kind& k) { return k.type == type; });
  return it == kinds.end() ? nullptr : &*it;
}

// ---- The reader ------------------------------------------------------------------------------

const json* field_reader::find(const char* name) const {
  auto it = in_.find(name);
  return it == in_.end() ? nullptr : &*it;
}

bool field_reader::fail(const std::string& name, std::string message) {
  failed = failure{prefix_ + name, std::move(message)};
  return false;
}

bool field_reader::missing(const std::string& name) {
  failed = failure{prefix_ + name, "is missing", true};
  return false;
}

bool field_reader::forbid(std::string whole, std::string as_step) {
  // The 403 names the step when the macro is inside a sequence.
  failed = prefix_.empty()
               ? failure{"", std::move(whole), false, true}
               : failure{prefix_.substr(0, prefix_.size() - 1), std::move(as_step), false, true};
  return false;
}

bool field_reader::text(const char* name, std::size_t max_bytes, bool required, bool non_empty,
                        bool device) {
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

bool field_reader::one_of(const char* name, std::initializer_list<std::string_view> allowed,
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

bool field_reader::integer(const char* name, long long lo, long long hi, bool required) {
  const json* v = find(name);
  if (v == nullptr) return required ? missing(name) : true;
  if (!v->is_number_integer() || v->get<long long>() < lo || v->get<long long>() > hi)
    return fail(name, range_text(lo, hi));
  out[name] = v->get<long long>();
  return true;
}

bool field_reader::target() {
  const json* v = find("target");
  if (v == nullptr) return missing("target");
  if ((v->is_number_integer() && v->get<long long>() >= 1 && v->get<long long>() <= 4) ||
      (v->is_string() && v->get_ref<const std::string&>() == "master")) {
    out["target"] = *v;
    return true;
  }
  return fail("target", "must be 1-4 or \"master\"");
}

bool field_reader::steps(const char* name, std::size_t max_steps) {
  const json* steps = find(name);
  if (steps == nullptr) return missing(name);
  if (!steps->is_array() || steps->empty() || steps->size() > max_steps)
    return fail(name, "must be an array of 1 to " + std::to_string(max_steps) + " steps");
  json list = json::array();
  for (std::size_t i = 0; i < steps->size(); ++i) {
    field_reader step((*steps)[i], prefix_ + name + "[" + std::to_string(i) + "].", from_);
    if (!step.read(true)) {
      failed = step.failed;
      return false;
    }
    list.push_back(std::move(step.out));
  }
  out[name] = std::move(list);
  return true;
}

// A step of a sequence is a delay or a macro of a kind that may be a step.
bool field_reader::read(bool as_step) {
  if (!in_.is_object()) return fail("", "must be an object with a type");
  const json* type = find("type");
  if (type == nullptr) return missing("type");
  const std::string type_name = type->is_string() ? type->get<std::string>() : std::string();
  if (as_step && type_name == "delay") {
    out["type"] = "delay";
    return integer("ms", 0, max_delay_ms, true);
  }
  const kind* k = find_kind(type_name);
  if (as_step && (!k || !k->step)) return fail("type", "must be one of " + list_of(true));
  if (!k) return fail("type", "must be one of " + list_of(false));
  out["type"] = type_name;
  if (type_name == "none") {
    out["name"] = "";
    out["icon"] = "";
    return true;
  }
  if (!text("name", max_name_bytes, false, false) || !text("icon", max_icon_bytes, false, false))
    return false;
  return k->read == nullptr || k->read(*this);
}

namespace detail {

std::optional<macro> read_macro(const nlohmann::json& j, origin from, failure& f) {
  field_reader reader(j, "", from);
  if (!reader.read(false)) {
    f = *reader.failed;
    return std::nullopt;
  }
  macro m;
  m.fields = std::move(reader.out);
  return m;
}

}  // namespace detail

std::optional<macro> parse_macro(const nlohmann::json& j, origin from, std::string& error,
                                 bool* forbidden) {
  failure f;
  auto m = detail::read_macro(j, from, f);
  if (!m) {
    error = detail::sentence(f);
    if (forbidden) *forbidden = f.forbidden;
    return m;
  }
  if (auto bytes = macro_bytes(*m); bytes > max_macro_bytes) {
    error = "macro must be at most " + std::to_string(max_macro_bytes) + " bytes as JSON (it is " +
            std::to_string(bytes) + ")";
    return std::nullopt;
  }
  return m;
}

}  // namespace mixerd::macros

namespace mixerd {

std::string macro::name() const {
  auto it = fields.find("name");
  return it != fields.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string macro::icon() const {
  auto it = fields.find("icon");
  return it != fields.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string macro::type() const {
  auto it = fields.find("type");
  return it != fields.end() && it->is_string() ? it->get<std::string>() : std::string("none");
}

}  // namespace mixerd
