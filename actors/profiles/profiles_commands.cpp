// The profiles' commands: load, create (from the current state), save into (and rename) and
// delete. The profile actor builds each answer's body; its outcome maps to the status here.
#include "actors/profiles/profiles_commands.hpp"

#include <string>

#include "protocol/profiles.hpp"
#include "protocol/validation.hpp"

namespace mixerd {

namespace {

using commands::optional;
using commands::param;
using result = profile_outcome::result;

constexpr std::string_view profiles_missing = "Profiles not available";

// A profile name: a string of at most 64 bytes that profiles::name_problem accepts.
bool read_name_field(const nlohmann::json& input, nlohmann::json& args, commands::problem& why,
                     const char* field) {
  auto name = validation::string_field(input, field, profiles::max_name_bytes, why.text);
  if (name) why.text = profiles::name_problem(*name, field);
  if (!why.text.empty()) return false;
  args[field] = std::move(*name);
  return true;
}
bool read_name(const nlohmann::json& input, nlohmann::json& args, commands::problem& why) {
  return read_name_field(input, args, why, "name");
}
bool read_new_name(const nlohmann::json& input, nlohmann::json& args, commands::problem& why) {
  if (!input.contains("new_name")) return true;
  return read_name_field(input, args, why, "new_name");
}

param name_param(std::string_view description) {
  auto p = commands::text("name", profiles::max_name_bytes, description);
  p.read = read_name;
  return p;
}
param icon_param() {
  auto p = optional(commands::text("icon", profiles::max_icon_bytes, "The profile's icon name"));
  p.device_text = true;
  return p;
}

// Asks the profile actor; answers its body with `ok_status`, or its error.
template <class Request>
void ask_profiles(const command_call_ptr& call, Request req, int ok_status = 200) {
  call->ask(call->dir().get<profiles_actor>(), std::move(req),
            [ok_status](const command_call_ptr& c, const profile_outcome& out) {
              if (out.what == result::ok) return c->ok(out.body, ok_status);
              auto failure = command_result::failure(profiles::status_of(out.what), out.error);
              if (out.what == result::too_fast)
                failure.headers.emplace_back("Retry-After", std::to_string(out.retry_after));
              c->done(std::move(failure));
            });
}

void load(const command_call_ptr& call) {
  ask_profiles(call, profile_load{call->text("name")});
}

void create(const command_call_ptr& call) {
  ask_profiles(
      call, profile_create{call->text("name"), call->has("icon") ? call->text("icon") : ""}, 201);
}

void save(const command_call_ptr& call) {
  profile_save req{call->text("name"), std::nullopt, std::nullopt, false};
  if (call->has("icon")) req.icon = call->text("icon");
  if (call->has("new_name")) req.new_name = call->text("new_name");
  ask_profiles(call, std::move(req));
}

// Only the name or the icon: what the profile holds stays.
void edit(const command_call_ptr& call) {
  profile_save req{call->text("name"), std::nullopt, std::nullopt, true};
  if (call->has("icon")) req.icon = call->text("icon");
  if (call->has("new_name")) req.new_name = call->text("new_name");
  ask_profiles(call, std::move(req));
}

void remove(const command_call_ptr& call) {
  ask_profiles(call, profile_delete{call->text("name")});
}

}  // namespace

std::vector<command> profiles_commands() {
  auto new_name =
      optional(commands::text("new_name", profiles::max_name_bytes, "A new name for the profile"));
  new_name.read = read_new_name;
  return {
      {"profile.load",
       "Loads a profile: its sliders, mutes, master volume and macros",
       {name_param("The profile")},
       commands::permission::control,
       profiles_missing,
       load},
      {"profile.create",
       "Saves the current state as a new profile",
       {name_param("The new profile's name"), icon_param()},
       commands::permission::control,
       profiles_missing,
       create},
      {"profile.save",
       "Saves the current state into a profile, optionally renaming it or changing its icon",
       {name_param("The profile"), icon_param(), new_name},
       commands::permission::control,
       profiles_missing,
       save},
      {"profile.edit",
       "Renames a profile or changes its icon, keeping what it holds",
       {name_param("The profile"), icon_param(), new_name},
       commands::permission::control,
       profiles_missing,
       edit},
      {"profile.delete",
       "Deletes a profile (not the current one)",
       {name_param("The profile")},
       commands::permission::control,
       profiles_missing,
       remove},
  };
}

}  // namespace mixerd
