#include "protocol/audio.hpp"

#include <algorithm>
#include <cmath>

#include "protocol/json.hpp"
#include "protocol/settings_schema.hpp"

namespace mixerd {

// ---- Events ------------------------------------------------------------------------------

nlohmann::json audio_status::to_json() const {
  return {{"connected", connected}, {"server", server}};
}

// ---- Settings: app_aliases, app_volume_policy
// ----------------------------------------------------

namespace {

constexpr std::size_t max_alias_keys = 64;
constexpr std::size_t max_aliases = 32;
constexpr std::size_t max_app_name_bytes = 256;

std::optional<settings_schema::problem> check_aliases(const nlohmann::json& s) {
  auto it = s.find("app_aliases");
  if (it == s.end()) return std::nullopt;
  if (!it->is_object())
    return settings_schema::problem{"app_aliases",
                                    "must be an object of application names to lists of names"};
  if (it->size() > max_alias_keys)
    return settings_schema::problem{"app_aliases", "must hold at most 64 applications"};
  for (const auto& [key, names] : it->items()) {
    const std::string path = "app_aliases." + key;
    if (key.empty() || key.size() > max_app_name_bytes)
      return settings_schema::problem{"app_aliases", "names must be 1-256 bytes"};
    if (!names.is_array() || names.size() > max_aliases)
      return settings_schema::problem{path, "must be an array of at most 32 names"};
    for (const auto& name : names)
      if (!name.is_string() || name.get_ref<const std::string&>().empty() ||
          name.get_ref<const std::string&>().size() > max_app_name_bytes)
        return settings_schema::problem{path, "must hold names of 1-256 bytes"};
  }
  return std::nullopt;
}

}  // namespace

audio_policy audio_policy_from_settings(const nlohmann::json& settings) {
  audio_policy policy;
  if (auto it = settings.find("app_aliases"); it != settings.end() && it->is_object())
    for (const auto& [key, names] : it->items()) {
      std::vector<std::string> list;
      if (names.is_array())
        for (const auto& name : names)
          if (name.is_string()) list.push_back(name.get<std::string>());
      policy.aliases.emplace_back(key, std::move(list));
    }
  if (auto it = settings.find("app_volume_policy"); it != settings.end() && it->is_string())
    policy.follow = it->get_ref<const std::string&>() == "follow";
  return policy;
}

settings_schema::part audio_settings() {
  using nlohmann::json;
  return {"audio",
          {
              {"app_aliases",
               {{"type", "object"},
                {"description",
                 "Other names of applications: an assignment name that is a key here also "
                 "matches the streams that any of its listed names match"},
                {"maxProperties", max_alias_keys},
                {"additionalProperties",
                 {{"type", "array"},
                  {"maxItems", max_aliases},
                  {"items",
                   {{"type", "string"}, {"minLength", 1}, {"maxLength", max_app_name_bytes}}}}},
                {"default", json::object()}},
               check_aliases},
              {"app_volume_policy",
               {{"type", "string"},
                {"enum", {"hold", "follow"}},
                {"default", "hold"},
                {"description",
                 "When an app changes its own volume: hold sets it back to the slider's, follow "
                 "moves the slider to it"}}},
          }};
}

}  // namespace mixerd

namespace mixerd::audio {

namespace {

std::string_view without_exe(std::string_view name) {
  constexpr std::string_view exe = ".exe";
  if (name.size() > exe.size()) {
    auto tail = name.substr(name.size() - exe.size());
    if (std::equal(tail.begin(), tail.end(), exe.begin(), [](char a, char b) {
          return (a >= 'A' && a <= 'Z' ? a + ('a' - 'A') : a) == b;
        }))
      return name.substr(0, name.size() - exe.size());
  }
  return name;
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c;
}

}  // namespace

std::uint32_t raw_volume(int percent) {
  percent = std::clamp(percent, limits::volume_min, limits::volume_max);
  return static_cast<std::uint32_t>(std::lround(percent * (volume_norm / 100.0)));
}

int percent_volume(std::uint32_t raw) {
  auto percent = std::lround(raw * (100.0 / volume_norm));
  return static_cast<int>(std::clamp<long>(percent, limits::volume_min, limits::volume_max));
}

bool same_app(std::string_view a, std::string_view b) {
  a = without_exe(a);
  b = without_exe(b);
  return !a.empty() && a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(),
                    [](char x, char y) { return lower(x) == lower(y); });
}

std::uint32_t raw_volume(double percent) {
  percent = std::clamp(percent, double(limits::volume_min), double(limits::volume_max));
  return static_cast<std::uint32_t>(std::lround(percent * (volume_norm / 100.0)));
}

double exact_percent(std::uint32_t raw) {
  return raw * (100.0 / volume_norm);
}

namespace {

// The application.name every Chromium-based app (Electron ones included) gives its streams.
bool generic_chromium_name(std::string_view name) {
  for (std::string_view generic : {"Chromium", "Chrome", "Google Chrome", "Electron"})
    if (same_app(name, generic)) return true;
  return false;
}

// The field of `who` that `name` itself names, or empty.
std::string_view field_named(std::string_view name, const app_identity& who) {
  if (same_app(name, who.binary)) return "binary";
  if (same_app(name, who.flatpak_id)) return "flatpak_id";
  if (same_app(name, who.id)) return "application_id";
  if (same_app(name, who.name) && (who.binary.empty() || !generic_chromium_name(who.name)))
    return "application_name";
  return {};
}

bool any_matches(const std::vector<std::string>& names, const app_identity& who,
                 const alias_list& aliases) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& name) {
    return !matched_field(name, who, aliases).empty();
  });
}

}  // namespace

std::string_view matched_field(std::string_view name, const app_identity& who,
                               const alias_list& aliases) {
  if (auto field = field_named(name, who); !field.empty()) return field;
  for (const auto& [key, others] : aliases) {
    if (!same_app(key, name)) continue;
    for (const auto& other : others)
      if (auto field = field_named(other, who); !field.empty()) return field;
  }
  return {};
}

bool covers(const assignment& target, const app_identity& who, const alias_list& aliases) {
  return target.type == assignment_type::app && any_matches(target.names, who, aliases);
}

bool excludes(const assignment& target, const app_identity& who, const alias_list& aliases) {
  return target.type == assignment_type::unmapped && any_matches(target.exclude, who, aliases);
}

std::string_view session_name(const app_identity& who) {
  for (const std::string* field : {&who.flatpak_id, &who.binary, &who.id, &who.name})
    if (!field->empty()) return *field;
  return {};
}

double applied_percent(const volume_curve& curve, int value) {
  const double x = std::clamp(value, limits::volume_min, limits::volume_max);
  double shaped = x;
  switch (curve.kind) {
    case curve_kind::linear:
      break;
    case curve_kind::fine:
      shaped = x * x / 100.0;
      break;
    case curve_kind::points: {
      const auto& p = curve.points;
      if (p.empty()) break;
      if (x <= p.front().first) {
        shaped = p.front().second;
      } else if (x >= p.back().first) {
        shaped = p.back().second;
      } else {
        auto next = std::find_if(p.begin(), p.end(), [&](const auto& q) { return q.first >= x; });
        auto prev = std::prev(next);
        shaped = prev->second + (next->second - prev->second) * (x - prev->first) /
                                    double(next->first - prev->first);
      }
      break;
    }
  }
  return curve.min + (curve.max - curve.min) * shaped / 100.0;
}

int slider_value_for(const volume_curve& curve, double percent) {
  int best = limits::volume_min;
  double best_gap = std::abs(applied_percent(curve, best) - percent);
  for (int v = best + 1; v <= limits::volume_max; ++v) {
    double gap = std::abs(applied_percent(curve, v) - percent);
    if (gap < best_gap) {
      best = v;
      best_gap = gap;
    }
  }
  return best;
}

}  // namespace mixerd::audio
