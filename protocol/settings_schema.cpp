#include "protocol/settings_schema.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/network.hpp"
#include "protocol/plants.hpp"

namespace mixerd::settings_schema {

namespace {

using nlohmann::json;

// A check from the key's JSON Schema: booleans, ranged integers, strings (enum, minLength).
std::optional<problem> check_by_schema(const json& settings, const key& k) {
  auto it = settings.find(k.name);
  if (it == settings.end()) return std::nullopt;
  const auto& schema = k.schema;
  const std::string type = schema.value("type", "");
  const std::string name(k.name);
  if (type == "boolean") {
    if (!it->is_boolean()) return problem{name, "must be true or false"};
  } else if (type == "integer") {
    const auto lo = schema.value("minimum", 0LL);
    const auto hi = schema.value("maximum", 0LL);
    if (!it->is_number_integer() || it->get<long long>() < lo || it->get<long long>() > hi)
      return problem{name, range_text(lo, hi)};
  } else if (type == "string") {
    if (auto values = schema.find("enum"); values != schema.end()) {
      if (!it->is_string() || std::find(values->begin(), values->end(), *it) == values->end()) {
        std::string list;
        for (const auto& v : *values)
          list += (list.empty() ? "" : ", ") + v.get<std::string>();
        return problem{name, "must be one of " + list};
      }
    } else if (auto min = schema.find("minLength"); min != schema.end()) {
      if (!it->is_string() || it->get_ref<const std::string&>().size() < min->get<std::size_t>())
        return problem{name, "must be a string of at least " + std::to_string(min->get<int>()) +
                                 " characters"};
    } else if (!it->is_string()) {
      return problem{name, "must be a string"};
    }
  }
  return std::nullopt;
}

struct registry {
  std::mutex mutex;
  std::vector<part> parts{daemon_part()};
};

registry& the_registry() {
  static registry r;
  return r;
}

// nlohmann's copy and dump recurse, and the daemon copies the settings into messages and dumps
// them on every save: a value nested a few ten thousand levels deep would overflow the stack
// there. The parser and the destructor do not recurse, and neither does this check.
constexpr int max_nesting = 64;

std::optional<problem> check_nesting(const json& s) {
  // The top level is the first level.
  for (const auto& [key, value] : s.items())
    if (mixerd::json::nested_deeper_than(value, max_nesting - 1))
      return problem{key, "is nested deeper than " + std::to_string(max_nesting) + " levels"};
  return std::nullopt;
}

// ---- The daemon's own keys ---------------------------------------------------------------------

std::optional<problem> check_bind_address(const json& s) {
  auto it = s.find("bind_address");
  if (it == s.end()) return std::nullopt;
  if (it->is_string() && is_ip_address(it->get_ref<const std::string&>())) return std::nullopt;
  return problem{"bind_address", "must be an IP address such as \"0.0.0.0\" or \"127.0.0.1\""};
}

// GET /metrics takes it as `Authorization: Bearer <token>`: it must be one a header can carry.
std::optional<problem> check_metrics_token(const json& s) {
  auto it = s.find("metrics_token");
  if (it == s.end()) return std::nullopt;
  if (!it->is_string() || it->get_ref<const std::string&>().size() < 16)
    return problem{"metrics_token", "must be a string of at least 16 characters"};
  if (plants::parse_bearer("Bearer " + it->get<std::string>()).problem !=
      plants::bearer_problem::none)
    return problem{"metrics_token", "must be letters, digits and -._~+/ (at most 1024)"};
  return std::nullopt;
}

json socketio_ms(int fallback, std::string_view description) {
  return integer_schema(1000, 600'000, fallback, description);
}

}  // namespace

std::string range_text(long long lo, long long hi) {
  return "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
}

json integer_schema(long long lo, long long hi, long long fallback, std::string_view description) {
  return {{"type", "integer"},
          {"minimum", lo},
          {"maximum", hi},
          {"default", fallback},
          {"description", description}};
}

json live(json schema) {
  schema[live_state] = true;
  return schema;
}

json boolean_schema(bool fallback, std::string_view description) {
  return {{"type", "boolean"}, {"default", fallback}, {"description", description}};
}

json secret_schema(std::string_view description) {
  return {{"type", "string"}, {"minLength", 16}, {"writeOnly", true}, {"description", description}};
}

part daemon_part() {
  return {
      "daemon",
      {
          {"controller_port",
           integer_schema(0, 65535, default_controller_port,
                          "The controller's TCP port (REST, Socket.IO, the web page); 0: any "
                          "free one. --controller-port beats it")},
          {"toast_port",
           integer_schema(0, 65535, default_toast_port,
                          "The notification API's TCP port; 0: any free one. --toast-port "
                          "beats it")},
          {"plants_port",
           integer_schema(0, 65535, default_plants_port,
                          "The plant store's TCP port; 0: any free one. --plants-port beats "
                          "it")},
          // An access rule: a file that loses it must not open the listeners to every interface.
          guarded({"bind_address",
                   {{"type", "string"},
                    {"default", "0.0.0.0"},
                    {"description",
                     "The address the listeners bind to: an IP address such as 0.0.0.0 (every "
                     "interface) or 127.0.0.1 (this machine only)"}},
                   check_bind_address}),
          {"log_level",
           {{"type", "string"},
            {"enum", {"trace", "debug", "info", "warn", "error"}},
            {"default", "info"},
            {"description", "The least important log line written. --log-level beats it"}}},
          {"socketio_ping_interval_ms",
           socketio_ms(default_ping_interval_ms, "How often Socket.IO pings a client (ms)")},
          {"socketio_ping_timeout_ms",
           socketio_ms(default_ping_timeout_ms,
                       "How long a Socket.IO client may take to answer a ping (ms)")},
          {"socketio_connect_timeout_ms",
           socketio_ms(45000, "How long an Engine.IO session may take to join a namespace (ms)")},
          {"socketio_max_sessions",
           integer_schema(1, 100'000, static_cast<long long>(limits::socketio_max_sessions),
                          "Socket.IO sessions open at once, at most")},
          {"socketio_max_sessions_per_address",
           integer_schema(1, 100'000,
                          static_cast<long long>(limits::socketio_max_sessions_per_address),
                          "Socket.IO sessions open at once from one address, at most")},
          guarded({"metrics_token",
                   {{"type", "string"},
                    {"minLength", 16},
                    {"writeOnly", true},
                    {"description",
                     "A bearer token that opens GET /metrics (besides the login): letters, digits "
                     "and -._~+/; absent: none"}},
                   check_metrics_token}),
      }};
}

void install_parts(const std::vector<part>& parts) {
  auto& r = the_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.parts = {daemon_part()};
  r.parts.insert(r.parts.end(), parts.begin(), parts.end());
}

std::optional<problem> validate(const nlohmann::json& s) {
  if (!s.is_object()) return problem{"(top level)", "must be a JSON object"};
  if (auto deep = check_nesting(s)) return deep;
  // A cleared guarded key is checked as the absent key it stands for (a check may read another
  // key: session_max_lifetime reads session_timeout).
  std::optional<json> without_cleared;
  for (const auto& name : guarded_keys())
    if (auto it = s.find(name); it != s.end() && it->is_null()) {
      if (!without_cleared) without_cleared = s;
      without_cleared->erase(name);
    }
  const json& checked = without_cleared ? *without_cleared : s;
  // Installed once at start-up, before any settings are read: read without the lock afterwards.
  for (const auto& p : the_registry().parts)
    for (const auto& k : p.keys)
      if (auto bad = k.check ? k.check(checked) : check_by_schema(checked, k)) return bad;
  return std::nullopt;
}

std::optional<problem> validate_change(const json& settings,
                                       const std::vector<std::string>& changed) {
  for (const auto& p : the_registry().parts)
    for (const auto& k : p.keys)
      if (k.change_check && std::find(changed.begin(), changed.end(), k.name) != changed.end())
        if (auto bad = k.change_check(settings)) return bad;
  return std::nullopt;
}

std::vector<std::string> guarded_keys() {
  std::vector<std::string> out;
  for (const auto& p : the_registry().parts)
    for (const auto& k : p.keys)
      if (k.guarded) out.emplace_back(k.name);
  return out;
}

key guarded(key k) {
  k.guarded = true;
  return k;
}

std::vector<std::string> keep_guarded(const nlohmann::json& running, nlohmann::json& fresh) {
  std::vector<std::string> kept;
  if (!running.is_object() || !fresh.is_object()) return kept;
  for (auto& name : guarded_keys()) {
    auto was = running.find(name);
    if (fresh.contains(name) || was == running.end() || was->is_null()) continue;
    fresh[name] = *was;
    kept.push_back(std::move(name));
  }
  return kept;
}

std::vector<std::string> take_cleared(nlohmann::json& settings) {
  std::vector<std::string> cleared;
  if (!settings.is_object()) return cleared;
  for (auto& name : guarded_keys())
    if (auto it = settings.find(name); it != settings.end() && it->is_null()) {
      settings.erase(it);
      cleared.push_back(std::move(name));
    }
  return cleared;
}

nlohmann::json document() {
  json properties = json::object();
  for (const auto& p : the_registry().parts)
    for (const auto& k : p.keys) {
      properties[std::string(k.name)] = k.schema;
      properties[std::string(k.name)]["x-owner"] = p.owner;
      if (k.guarded) properties[std::string(k.name)]["x-kept-on-reload"] = true;
    }
  return {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
          {"title", "mixerd settings.json"},
          {"type", "object"},
          {"properties", std::move(properties)}};
}

namespace {

// One step of a key path: an object key, or an array index when `key` is empty.
struct path_step {
  std::string key;
  int index = -1;
};

std::vector<path_step> split_path(std::string_view path) {
  std::vector<path_step> steps;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
    } else if (path[i] == '[') {
      auto close = path.find(']', i);
      if (close == std::string_view::npos) break;
      steps.push_back({"", std::atoi(std::string(path.substr(i + 1, close - i - 1)).c_str())});
      i = close + 1;
    } else {
      auto end = path.find_first_of(".[", i);
      if (end == std::string_view::npos) end = path.size();
      steps.push_back({std::string(path.substr(i, end - i)), -1});
      i = end;
    }
  }
  return steps;
}

// A container being scanned: where the scanner is inside it.
struct scan_frame {
  bool array = false;
  std::string key;        // objects: the key whose value comes next
  int index = -1;         // arrays: the element being read
  bool want_key = false;  // objects: the next string is a key
  bool in_element = false;
};

bool at_path(const std::vector<scan_frame>& stack, const std::vector<path_step>& target) {
  if (stack.size() != target.size()) return false;
  for (std::size_t i = 0; i < stack.size(); ++i) {
    const auto& f = stack[i];
    if (f.array ? target[i].index != f.index : target[i].key != f.key) return false;
  }
  return true;
}

}  // namespace

bool is_ip_address(const std::string& text) {
  return network::is_ipv4(text) || network::is_ipv6(text);
}

int locate_key(std::string_view text, std::string_view key_path) {
  // A small scanner over the (already valid) JSON text that follows the key path through
  // objects and arrays; nlohmann::json keeps no source positions.
  const auto target = split_path(key_path);
  if (target.empty()) return 0;
  std::vector<scan_frame> stack;
  int line = 1;
  auto element_start = [&]() {
    if (stack.empty() || !stack.back().array || stack.back().in_element) return false;
    stack.back().in_element = true;
    ++stack.back().index;
    return at_path(stack, target);
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == ':') continue;
    if (c == ',') {
      if (!stack.empty()) {
        stack.back().want_key = !stack.back().array;
        stack.back().in_element = false;
      }
      continue;
    }
    if (c == '}' || c == ']') {
      if (!stack.empty()) stack.pop_back();
      continue;
    }
    if (element_start()) return line;
    if (c == '{' || c == '[') {
      stack.push_back({c == '[', "", -1, c == '{', false});
      continue;
    }
    if (c == '"') {
      std::string s;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) ++i;
        s.push_back(text[i]);
      }
      if (!stack.empty() && !stack.back().array && stack.back().want_key) {
        stack.back().key = std::move(s);
        stack.back().want_key = false;
        if (at_path(stack, target)) return line;
      }
    }
  }
  return 0;
}

}  // namespace mixerd::settings_schema
