#include "protocol/mixer.hpp"

#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/macro_kinds.hpp"
#include "protocol/settings_schema.hpp"
#include "protocol/validation.hpp"

namespace mixerd {

// ---- Events ------------------------------------------------------------------------------

nlohmann::json slider_change::to_json() const {
  return {{"index", index}, {"value", value}};
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
      return settings_schema::problem{"sliders[" + std::to_string(i) + "].assignment.names",
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

std::string assignment_names_problem(const assignment& a, bool is_new) {
  constexpr std::size_t max_names = 32;
  constexpr std::size_t max_name_bytes = 256;
  if (is_new && a.type == assignment_type::app && a.names.empty())
    return "must list at least one application name";
  if (a.names.size() > max_names) return "must hold at most 32 application names";
  for (const auto& name : a.names)
    if (name.size() > max_name_bytes) return "must be at most 256 bytes each";
  return {};
}

settings_schema::part mixer_settings() {
  using nlohmann::json;
  const json assignment = {
      {"type", "object"},
      {"description", "What the slider controls"},
      {"properties",
       {{"type",
         {{"type", "string"},
          {"enum", {"unassigned", "system_default_output", "system_default_input", "app"}}}},
        {"names",
         {{"type", "array"},
          {"items", {{"type", "string"}, {"minLength", 1}}},
          {"description", "The application names an app assignment matches"}}}}},
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
                    {"enforce_volume", {{"type", "boolean"}, {"default", true}}}}}}}},
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
          }};
}

}  // namespace mixerd
