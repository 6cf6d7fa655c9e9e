#include "protocol/macros.hpp"

#include <string>

#include "protocol/json.hpp"
#include "protocol/macro_kinds.hpp"
#include "protocol/settings_schema.hpp"
#include "protocol/validation.hpp"

namespace mixerd {

// ---- Events ------------------------------------------------------------------------------

nlohmann::json macro_executed::to_json() const {
  nlohmann::json j = {{"page", page}, {"index", index}, {"name", name}, {"ok", ok}};
  if (!ok) j["error"] = error;
  return j;
}

nlohmann::json macro_page_change::to_json() const {
  return {{"page", page}};
}

nlohmann::json macros_change::to_json() const {
  return set;
}

nlohmann::json macro_change::to_json() const {
  return {{"page", page}, {"index", index}, {"macro", macro}};
}

nlohmann::json macro_page_name_change::to_json() const {
  return {{"page", page}, {"name", name}};
}

namespace {

using macros::detail::failure;
using macros::detail::range_text;
using macros::detail::read_macro;
using macros::detail::sentence;
using macros::detail::utf8_chars;
using nlohmann::json;

std::string default_page_name(int page) {
  return "Page " + std::to_string(page + 1);
}

// A page index as an object key: "0" to "3".
std::optional<int> page_key(const std::string& key) {
  if (key.size() == 1 && key[0] >= '0' && key[0] < '0' + limits::macro_page_count)
    return key[0] - '0';
  return std::nullopt;
}

std::string too_large_text(std::size_t bytes) {
  return "must be at most " + std::to_string(macros::max_macro_bytes) + " bytes as JSON (it is " +
         std::to_string(bytes) + ")";
}

// Reads {"current_page"?, "page_names"?, "pages"?} over the default set. An absent key keeps the
// default; a page may list fewer than 9 slots (the rest are empty).
bool read_set(const json& j, macros::origin from, bool with_current, macro_pages& set, failure& f) {
  set = macros::default_pages();
  if (!j.is_object()) {
    f = {"", "must be an object with current_page, page_names and pages"};
    return false;
  }
  if (auto it = j.find("current_page"); with_current && it != j.end()) {
    if (!it->is_number_integer() || it->get<long long>() < 0 ||
        it->get<long long>() >= limits::macro_page_count) {
      f = {"current_page", range_text(0, limits::macro_page_count - 1)};
      return false;
    }
    set.current_page = it->get<int>();
  }
  if (auto it = j.find("page_names"); it != j.end()) {
    if (!it->is_object()) {
      f = {"page_names", "must be an object of page numbers (\"0\" to \"3\") to names"};
      return false;
    }
    for (const auto& [key, value] : it->items()) {
      auto page = page_key(key);
      const std::string field = "page_names." + key;
      if (!page) {
        f = {field, "is not a page (\"0\" to \"3\")"};
        return false;
      }
      std::string name = value.is_string() ? value.get<std::string>() : std::string();
      std::string why;
      if (!value.is_string() || name.empty() || utf8_chars(name) > macros::max_page_name_chars ||
          !validation::device_text(name, "name", why)) {
        f = {field, "must be a name of 1 to 32 characters without control characters"};
        return false;
      }
      set.page_names[*page] = std::move(name);
    }
  }
  if (auto it = j.find("pages"); it != j.end()) {
    if (!it->is_object()) {
      f = {"pages", "must be an object of page numbers (\"0\" to \"3\") to lists of 9 macros"};
      return false;
    }
    for (const auto& [key, value] : it->items()) {
      auto page = page_key(key);
      const std::string field = "pages." + key;
      if (!page) {
        f = {field, "is not a page (\"0\" to \"3\")"};
        return false;
      }
      if (!value.is_array() || value.size() > static_cast<std::size_t>(limits::macro_count)) {
        f = {field, "must be an array of at most 9 macros"};
        return false;
      }
      for (std::size_t i = 0; i < value.size(); ++i) {
        failure inner;
        auto m = read_macro(value[i], from, inner);
        const std::string slot = field + "[" + std::to_string(i) + "]";
        if (!m) {
          inner.field = inner.field.empty() ? slot : slot + "." + inner.field;
          f = std::move(inner);
          return false;
        }
        if (auto bytes = macros::macro_bytes(*m); bytes > macros::max_macro_bytes) {
          f = {slot, too_large_text(bytes)};
          return false;
        }
        set.pages[*page][i] = std::move(*m);
      }
    }
  }
  if (auto bytes = macros::set_bytes(set.pages); bytes > macros::max_set_bytes) {
    f = {"pages", "hold " + std::to_string(bytes) + " bytes of macros as JSON; at most " +
                      std::to_string(macros::max_set_bytes) + " fit"};
    return false;
  }
  return true;
}

json page_slots_to_json(const macro_pages& set) {
  json pages = json::object();
  for (int p = 0; p < limits::macro_page_count; ++p) {
    json list = json::array();
    for (const auto& m : set.pages[p])
      list.push_back(m.fields);
    pages[std::to_string(p)] = std::move(list);
  }
  return pages;
}

json page_names_to_json(const macro_pages& set) {
  json names = json::object();
  for (int p = 0; p < limits::macro_page_count; ++p)
    names[std::to_string(p)] = set.page_names[p];
  return names;
}

}  // namespace

namespace macros {

macro_pages default_pages() {
  macro_pages set;
  for (int p = 0; p < limits::macro_page_count; ++p)
    set.page_names[p] = default_page_name(p);
  return set;
}

macro_pages pages_from_settings(const nlohmann::json& settings) {
  auto it = settings.find("macros");
  if (!settings.is_object() || it == settings.end()) return default_pages();
  macro_pages set;
  failure f;
  if (!read_set(*it, origin::settings, true, set, f)) return default_pages();
  return set;
}

bool validate_settings(const nlohmann::json& value, std::string& key, std::string& error) {
  macro_pages set;
  failure f;
  if (read_set(value, origin::settings, true, set, f)) return true;
  key = f.field.empty() ? "macros" : "macros." + f.field;
  error = f.missing ? "is missing" : f.message;
  return false;
}

std::optional<macro_replace> parse_profile_macros(const nlohmann::json& j, std::string& error) {
  macro_pages set;
  failure f;
  if (!read_set(j, origin::settings, false, set, f)) {
    error = sentence(f);
    return std::nullopt;
  }
  return macro_replace{set.page_names, set.pages};
}

std::size_t macro_bytes(const macro& m) {
  // Validated text is UTF-8; `replace` only keeps a size from ever throwing.
  return m.fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size();
}

std::size_t set_bytes(const std::array<macro_page, limits::macro_page_count>& pages) {
  std::size_t sum = 0;
  for (const auto& page : pages)
    for (const auto& m : page)
      sum += macro_bytes(m);
  return sum;
}

nlohmann::json to_json(const macro_pages& set) {
  return {{"current_page", set.current_page},
          {"page_names", page_names_to_json(set)},
          {"pages", page_slots_to_json(set)}};
}

nlohmann::json pages_to_json(const macro_pages& set) {
  return {{"current", set.current_page}, {"names", page_names_to_json(set)}};
}

nlohmann::json profile_macros_to_json(const macro_pages& set) {
  return {{"page_names", page_names_to_json(set)}, {"pages", page_slots_to_json(set)}};
}

}  // namespace macros

}  // namespace mixerd

namespace mixerd {

// ---- Settings: the Macro page set --------------------------------------------------------------

namespace {

// A key such as "macros.pages.1[4].argv" (protocol/README.md, "Macros").
std::optional<settings_schema::problem> check_macros(const json& s) {
  auto it = s.find("macros");
  if (it == s.end()) return std::nullopt;
  std::string key;
  std::string error;
  if (macros::validate_settings(*it, key, error)) return std::nullopt;
  return settings_schema::problem{key, error};
}

std::optional<settings_schema::problem> check_http_allow(const json& s) {
  auto it = s.find(http_targets::allow_key);
  if (it == s.end()) return std::nullopt;
  std::string key;
  std::string error;
  if (http_targets::parse_allow(*it, key, error)) return std::nullopt;
  return settings_schema::problem{key, error};
}

}  // namespace

settings_schema::part macros_settings() {
  return {
      "macros",
      {{"macros",
        {{"type", "object"},
         {"description",
          "The Macro page set: current_page (0-3), page_names (\"0\"-\"3\": 1-32 "
          "characters) and pages (\"0\"-\"3\": up to 9 Macro objects each)"},
         {"properties",
          {{"current_page",
            {{"type", "integer"},
             {"minimum", 0},
             {"maximum", 3},
             {"default", 0},
             {settings_schema::live_state, true}}},
           {"page_names", {{"type", "object"}}},
           {"pages", {{"type", "object"}}}}}},
        check_macros},
       // An access rule: a reload of a file that leaves it out keeps it (settings_schema.hpp).
       settings_schema::guarded(
           {http_targets::allow_key,
            {{"type", "array"},
             {"items", {{"type", "string"}, {"maxLength", http_targets::max_allow_entry_bytes}}},
             {"maxItems", http_targets::max_allow_entries},
             {"default", nlohmann::json::array()},
             {"description",
              "Where on this machine http macros may go: host names (\"localhost:8123\"), "
              "addresses "
              "(\"127.0.0.1\", \"[::1]:8080\") or networks (\"169.254.0.0/16\"), each with an "
              "optional port. Loopback, this machine's own addresses and link-local addresses are "
              "refused unless listed here; mixerd's own listeners always are"}},
            check_http_allow})}};
}

}  // namespace mixerd
