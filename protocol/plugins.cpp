#include "protocol/plugins.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "protocol/json.hpp"
#include "protocol/macro_kinds.hpp"
#include "protocol/music.hpp"
#include "protocol/settings_schema.hpp"

namespace mixerd {

// ---- Events ------------------------------------------------------------------------------

nlohmann::json plugin_status::to_json() const {
  return json::to_json(plugin);
}

}  // namespace mixerd

namespace mixerd::plugins {

namespace {

using njson = nlohmann::json;

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

// "`key` <problem>" for last_error.
manifest_check invalid(manifest_check out, const std::string& reason) {
  out.state = plugin_state::invalid;
  out.reason = "manifest.json: " + reason;
  return out;
}

const char* type_word(const njson& v) {
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_null()) return "null";
  return v.is_array() ? "array" : "object";
}

// "a string", "an integer", ...
std::string a_type(std::string_view type) {
  return (type == "integer" ? "an " : "a ") + std::string(type);
}

bool value_has_type(const njson& v, std::string_view type) {
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "integer") return v.is_number_integer();
  if (type == "number")
    return v.is_number() && !(v.is_number_float() && !std::isfinite(v.get<double>()));
  return false;
}

// Reads settings_schema; "" or the reason it is unusable.
std::string read_schema(const njson& doc, settings_schema& out) {
  auto it = doc.find("settings_schema");
  if (it == doc.end() || it->is_null()) return {};
  if (!it->is_object()) return "`settings_schema` must be an object of setting names to specs";
  if (it->size() > max_schema_keys)
    return "`settings_schema` has more than " + std::to_string(max_schema_keys) + " keys";
  for (const auto& [key, spec] : it->items()) {
    const std::string where = "`settings_schema." + key + "`";
    if (key.empty() || key.size() > 64 || !std::all_of(key.begin(), key.end(), is_name_char))
      return where + " must be named with 1 to 64 letters, digits, `_` or `-`";
    if (!spec.is_object()) return where + " must be an object";
    setting_spec s;
    auto type = spec.find("type");
    if (type == spec.end() || !type->is_string() ||
        (*type != "string" && *type != "integer" && *type != "number" && *type != "boolean"))
      return where + ".type must be string, integer, number or boolean";
    s.type = type->get<std::string>();
    for (const char* bound : {"min", "max"}) {
      auto b = spec.find(bound);
      if (b == spec.end() || b->is_null()) continue;
      if (s.type != "integer" && s.type != "number")
        return where + "." + bound + " is only for integer and number settings";
      if (!b->is_number()) return where + "." + bound + " must be a number";
      (std::string_view(bound) == "min" ? s.min : s.max) = b->get<double>();
    }
    if (s.min && s.max && *s.min > *s.max) return where + ".min is greater than its max";
    if (auto d = spec.find("description"); d != spec.end() && !d->is_null()) {
      if (!d->is_string()) return where + ".description must be a string";
      s.description = d->get<std::string>();
    }
    if (auto d = spec.find("default"); d != spec.end() && !d->is_null()) {
      if (!value_has_type(*d, s.type)) return where + ".default must be " + a_type(s.type);
      const double v = d->is_number() ? d->get<double>() : 0;
      if ((s.min && v < *s.min) || (s.max && v > *s.max))
        return where + ".default is outside its min and max";
      s.default_value = *d;
    }
    out.emplace(key, std::move(s));
  }
  return {};
}

std::string number_text(double v) {
  njson j = v;
  if (v == std::floor(v) && std::fabs(v) < 1e15) j = static_cast<long long>(v);
  return j.dump();
}

}  // namespace

bool valid_plugin_id(std::string_view id) {
  if (id.empty() || id.size() > max_id_bytes) return false;
  int parts = 0;
  std::size_t start = 0;
  while (true) {
    auto dot = id.find('.', start);
    auto part = id.substr(start, dot == std::string_view::npos ? id.npos : dot - start);
    if (part.empty() || !std::all_of(part.begin(), part.end(), is_name_char)) return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts >= 2;
}

bool valid_class_name(std::string_view name) {
  if (name.empty() || name.size() > 128 || std::isdigit(static_cast<unsigned char>(name[0])))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool valid_entry_point(std::string_view name) {
  if (name.size() < 4 || name.size() > 255 || name.front() == '.') return false;
  if (name.substr(name.size() - 3) != ".py") return false;
  return std::none_of(name.begin(), name.end(), [](char c) {
    return c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

bool valid_macro_type(std::string_view name) {
  return !name.empty() && name.size() <= 64 &&
         std::all_of(name.begin(), name.end(), [](char c) { return is_name_char(c) || c == '.'; });
}

manifest_check parse_manifest(std::string_view text, std::string_view folder) {
  manifest_check out;
  out.m.id = std::string(folder);
  if (text.size() > max_manifest_bytes)
    return invalid(out, "over " + std::to_string(max_manifest_bytes / 1024) + " KiB");
  std::string error;
  auto doc = mixerd::json::parse_depth_limited(text, 16, error);
  if (!doc) return invalid(out, error);
  return parse_manifest_json(*doc, folder);
}

manifest_check parse_manifest_json(const nlohmann::json& doc, std::string_view folder) {
  manifest_check out;
  out.m.id = std::string(folder);
  if (!doc.is_object()) return invalid(out, "not a JSON object");
  auto& m = out.m;
  // Read what is there first, so that an invalid plugin is still listed with its name.
  struct field {
    const char* key;
    std::string* into;
    bool required;
  };
  std::string type;
  const field fields[] = {
      {"id", &m.id, true},
      {"name", &m.name, true},
      {"version", &m.version, true},
      {"api_version", &m.api_version, true},
      {"type", &type, true},
      {"entry_point", &m.entry_point, true},
      {"main_class", &m.main_class, true},
      {"description", &m.description, false},
      {"author", &m.author, false},
  };
  std::string problem;
  for (const auto& f : fields) {
    auto it = doc.find(f.key);
    if (it == doc.end() || (it->is_null() && !f.required)) {
      if (f.required && problem.empty()) problem = std::string("`") + f.key + "` is missing";
      continue;
    }
    if (!it->is_string()) {
      if (problem.empty())
        problem = std::string("`") + f.key + "` must be a string, not " + type_word(*it);
      continue;
    }
    auto value = it->get<std::string>();
    if (std::string_view(f.key) == "id" && !valid_plugin_id(value)) {
      if (problem.empty())
        problem =
            "`id` must be reverse-dotted (two or more parts of letters, digits, `_` or `-` "
            "joined by `.`, at most 128 bytes)";
      continue;
    }
    *f.into = std::move(value);
  }
  if (m.name.empty() && problem.empty() && doc.contains("name")) problem = "`name` is empty";
  if (m.name.size() > 128 && problem.empty()) problem = "`name` is over 128 bytes";
  if (problem.empty() && type != "executable") problem = "`type` must be \"executable\"";
  if (problem.empty() && !valid_entry_point(m.entry_point))
    problem = "`entry_point` must be a file name ending in .py inside the plugin's folder";
  if (problem.empty() && !valid_class_name(m.main_class))
    problem = "`main_class` must be a Python class name";
  if (problem.empty()) problem = read_schema(doc, m.schema);
  if (!problem.empty()) return invalid(std::move(out), problem);
  auto major = std::string_view(m.api_version).substr(0, m.api_version.find('.'));
  if (major != supported_api_major) {
    out.state = plugin_state::incompatible;
    out.reason = "api_version " + m.api_version +
                 " is not supported (this mixerd runs plugins of " +
                 std::string(supported_api_major) + ".x)";
  }
  return out;
}

// ---- The line codec --------------------------------------------------------------------------

plugin_line decode_plugin_line(std::string_view line) {
  if (line.size() > max_line_bytes) return line_bad{"a line over 1 MiB"};
  std::string error;
  auto doc = mixerd::json::parse_depth_limited(line, max_line_depth, error);
  if (!doc) return line_bad{error};
  if (!doc->is_object()) return line_bad{"not a JSON object"};
  auto type = doc->find("type");
  if (type == doc->end() || !type->is_string()) return line_bad{"no `type`"};
  const auto& t = type->get_ref<const std::string&>();
  auto id_of = [&](std::uint64_t& out) {
    auto it = doc->find("id");
    if (it == doc->end() || !it->is_number_unsigned()) return false;
    out = it->get<std::uint64_t>();
    return true;
  };
  if (t == "ready") {
    line_ready out;
    auto hooks = doc->find("hooks");
    if (hooks == doc->end() || !hooks->is_array()) return line_bad{"ready without `hooks`"};
    for (const auto& h : *hooks) {
      if (!h.is_string()) return line_bad{"ready with a hook that is not a string"};
      out.hooks.push_back(h.get<std::string>());
    }
    return out;
  }
  if (t == "fatal") {
    auto e = doc->find("error");
    if (e == doc->end() || !e->is_string()) return line_bad{"fatal without `error`"};
    return line_fatal{e->get<std::string>()};
  }
  if (t == "hook_done") {
    line_hook_done out;
    if (!id_of(out.id)) return line_bad{"hook_done without a numeric `id`"};
    if (auto e = doc->find("error"); e != doc->end() && !e->is_null()) {
      if (!e->is_string()) return line_bad{"hook_done with an `error` that is not a string"};
      out.error = e->get<std::string>();
    }
    if (auto r = doc->find("result"); r != doc->end()) out.result = std::move(*r);
    return out;
  }
  if (t == "call") {
    line_call out;
    if (doc->contains("id")) {
      std::uint64_t id = 0;
      if (!id_of(id)) return line_bad{"call with an `id` that is not a whole number"};
      out.id = id;
    }
    auto method = doc->find("method");
    if (method == doc->end() || !method->is_string() ||
        method->get_ref<const std::string&>().empty())
      return line_bad{"call without `method`"};
    out.method = method->get<std::string>();
    auto args = doc->find("args");
    if (args == doc->end() || args->is_null())
      out.args = njson::object();
    else if (args->is_object())
      out.args = std::move(*args);
    else
      return line_bad{"call with `args` that is not an object"};
    return out;
  }
  return line_bad{"unknown type"};
}

std::string encode_init(const manifest& m, std::string_view folder) {
  njson line = {
      {"type", "init"},
      {"plugin", {{"id", m.id}, {"name", m.name}, {"version", m.version}, {"folder", folder}}},
      {"entry_point", m.entry_point},
      {"main_class", m.main_class}};
  return line.dump(-1, ' ', false, njson::error_handler_t::replace);
}

std::string encode_hook(std::uint64_t id, std::string_view hook, const nlohmann::json& args) {
  njson line = {{"type", "hook"}, {"id", id}, {"hook", hook}, {"args", args}};
  return line.dump(-1, ' ', false, njson::error_handler_t::replace);
}

std::string encode_reply(std::uint64_t id, const nlohmann::json& result) {
  njson line = {{"type", "reply"}, {"id", id}, {"result", result}};
  return line.dump(-1, ' ', false, njson::error_handler_t::replace);
}

std::string encode_reply_error(std::uint64_t id, std::string_view kind, std::string_view message) {
  njson line = {{"type", "reply"}, {"id", id}, {"error", {{"kind", kind}, {"message", message}}}};
  return line.dump(-1, ' ', false, njson::error_handler_t::replace);
}

// ---- Plugin settings -------------------------------------------------------------------------

std::string check_setting(const settings_schema& schema, std::string_view key,
                          const nlohmann::json& value) {
  if (key.empty() || key.size() > 64) return "a setting's name must be 1 to 64 bytes";
  if (schema.empty()) {
    if (mixerd::json::nested_deeper_than(value, 16))
      return "the value is nested deeper than 16 levels";
    if (value.dump(-1, ' ', false, njson::error_handler_t::replace).size() > 64 * 1024)
      return "the value is over 64 KiB as JSON";
    return {};
  }
  auto it = schema.find(std::string(key));
  if (it == schema.end())
    return "'" + std::string(key) + "' is not in the plugin's settings_schema";
  const auto& spec = it->second;
  if (!value_has_type(value, spec.type))
    return "'" + std::string(key) + "' must be " + a_type(spec.type) + ", not " + type_word(value);
  if (value.is_string() && value.get_ref<const std::string&>().size() > 64 * 1024)
    return "'" + std::string(key) + "' is over 64 KiB";
  if (value.is_number()) {
    const double v = value.get<double>();
    if (spec.min && v < *spec.min)
      return "'" + std::string(key) + "' must be at least " + number_text(*spec.min);
    if (spec.max && v > *spec.max)
      return "'" + std::string(key) + "' must be at most " + number_text(*spec.max);
  }
  return {};
}

nlohmann::json schema_to_json(const settings_schema& schema) {
  njson out = njson::object();
  for (const auto& [key, spec] : schema) {
    njson one = {
        {"type", spec.type}, {"default", spec.default_value}, {"description", spec.description}};
    // A whole bound reads as an integer (90, not 90.0), as the manifest most likely wrote it.
    auto bound = [](double v) {
      return v == std::floor(v) && std::fabs(v) < 1e15 ? njson(static_cast<long long>(v))
                                                       : njson(v);
    };
    if (spec.min) one["min"] = bound(*spec.min);
    if (spec.max) one["max"] = bound(*spec.max);
    out[key] = std::move(one);
  }
  return out;
}

std::string settings_problem(const nlohmann::json& plugins,
                             const std::map<std::string, nlohmann::json>& schemas) {
  if (!plugins.is_object()) return {};
  for (const auto& [id, entry] : plugins.items()) {
    auto known = schemas.find(id);
    auto stored = entry.is_object() ? entry.find("settings") : entry.end();
    if (known == schemas.end() || !entry.is_object() || stored == entry.end() ||
        !stored->is_object())
      continue;
    settings_schema schema;
    if (!read_schema(njson{{"settings_schema", known->second}}, schema).empty()) continue;
    for (const auto& [key, value] : stored->items()) {
      if (value.is_null()) continue;  // a merge patch's removal: the default applies
      auto problem = check_setting(schema, key, value);
      if (problem.empty()) continue;
      // "'threshold' must be ..." becomes "plugins.<id>.settings.threshold must be ...".
      const std::string quoted = "'" + key + "' ";
      if (problem.rfind(quoted, 0) == 0) problem.erase(0, quoted.size());
      return "plugins." + id + ".settings." + key + " " + problem;
    }
  }
  return {};
}

nlohmann::json effective_settings(const settings_schema& schema, const nlohmann::json& stored) {
  njson out = njson::object();
  for (const auto& [key, spec] : schema)
    out[key] = spec.default_value;
  if (stored.is_object())
    for (const auto& [key, value] : stored.items())
      out[key] = value;
  return out;
}

// ---- Hooks from events -----------------------------------------------------------------------

namespace {

// mute_change's index (1-4 or master_index) as on_mute_button gives it.
njson mute_index(int index) {
  return index == protocol::master_index ? njson("master") : njson(index);
}

struct input_hooks {
  hook_mapper& mapper;
  std::vector<hook_call>& out;

  void operator()(const protocol::dev_slider& s) const {
    out.push_back({"on_slider_change", njson::array({s.index + 1, s.value})});
  }
  void operator()(const protocol::dev_macro& m) const {
    if (m.pressed) out.push_back({"on_macro_button", njson::array({m.index, mapper.macro_page})});
  }
  void operator()(const protocol::dev_encoder_turn& e) const {
    out.push_back({"on_encoder_turn", njson::array({e.delta})});
  }
  void operator()(const protocol::dev_encoder_button& b) const {
    out.push_back({"on_encoder_press", njson::array({b.pressed ? "press" : "release"})});
  }
  void operator()(const protocol::dev_mute_press& m) const {
    if (mapper.pending_mutes.size() >= max_pending_mutes)
      mapper.pending_mutes.erase(mapper.pending_mutes.begin());
    // As mute_change names it: 1-4, or master_index.
    mapper.pending_mutes.push_back(m.index == protocol::master_index ? m.index : m.index + 1);
  }
  void operator()(const protocol::dev_page& p) const {
    out.push_back({"on_page_change", njson::array({p.name})});
  }
  template <class T>
  void operator()(const T&) const {}
};

}  // namespace

std::vector<hook_call> hooks_of(const event& e, hook_mapper& mapper) {
  std::vector<hook_call> out;
  if (const auto* in = e.get_if<device_input>()) {
    std::visit(input_hooks{mapper, out}, in->input);
    if (!std::holds_alternative<protocol::dev_pong>(in->input) &&
        !std::holds_alternative<protocol::dev_ack>(in->input))
      out.push_back(
          {"on_serial_receive", njson::array({protocol::encode_device_event(in->input)})});
  } else if (const auto* raw = e.get_if<serial_raw>()) {
    out.push_back({"on_serial_receive", njson::array({raw->line})});
  } else if (const auto* m = e.get_if<mute_change>()) {
    auto& pending = mapper.pending_mutes;
    auto it = std::find(pending.begin(), pending.end(), m->index);
    if (it != pending.end()) {
      pending.erase(it);
      out.push_back({"on_mute_button", njson::array({mute_index(m->index), m->muted})});
    }
  } else if (const auto* d = e.get_if<device_status>()) {
    mapper.pending_mutes.clear();
    if (d->connected)
      out.push_back({"on_device_connect", njson::array({d->port})});
    else
      out.push_back({"on_device_disconnect", njson::array()});
  } else if (const auto* p = e.get_if<macro_page_change>()) {
    mapper.macro_page = p->page;
    out.push_back({"on_macro_page_change", njson::array({p->page})});
  } else if (const auto* mc = e.get_if<music_change>()) {
    const bool changed = music::is_track_change(mapper.music, mc->state);
    mapper.music = mc->state;
    if (changed)
      out.push_back({"on_music_track_change", njson::array({mixerd::json::to_json(*mc->state)})});
  } else if (const auto* pc = e.get_if<profile_change>()) {
    out.push_back({"on_profile_change", njson::array({pc->profile})});
  }
  return out;
}

}  // namespace mixerd::plugins
