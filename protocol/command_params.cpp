#include "protocol/command_params.hpp"

#include <algorithm>

#include "protocol/validation.hpp"

namespace mixerd::commands {

namespace {

using nlohmann::json;

std::string joined(const std::vector<std::string_view>& values) {
  std::string out;
  for (auto v : values)
    out += (out.empty() ? "" : ", ") + std::string(v);
  return out;
}

bool fail(std::string& error, const param& p, std::string_view what) {
  error = std::string(p.name) + " " + std::string(what);
  return false;
}

// One present value of the common kinds, into args.
bool read_value(const param& p, const json& value, json& args, std::string& error) {
  const std::string name(p.name);
  switch (p.type) {
    case param_type::integer:
      if (!value.is_number_integer() ||
          (p.ranged && (value.get<long long>() < p.min || value.get<long long>() > p.max))) {
        if (!p.ranged) return fail(error, p, "must be an integer");
        return fail(
            error, p,
            "must be an integer from " + std::to_string(p.min) + " to " + std::to_string(p.max));
      }
      args[name] = value.get<long long>();
      return true;
    case param_type::string: {
      if (!value.is_string()) return fail(error, p, "must be a string");
      std::string s = value.get<std::string>();
      if (p.max_bytes != 0 && s.size() > p.max_bytes)
        return fail(error, p, "must be at most " + std::to_string(p.max_bytes) + " bytes");
      if (p.device_text && !validation::device_text(s, name.c_str(), error)) return false;
      if (!p.values.empty() && std::find(p.values.begin(), p.values.end(), s) == p.values.end())
        return fail(error, p, "must be one of " + joined(p.values));
      args[name] = std::move(s);
      return true;
    }
    case param_type::boolean:
      if (!value.is_boolean()) return fail(error, p, "must be true or false");
      args[name] = value.get<bool>();
      return true;
    case param_type::object:
      if (!value.is_object()) return fail(error, p, "must be an object");
      args[name] = value;
      return true;
    case param_type::array:
      if (!value.is_array()) return fail(error, p, "must be an array");
      args[name] = value;
      return true;
  }
  return fail(error, p, "has an unknown type");
}

}  // namespace

std::string_view to_string(param_type type) {
  switch (type) {
    case param_type::integer:
      return "integer";
    case param_type::string:
      return "string";
    case param_type::boolean:
      return "boolean";
    case param_type::object:
      return "object";
    case param_type::array:
      return "array";
  }
  return "unknown";
}

int depth_from_header(std::string_view value) {
  int depth = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return 0;
    depth = std::min(99, depth * 10 + (c - '0'));
  }
  return depth;
}

std::string_view to_string(permission p) {
  switch (p) {
    case permission::control:
      return "control";
    case permission::local:
      return "local";
    case permission::trusted:
      return "trusted";
    case permission::toast_api_key:
      return "toast_api_key";
    case permission::plant_store_token:
      return "plant_store_token";
  }
  return "unknown";
}

param integer(std::string_view name, long long min, long long max, std::string_view description) {
  param p;
  p.name = name;
  p.type = param_type::integer;
  p.description = description;
  p.ranged = true;
  p.min = min;
  p.max = max;
  return p;
}

param text(std::string_view name, std::size_t max_bytes, std::string_view description) {
  param p;
  p.name = name;
  p.type = param_type::string;
  p.description = description;
  p.max_bytes = max_bytes;
  return p;
}

param choice(std::string_view name, std::vector<std::string_view> values,
             std::string_view description) {
  param p;
  p.name = name;
  p.type = param_type::string;
  p.description = description;
  p.values = std::move(values);
  return p;
}

param flag(std::string_view name, std::string_view description) {
  param p;
  p.name = name;
  p.type = param_type::boolean;
  p.description = description;
  return p;
}

param object(std::string_view name, std::string_view description) {
  param p;
  p.name = name;
  p.type = param_type::object;
  p.description = description;
  return p;
}

param optional(param p) {
  p.required = false;
  return p;
}

std::optional<nlohmann::json> read_args(const std::vector<param>& params, const json& input,
                                        problem& why) {
  std::string& error = why.text;
  if (!input.is_object()) {
    error = "Request body must be a JSON object";
    return std::nullopt;
  }
  json args = json::object();
  for (const auto& p : params) {
    if (p.read) {
      if (!p.read(input, args, why)) return std::nullopt;
      continue;
    }
    auto it = input.find(p.name);
    const bool absent = it == input.end() || (p.null_is_absent && it->is_null());
    if (absent) {
      if (!p.required) continue;
      error = "Missing field: " + std::string(p.name);
      return std::nullopt;
    }
    if (!read_value(p, *it, args, error)) return std::nullopt;
  }
  return args;
}

nlohmann::json to_json(const param& p) {
  json j = {{"name", p.name}, {"type", to_string(p.type)}, {"required", p.required}};
  if (!p.description.empty()) j["description"] = p.description;
  if (p.type == param_type::integer && p.ranged) {
    j["min"] = p.min;
    j["max"] = p.max;
  }
  if (!p.values.empty()) {
    j["values"] = json::array();
    for (auto v : p.values)
      j["values"].push_back(v);
  }
  if (p.max_bytes != 0) j["max_bytes"] = p.max_bytes;
  return j;
}

}  // namespace mixerd::commands
