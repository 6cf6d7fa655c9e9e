#include "protocol/settings_api.hpp"

#include <algorithm>
#include <utility>

#include "protocol/settings_schema.hpp"

namespace mixerd::settings_api {

namespace {

using nlohmann::json;

const json& no_schema() {
  static const json empty = json::object();
  return empty;
}

// The schema of member `name` of an object whose schema is `schema` (properties first, then
// additionalProperties when it is a schema); an empty schema when neither says.
const json& member_schema(const json& schema, const std::string& name) {
  if (!schema.is_object()) return no_schema();
  if (auto p = schema.find("properties"); p != schema.end() && p->is_object())
    if (auto s = p->find(name); s != p->end()) return *s;
  if (auto a = schema.find("additionalProperties"); a != schema.end() && a->is_object()) return *a;
  return no_schema();
}

const json& element_schema(const json& schema) {
  if (!schema.is_object()) return no_schema();
  if (auto i = schema.find("items"); i != schema.end() && i->is_object()) return *i;
  return no_schema();
}

bool write_only(const json& schema) {
  return schema.is_object() && schema.value("writeOnly", false);
}

json masked(const json& value) {
  const bool set =
      !value.is_null() && !(value.is_string() && value.get_ref<const std::string&>().empty());
  return set ? json(secret_mask) : json("");
}

void redact_into(json& value, const json& schema) {
  if (value.is_object()) {
    for (auto& [name, member] : value.items()) {
      const auto& s = member_schema(schema, name);
      if (write_only(s))
        member = masked(member);
      else
        redact_into(member, s);
    }
    // A secret the object leaves out reads as not set.
    if (auto p = schema.find("properties"); p != schema.end() && p->is_object())
      for (const auto& [name, s] : p->items())
        if (write_only(s) && !value.contains(name)) value[name] = "";
  } else if (value.is_array()) {
    const auto& s = element_schema(schema);
    for (auto& element : value)
      if (write_only(s))
        element = masked(element);
      else
        redact_into(element, s);
  }
}

void strip_into(json& value, const json& schema) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      const auto& s = member_schema(schema, it.key());
      if (write_only(s)) {
        it = value.erase(it);
      } else {
        strip_into(*it, s);
        ++it;
      }
    }
  } else if (value.is_array()) {
    const auto& s = element_schema(schema);
    if (write_only(s))
      value = json::array();
    else
      for (auto& element : value)
        strip_into(element, s);
  }
}

std::string member_path(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

bool live(const json& schema) {
  return schema.is_object() && schema.value(settings_schema::live_state, false);
}

// `schema` (may be empty) marks live state to leave out when `skip_live`.
void collect_changes(const json& before, const json& after, const std::string& path,
                     const json& schema, bool skip_live, std::vector<std::string>& out) {
  if (before == after || (skip_live && live(schema))) return;
  if (before.is_object() && after.is_object()) {
    for (const auto& [name, value] : before.items()) {
      const auto& s = member_schema(schema, name);
      if (skip_live && live(s)) continue;
      auto other = after.find(name);
      if (other == after.end())
        out.push_back(member_path(path, name));
      else
        collect_changes(value, *other, member_path(path, name), s, skip_live, out);
    }
    for (const auto& [name, value] : after.items())
      if (!before.contains(name) && !(skip_live && live(member_schema(schema, name))))
        out.push_back(member_path(path, name));
    return;
  }
  if (before.is_array() && after.is_array() && before.size() == after.size()) {
    const auto& s = element_schema(schema);
    for (std::size_t i = 0; i < before.size(); ++i)
      collect_changes(before[i], after[i], path + "[" + std::to_string(i) + "]", s, skip_live, out);
    return;
  }
  out.push_back(path.empty() ? std::string("(top level)") : path);
}

}  // namespace

json redact(const json& settings, const json& schema) {
  json out = settings;
  if (!out.is_object()) return out;
  redact_into(out, schema);
  return out;
}

json without_secrets(const json& settings, const json& schema) {
  json out = settings;
  strip_into(out, schema);
  return out;
}

void keep_live(json& restored, const json& running, const json& schema) {
  if (!restored.is_object()) return;
  const auto p = schema.find("properties");
  if (p == schema.end() || !p->is_object()) return;
  for (const auto& [name, s] : p->items()) {
    const auto was = running.is_object() ? running.find(name) : running.end();
    const bool had = running.is_object() && was != running.end();
    if (live(s)) {
      if (had)
        restored[name] = *was;
      else
        restored.erase(name);
    } else if (auto now = restored.find(name); now != restored.end() && now->is_object()) {
      keep_live(*now, had ? *was : json::object(), s);
    }
  }
}

void carry_secrets(json& imported, const json& running, const json& schema) {
  if (!imported.is_object() || !running.is_object()) return;
  for (const auto& [name, was] : running.items()) {
    const auto& s = member_schema(schema, name);
    auto now = imported.find(name);
    if (write_only(s)) {
      if (now == imported.end()) imported[name] = was;
      continue;
    }
    if (now == imported.end() || !now->is_object() || !was.is_object()) continue;
    if (without_secrets(*now, s) != without_secrets(was, s)) continue;
    for (const auto& [member, value] : was.items())
      if (write_only(member_schema(s, member)) && !now->contains(member)) (*now)[member] = value;
  }
}

void merge_patch(json& target, const json& patch, const json& schema) {
  if (!patch.is_object()) {
    target = patch;
    return;
  }
  if (!target.is_object()) target = json::object();
  for (const auto& [name, value] : patch.items()) {
    const auto& s = member_schema(schema, name);
    if (value.is_null()) {
      target.erase(name);
    } else if (write_only(s) && value == secret_mask) {
      // The mask the API showed, sent back unchanged: the secret stays.
    } else {
      merge_patch(target[name], value, s);
    }
  }
}

std::vector<std::string> changed_keys(const json& before, const json& after) {
  std::vector<std::string> keys;
  if (!before.is_object() || !after.is_object()) return keys;
  for (const auto& [name, value] : before.items()) {
    auto other = after.find(name);
    if (other == after.end() || *other != value) keys.push_back(name);
  }
  for (const auto& [name, value] : after.items())
    if (!before.contains(name)) keys.push_back(name);
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<std::string> changed_paths(const json& before, const json& after) {
  std::vector<std::string> out;
  collect_changes(before, after, "", no_schema(), false, out);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> configuration_paths(const json& before, const json& after,
                                             const json& schema) {
  std::vector<std::string> out;
  collect_changes(before, after, "", schema, true, out);
  std::sort(out.begin(), out.end());
  return out;
}

std::string summary(const std::vector<std::string>& paths, std::size_t shown) {
  // Paths that differ only in their last member read as one: "macros.pages.0[1] (name, type)".
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const auto& path : paths) {
    const auto dot = path.rfind('.');
    std::string parent = dot == std::string::npos ? std::string() : path.substr(0, dot);
    std::string member = dot == std::string::npos ? path : path.substr(dot + 1);
    if (!parent.empty() && !groups.empty() && groups.back().first == parent)
      groups.back().second.push_back(std::move(member));
    else
      groups.push_back({std::move(parent), {std::move(member)}});
  }
  std::string out;
  for (std::size_t i = 0; i < groups.size() && i < shown; ++i) {
    const auto& [parent, members] = groups[i];
    std::string text;
    if (parent.empty() || members.size() == 1) {
      text = parent.empty() ? members.front() : parent + "." + members.front();
    } else {
      text = parent + " (";
      for (std::size_t m = 0; m < members.size(); ++m)
        text += (m ? ", " : "") + members[m];
      text += ")";
    }
    out += (out.empty() ? "" : ", ") + text;
  }
  if (groups.size() > shown) out += " and " + std::to_string(groups.size() - shown) + " more";
  return out;
}

std::string first_guarded(const std::vector<std::string>& keys) {
  const auto guarded = settings_schema::guarded_keys();
  for (const auto& key : keys)
    if (std::find(guarded.begin(), guarded.end(), key) != guarded.end()) return key;
  return {};
}

std::string needs_trust_text(std::string_view key) {
  return std::string(key) +
         " holds a secret or an access rule: changing it needs login, or a client on this "
         "machine while login is off";
}

}  // namespace mixerd::settings_api
