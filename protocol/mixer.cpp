#include "protocol/mixer.hpp"

#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/macro_kinds.hpp"
#include "protocol/settings_schema.hpp"
#include "protocol/validation.hpp"

namespace mixerd {

// ---- Events ------------------------------------------------------------------------------

nlohmann::json slider_change::to_json() const {
  return {{"index", index},
          {"value", value},
          {"position", position ? nlohmann::json(*position) : nlohmann::json(nullptr)},
          {"pickup", pickup}};
}

nlohmann::json assignment_change::to_json() const {
  return {{"index", index}, {"assignment", json::to_json(assigned)}, {"label", label}};
}

nlohmann::json mute_change::to_json() const {
  nlohmann::json wire_index =
      index == protocol::master_index ? nlohmann::json("master") : nlohmann::json(index);
  return {{"index", std::move(wire_index)}, {"muted", muted}};
}

nlohmann::json volume_change::to_json() const {
  return json::volume_to_json(volume);
}

}  // namespace mixerd

namespace mixerd {

// ---- Macro kinds: mute, volume and the hold kinds, each one of the mixer's commands ----------

namespace {

bool read_volume(macros::field_reader& r) {
  if (!r.target()) return false;
  const bool step = r.find("step") != nullptr;
  const bool value = r.find("value") != nullptr;
  if (step == value)
    return r.fail(step ? "step" : "value",
                  step ? "and value cannot both be given" : "or step is required");
  return step ? r.integer("step", -100, 100, true)
              : r.integer("value", limits::volume_min, limits::volume_max, true);
}

bool is_master(const nlohmann::json& fields) {
  return fields.at("target").is_string();
}

// As its button does: the target's mute toggles.
command_request mute_command(const nlohmann::json& fields) {
  if (is_master(fields)) return {"master.mute_toggle", nlohmann::json::object()};
  return {"mute.toggle", {{"index", fields.at("target")}}};
}

// `value` sets it, `step` moves it from the value in effect.
command_request volume_command(const nlohmann::json& fields) {
  const bool step = fields.contains("step");
  nlohmann::json args = step ? nlohmann::json{{"step", fields.at("step")}}
                             : nlohmann::json{{"value", fields.at("value")}};
  if (is_master(fields)) return {step ? "master.step" : "master.set", std::move(args)};
  args["index"] = fields.at("target");
  return {step ? "slider.step" : "slider.set", std::move(args)};
}

// ---- Hold kinds: the mute is held while the button is down ----------------------------------
// The macro actor adds `holder` to both commands (protocol/macro_kinds.hpp).

// Push-to-talk holds a slider's mute only: an unmuted master while held would be no safer.
bool read_hold_unmute(macros::field_reader& r) {
  return r.integer("target", 1, limits::mute_count, true);
}

command_request hold_command(const nlohmann::json& fields, bool muted) {
  if (is_master(fields)) return {"master.mute_hold", {{"muted", muted}}};
  return {"mute.hold", {{"index", fields.at("target")}, {"muted", muted}}};
}

command_request release_command(const nlohmann::json& fields) {
  if (is_master(fields)) return {"master.mute_release", nlohmann::json::object()};
  return {"mute.release", {{"index", fields.at("target")}}};
}

}  // namespace

std::vector<macros::kind> mixer_macro_kinds() {
  return {
      {"mute", true, [](macros::field_reader& r) { return r.target(); }, mute_command},
      {"volume", true, read_volume, volume_command},
      // Not steps: a step has no button that is held.
      {"hold_mute", false, [](macros::field_reader& r) { return r.target(); },
       [](const nlohmann::json& fields) { return hold_command(fields, true); }, release_command},
      {"hold_unmute", false, read_hold_unmute,
       [](const nlohmann::json& fields) { return hold_command(fields, false); }, release_command},
  };
}

}  // namespace mixerd

namespace mixerd {

// ---- Settings: sliders, mutes, master_volume --------------------------------------------------

namespace {

using json = nlohmann::json;

bool is_percent(const json& v) {
  return v.is_number_integer() && v.get<long long>() >= limits::volume_min &&
         v.get<long long>() <= limits::volume_max;
}

constexpr std::size_t max_curve_points = 16;

// A slider's curve, points, min and max.
std::optional<settings_schema::problem> check_curve(const json& slider, const std::string& base) {
  const auto kind = slider.find("curve");
  if (kind != slider.end() &&
      (!kind->is_string() || (*kind != "linear" && *kind != "fine" && *kind != "points")))
    return settings_schema::problem{base + ".curve", "must be one of linear, fine, points"};
  const auto points = slider.find("points");
  if (points != slider.end()) {
    if (!points->is_array() || points->size() < 2 || points->size() > max_curve_points)
      return settings_schema::problem{base + ".points",
                                      "must be an array of 2-16 [slider, volume] pairs"};
    long long last = -1;
    for (std::size_t i = 0; i < points->size(); ++i) {
      const auto& pair = (*points)[i];
      std::string at = base + ".points[" + std::to_string(i) + "]";
      if (!pair.is_array() || pair.size() != 2 || !is_percent(pair[0]) || !is_percent(pair[1]))
        return settings_schema::problem{at, "must be a pair [slider, volume] of integers 0-100"};
      if (pair[0].get<long long>() <= last)
        return settings_schema::problem{at, "must have a slider value above the previous point's"};
      last = pair[0].get<long long>();
    }
  } else if (kind != slider.end() && *kind == "points") {
    return settings_schema::problem{base + ".points", "is required when curve is points"};
  }
  for (const char* bound : {"min", "max"})
    if (auto v = slider.find(bound); v != slider.end() && !is_percent(*v))
      return settings_schema::problem{base + "." + bound, "must be an integer from 0 to 100"};
  if (slider.value("min", 0) > slider.value("max", 100))
    return settings_schema::problem{base + ".min", "must be at most max"};
  return std::nullopt;
}

std::optional<settings_schema::problem> check_slider_values(const json& s) {
  auto it = s.find("slider_values");
  if (it == s.end()) return std::nullopt;
  if (!it->is_array() || it->size() > static_cast<std::size_t>(limits::slider_count) ||
      !std::all_of(it->begin(), it->end(), is_percent))
    return settings_schema::problem{"slider_values",
                                    "must be an array of at most 4 integers from 0 to 100"};
  return std::nullopt;
}

std::optional<settings_schema::problem> check_sliders(const json& s) {
  auto it = s.find("sliders");
  if (it == s.end()) return std::nullopt;
  if (!it->is_array() || it->size() > static_cast<std::size_t>(limits::slider_count))
    return settings_schema::problem{"sliders", "must be an array of at most 4 slider objects"};
  for (std::size_t i = 0; i < it->size(); ++i) {
    const auto& slider = (*it)[i];
    std::string base = "sliders[" + std::to_string(i) + "]";
    if (!slider.is_object()) return settings_schema::problem{base, "must be an object"};
    if (auto label = slider.find("label"); label != slider.end()) {
      if (!label->is_string()) return settings_schema::problem{base + ".label", "must be a string"};
      const auto& text = label->get_ref<const std::string&>();
      if (text.size() > 64)
        return settings_schema::problem{base + ".label", "must be at most 64 bytes"};
      if (std::string copy = text, why; !validation::device_text(copy, "label", why))
        return settings_schema::problem{base + ".label", "must not contain control characters"};
    }
    if (auto a = slider.find("assignment"); a != slider.end()) {
      std::string why;
      if (!::mixerd::json::assignment_from_json(*a, why)) {
        // `why` names the inner field first ("type must be ...").
        auto space = why.find(' ');
        if (why.compare(0, space, "must") == 0)
          return settings_schema::problem{base + ".assignment", why};
        return settings_schema::problem{base + ".assignment." + why.substr(0, space),
                                        why.substr(space + 1)};
      }
    }
    if (auto e = slider.find("enforce_volume"); e != slider.end() && !e->is_boolean())
      return settings_schema::problem{base + ".enforce_volume", "must be true or false"};
    if (auto problem = check_curve(slider, base)) return problem;
  }
  return std::nullopt;
}

// A change through the settings API sets new assignments: they name at least one application.
std::optional<settings_schema::problem> check_new_assignments(const json& s) {
  auto it = s.find("sliders");
  if (it == s.end() || !it->is_array()) return std::nullopt;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const auto& slider = (*it)[i];
    auto a = slider.is_object() ? slider.find("assignment") : slider.end();
    if (!slider.is_object() || a == slider.end()) continue;
    std::string why;
    auto parsed = ::mixerd::json::assignment_from_json(*a, why);
    if (!parsed) continue;  // validate() names it
    if (auto problem = assignment_names_problem(*parsed, true); !problem.empty())
      return settings_schema::problem{
          "sliders[" + std::to_string(i) + "].assignment." + assignment_names_field(*parsed),
          problem};
  }
  return std::nullopt;
}

std::optional<settings_schema::problem> check_mutes(const json& s) {
  auto it = s.find("mutes");
  if (it == s.end()) return std::nullopt;
  if (!it->is_object())
    return settings_schema::problem{"mutes", "must be an object with individual and master"};
  if (auto ind = it->find("individual"); ind != it->end()) {
    bool ok = ind->is_array() && ind->size() == static_cast<std::size_t>(limits::mute_count) &&
              std::all_of(ind->begin(), ind->end(), [](const json& b) { return b.is_boolean(); });
    if (!ok) return settings_schema::problem{"mutes.individual", "must be an array of 4 booleans"};
  }
  if (auto m = it->find("master"); m != it->end() && !m->is_boolean())
    return settings_schema::problem{"mutes.master", "must be a boolean"};
  return std::nullopt;
}

std::optional<settings_schema::problem> check_master_volume(const nlohmann::json& s) {
  auto it = s.find("master_volume");
  if (it == s.end() || (it->is_number_integer() && it->get<long long>() >= limits::volume_min &&
                        it->get<long long>() <= limits::volume_max))
    return std::nullopt;
  return settings_schema::problem{
      "master_volume", settings_schema::range_text(limits::volume_min, limits::volume_max)};
}

}  // namespace

slider_policy slider_policy_from_settings(const nlohmann::json& settings) {
  slider_policy policy;
  if (auto it = settings.find("slider_deadband"); it != settings.end() && it->is_number_integer())
    policy.deadband = std::clamp(it->get<int>(), 0, 10);
  if (auto it = settings.find("slider_takeover"); it != settings.end() && it->is_string())
    policy.pickup = it->get_ref<const std::string&>() != "jump";
  return policy;
}

audio::volume_curve volume_curve_from_json(const nlohmann::json& slider) {
  audio::volume_curve curve;
  if (!slider.is_object()) return curve;
  if (auto kind = slider.find("curve"); kind != slider.end() && kind->is_string()) {
    if (*kind == "fine") curve.kind = audio::curve_kind::fine;
    if (*kind == "points") curve.kind = audio::curve_kind::points;
  }
  if (auto points = slider.find("points"); points != slider.end() && points->is_array())
    for (const auto& pair : *points)
      if (pair.is_array() && pair.size() == 2 && is_percent(pair[0]) && is_percent(pair[1]))
        curve.points.emplace_back(pair[0].get<int>(), pair[1].get<int>());
  if (auto v = slider.find("min"); v != slider.end() && is_percent(*v)) curve.min = v->get<int>();
  if (auto v = slider.find("max"); v != slider.end() && is_percent(*v)) curve.max = v->get<int>();
  return curve;
}

void volume_curve_to_json(const audio::volume_curve& curve, nlohmann::json& slider) {
  if (curve.kind == audio::curve_kind::fine) slider["curve"] = "fine";
  if (curve.kind == audio::curve_kind::points) slider["curve"] = "points";
  if (!curve.points.empty()) {
    auto& list = slider["points"] = nlohmann::json::array();
    for (const auto& [at, volume] : curve.points)
      list.push_back({at, volume});
  }
  if (curve.min != 0) slider["min"] = curve.min;
  if (curve.max != 100) slider["max"] = curve.max;
}

std::string assignment_names_field(const assignment& a) {
  return a.type == assignment_type::unmapped ? "exclude" : "names";
}

std::string assignment_names_problem(const assignment& a, bool is_new) {
  constexpr std::size_t max_names = 32;
  constexpr std::size_t max_name_bytes = 256;
  if (is_new && a.type == assignment_type::app && a.names.empty())
    return "must list at least one application name";
  const auto& list = a.type == assignment_type::unmapped ? a.exclude : a.names;
  if (list.size() > max_names) return "must hold at most 32 application names";
  for (const auto& name : list)
    if (name.size() > max_name_bytes) return "must be at most 256 bytes each";
  return {};
}

settings_schema::part mixer_settings() {
  using nlohmann::json;
  const json percent = {{"type", "integer"}, {"minimum", 0}, {"maximum", 100}};
  const json assignment = {
      {"type", "object"},
      {"description", "What the slider controls"},
      {"properties",
       {{"type",
         {{"type", "string"},
          {"enum",
           {"unassigned", "system_default_output", "system_default_input", "app", "unmapped"}}}},
        {"names",
         {{"type", "array"},
          {"items", {{"type", "string"}, {"minLength", 1}}},
          {"description", "The application names an app assignment matches"}}},
        {"exclude",
         {{"type", "array"},
          {"items", {{"type", "string"}, {"minLength", 1}}},
          {"description", "The applications an unmapped assignment leaves alone"}}}}},
      {"required", {"type"}}};
  return {"mixer",
          {
              {"sliders",
               {{"type", "array"},
                {"maxItems", limits::slider_count},
                {"description", "The four sliders, in order: label, assignment, enforce_volume"},
                {"items",
                 {{"type", "object"},
                  {"properties",
                   {{"label", {{"type", "string"}, {"maxLength", 64}}},
                    {"assignment", assignment},
                    {"enforce_volume", {{"type", "boolean"}, {"default", true}}},
                    {"curve",
                     {{"type", "string"},
                      {"enum", {"linear", "fine", "points"}},
                      {"default", "linear"},
                      {"description",
                       "How the slider's value becomes a volume: linear, fine (more steps at the "
                       "low end) or points"}}},
                    {"points",
                     {{"type", "array"},
                      {"minItems", 2},
                      {"maxItems", max_curve_points},
                      {"description",
                       "For curve points: [slider, volume] pairs, slider values increasing; "
                       "straight lines between them"},
                      {"items",
                       {{"type", "array"},
                        {"prefixItems", {percent, percent}},
                        {"minItems", 2},
                        {"maxItems", 2}}}}},
                    {"min", settings_schema::integer_schema(
                                0, 100, 0, "The volume at the bottom of the slider")},
                    {"max", settings_schema::integer_schema(
                                0, 100, 100, "The volume at the top of the slider")}}}}}},
               check_sliders,
               false,
               check_new_assignments},
              {"mutes",
               {{"type", "object"},
                {"description", "The mutes: individual (four booleans) and master"},
                {settings_schema::live_state, true},
                {"properties",
                 {{"individual",
                   {{"type", "array"},
                    {"items", {{"type", "boolean"}}},
                    {"minItems", limits::mute_count},
                    {"maxItems", limits::mute_count}}},
                  {"master", {{"type", "boolean"}}}}}},
               check_mutes},
              {"master_volume",
               settings_schema::live(settings_schema::integer_schema(
                   limits::volume_min, limits::volume_max, 50, "The master volume, 0-100")),
               check_master_volume},
              {"slider_values",
               settings_schema::live({{"type", "array"},
                                      {"maxItems", limits::slider_count},
                                      {"items", percent},
                                      {"description",
                                       "The sliders' values, restored at start-up (a physical "
                                       "slider picks them up)"}}),
               check_slider_values},
              {"slider_deadband",
               settings_schema::integer_schema(
                   0, 10, 1,
                   "A device reading within this of the slider's value that reverses its last "
                   "move is ignored (a noisy potentiometer); 0 turns it off")},
              {"slider_takeover",
               {{"type", "string"},
                {"enum", {"pickup", "jump"}},
                {"default", "pickup"},
                {"description",
                 "After a value set elsewhere (the API, a profile, start-up): pickup waits until "
                 "the physical slider reaches it, jump follows the next reading"}}},
          }};
}

}  // namespace mixerd
