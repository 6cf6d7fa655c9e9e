// The mixer's commands: sliders, their assignments, mutes and the master volume. Indices are
// 1-4 as the API shows them; each command converts to the mixer's 0-3 here, and nowhere else.
#include "actors/mixer/mixer_commands.hpp"

#include <algorithm>

#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/mixer.hpp"
#include "protocol/types.hpp"

namespace mixerd {

namespace {

using commands::flag;
using commands::integer;
using commands::optional;
using commands::param;

constexpr std::size_t max_label_bytes = 64;
constexpr std::string_view mixer_missing = "Mixer not available";

param slider_index() {
  return integer("index", 1, limits::slider_count, "The slider, 1-4");
}
param volume(std::string_view name, std::string_view description) {
  return integer(name, limits::volume_min, limits::volume_max, description);
}
param step() {
  return integer("step", -limits::volume_max, limits::volume_max,
                 "The change, added to the value now in effect (the result is kept in 0-100)");
}

// The API's 0-3 from its 1-4: the one place the mixer's commands convert.
int slider_of(const command_call_ptr& call) {
  return static_cast<int>(call->integer("index")) - 1;
}

// ---- slider.assign: the assignment's fields, with the wording of the assignment route --------

bool read_assignment(const nlohmann::json& input, nlohmann::json& args, commands::problem& why) {
  auto& error = why.text;
  auto parsed = mixerd::json::assignment_from_json(input, error);
  if (!parsed) return false;
  if (auto problem = assignment_names_problem(*parsed, true); !problem.empty()) {
    error = assignment_names_field(*parsed) + " " + problem;
    return false;
  }
  args["assignment"] = mixerd::json::to_json(*parsed);
  return true;
}

// Read with "type" (one assignment object).
bool names_read_with_type(const nlohmann::json&, nlohmann::json&, commands::problem&) {
  return true;
}

// Present: true or false; a JSON null means true (the route's switch had that default).
bool read_enforce_volume(const nlohmann::json& input, nlohmann::json& args,
                         commands::problem& why) {
  auto& error = why.text;
  auto it = input.find("enforce_volume");
  if (it == input.end()) return true;
  if (it->is_null()) {
    args["enforce_volume"] = true;
    return true;
  }
  if (!it->is_boolean()) {
    error = "enforce_volume must be true or false";
    return false;
  }
  args["enforce_volume"] = it->get<bool>();
  return true;
}

param assignment_type_param() {
  auto p = commands::choice(
      "type",
      {"unassigned", "system_default_output", "system_default_input", "app", "specific_app",
       "unmapped"},
      "What the slider controls (specific_app is taken as app; unmapped: every app no other "
      "slider claims)");
  p.read = read_assignment;
  return p;
}
// A list of application names of the assignment (read with "type").
param assignment_list_param(const char* name, const char* description) {
  param p;
  p.name = name;
  p.type = commands::param_type::array;
  p.required = false;
  p.description = description;
  p.read = names_read_with_type;
  return p;
}

// ---- The commands -----------------------------------------------------------------------------

void set_slider(const command_call_ptr& call) {
  const int index = static_cast<int>(call->integer("index"));
  call->ask(call->dir().get<mixer_actor>(),
            set_slider_value{slider_of(call), static_cast<int>(call->integer("value"))},
            [index](const command_call_ptr& c, int now) {
              c->ok({{"success", true}, {"index", index}, {"value", now}});
            });
}

// A relative change, from the value in effect when the mixer answers.
void step_slider(const command_call_ptr& call) {
  const int index = slider_of(call);
  const int delta = static_cast<int>(call->integer("step"));
  call->ask(call->dir().get<mixer_actor>(), caf::get_atom_v,
            [index, delta](const command_call_ptr& c, const mixer_snapshot& mix) {
              const int value = std::clamp(mix.sliders[index].value + delta, limits::volume_min,
                                           limits::volume_max);
              c->ask(c->dir().get<mixer_actor>(), set_slider_value{index, value},
                     [index](const command_call_ptr& c2, int now) {
                       c2->ok({{"success", true}, {"index", index + 1}, {"value", now}});
                     });
            });
}

void assign_slider(const command_call_ptr& call) {
  std::string ignored;
  set_slider_assignment req{
      slider_of(call), *mixerd::json::assignment_from_json(call->args().at("assignment"), ignored),
      std::nullopt, std::nullopt};
  if (call->has("label")) req.label = call->text("label");
  if (call->has("enforce_volume")) req.enforce_volume = call->flag("enforce_volume");
  call->ask(call->dir().get<mixer_actor>(), std::move(req),
            [](const command_call_ptr& c, const assignment& now) {
              c->ok({{"success", true}, {"assignment", mixerd::json::to_json(now)}});
            });
}

void toggle_slider_mute(const command_call_ptr& call) {
  const int index = static_cast<int>(call->integer("index"));
  call->ask(call->dir().get<mixer_actor>(), toggle_mute{slider_of(call)},
            [index](const command_call_ptr& c, bool muted) {
              c->ok({{"success", true},
                     {"index", index},
                     {"muted", muted},
                     {"message", "Mute toggle requested"}});
            });
}

void set_slider_mute(const command_call_ptr& call) {
  const int index = static_cast<int>(call->integer("index"));
  const bool muted = call->flag("muted");
  call->ask(call->dir().get<mixer_actor>(), set_mute{slider_of(call), muted},
            [index, muted](const command_call_ptr& c, bool changed) {
              c->ok({{"success", true}, {"index", index}, {"muted", muted}, {"changed", changed}});
            });
}

void toggle_master_mute(const command_call_ptr& call) {
  call->ask(
      call->dir().get<mixer_actor>(), toggle_mute{protocol::master_index},
      [](const command_call_ptr& c, bool muted) {
        c->ok({{"success", true}, {"muted", muted}, {"message", "Master mute toggle requested"}});
      });
}

void set_master_mute(const command_call_ptr& call) {
  const bool muted = call->flag("muted");
  call->ask(call->dir().get<mixer_actor>(), set_mute{protocol::master_index, muted},
            [muted](const command_call_ptr& c, bool changed) {
              c->ok({{"success", true}, {"muted", muted}, {"changed", changed}});
            });
}

void set_master(const command_call_ptr& call) {
  call->ask(call->dir().get<mixer_actor>(),
            set_master_volume{static_cast<int>(call->integer("value"))},
            [](const command_call_ptr& c, int now) {
              c->ok({{"success", true}, {"volume", now}});
            });
}

void step_master(const command_call_ptr& call) {
  const int delta = static_cast<int>(call->integer("step"));
  call->ask(call->dir().get<mixer_actor>(), caf::get_atom_v,
            [delta](const command_call_ptr& c, const mixer_snapshot& mix) {
              const int value =
                  std::clamp(mix.master_volume + delta, limits::volume_min, limits::volume_max);
              c->ask(c->dir().get<mixer_actor>(), set_master_volume{value},
                     [](const command_call_ptr& c2, int now) {
                       c2->ok({{"success", true}, {"volume", now}});
                     });
            });
}

// ---- Hold buttons: only macros hold (permission local), each as its slot ---------------------

param holder() {
  return commands::text("holder", 64, "Who holds the mute: the macro slot, page:index");
}

void hold(const command_call_ptr& call, int index) {
  call->ask(call->dir().get<mixer_actor>(),
            mute_hold{index, call->flag("muted"), call->text("holder")},
            [](const command_call_ptr& c, bool muted) {
              c->ok({{"success", true}, {"muted", muted}});
            });
}

void release(const command_call_ptr& call, int index) {
  call->ask(call->dir().get<mixer_actor>(), mute_release{index, call->text("holder")},
            [](const command_call_ptr& c, bool muted) {
              c->ok({{"success", true}, {"muted", muted}});
            });
}

}  // namespace

std::vector<command> mixer_commands() {
  return {
      {"slider.set",
       "Sets a slider's value",
       {slider_index(), volume("value", "The new value, 0-100")},
       commands::permission::control,
       mixer_missing,
       set_slider},
      {"slider.step",
       "Moves a slider's value by a step",
       {slider_index(), step()},
       commands::permission::control,
       mixer_missing,
       step_slider},
      {"slider.assign",
       "Sets what a slider controls, and optionally its label and enforce_volume",
       {slider_index(), assignment_type_param(),
        assignment_list_param(
            "names", "The application names an app assignment matches (1-32, each 1-256 bytes)"),
        assignment_list_param(
            "exclude", "For an unmapped assignment: the applications it leaves alone (0-32)"),
        optional([] {
          auto p = commands::text("label", max_label_bytes, "The slider's label on the device");
          p.device_text = true;
          return p;
        }()),
        [] {
          auto p = optional(
              flag("enforce_volume", "Set back an app that changes its own volume (null: true)"));
          p.read = read_enforce_volume;
          return p;
        }()},
       commands::permission::control,
       mixer_missing,
       assign_slider},
      {"mute.toggle",
       "Toggles a slider's mute, as its button does",
       {slider_index()},
       commands::permission::control,
       mixer_missing,
       toggle_slider_mute},
      {"mute.set",
       "Mutes or unmutes a slider",
       {slider_index(), flag("muted", "Muted (true) or not")},
       commands::permission::control,
       mixer_missing,
       set_slider_mute},
      {"master.set",
       "Sets the master volume",
       {volume("value", "The new master volume, 0-100")},
       commands::permission::control,
       mixer_missing,
       set_master},
      {"master.step",
       "Moves the master volume by a step",
       {step()},
       commands::permission::control,
       mixer_missing,
       step_master},
      {"master.mute_toggle",
       "Toggles the master mute, as its button does",
       {},
       commands::permission::control,
       mixer_missing,
       toggle_master_mute},
      {"master.mute_set",
       "Mutes or unmutes the master output",
       {flag("muted", "Muted (true) or not")},
       commands::permission::control,
       mixer_missing,
       set_master_mute},
      {"mute.hold",
       "Holds a slider's mute at a state until the holder releases it (a hold macro)",
       {slider_index(), flag("muted", "Held muted (true) or unmuted"), holder()},
       commands::permission::local,
       mixer_missing,
       [](const command_call_ptr& call) { hold(call, slider_of(call)); }},
      {"mute.release",
       "The holder lets go of a slider's mute: the state before the hold comes back",
       {slider_index(), holder()},
       commands::permission::local,
       mixer_missing,
       [](const command_call_ptr& call) { release(call, slider_of(call)); }},
      {"master.mute_hold",
       "Holds the master mute at a state until the holder releases it (a hold macro)",
       {flag("muted", "Held muted (true) or unmuted"), holder()},
       commands::permission::local,
       mixer_missing,
       [](const command_call_ptr& call) { hold(call, protocol::master_index); }},
      {"master.mute_release",
       "The holder lets go of the master mute: the state before the hold comes back",
       {holder()},
       commands::permission::local,
       mixer_missing,
       [](const command_call_ptr& call) { release(call, protocol::master_index); }},
  };
}

}  // namespace mixerd
