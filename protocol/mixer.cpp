#include "protocol/mixer.hpp"

#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/macro_kinds.hpp"

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

// ---- Macro kinds: mute and volume, each one of the mixer's commands --------------------------

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

}  // namespace

std::vector<macros::kind> mixer_macro_kinds() {
  return {
      {"mute", true, [](macros::field_reader& r) { return r.target(); }, mute_command},
      {"volume", true, read_volume, volume_command},
  };
}

}  // namespace mixerd
