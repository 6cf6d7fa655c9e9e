// The macros' commands: run a slot, and edit the page set. Pages (0-3) and slots (0-8) are the
// indices the API shows for macros.
#include "actors/macros/macros_commands.hpp"

#include <string>

#include "protocol/http_targets.hpp"
#include "protocol/limits.hpp"
#include "protocol/macros.hpp"
#include "protocol/uri.hpp"
#include "protocol/validation.hpp"

namespace mixerd {

namespace {

using commands::integer;
using commands::optional;
using commands::param;

constexpr std::string_view macros_missing = "Macros not available";

param page_param() {
  return integer("page", 0, limits::macro_page_count - 1, "The macro page, 0-3");
}
param slot_param() {
  return integer("index", 0, limits::macro_count - 1, "The slot on the page, 0-8");
}

// A Macro object of any kind but command (which only settings.json may hold): 403 for that.
bool read_macro(const nlohmann::json& input, nlohmann::json& args, commands::problem& why) {
  auto it = input.find("macro");
  if (it == input.end()) {
    why.text = "Missing field: macro";
    return false;
  }
  bool forbidden = false;
  auto parsed = macros::parse_macro(*it, macros::origin::api, why.text, &forbidden);
  if (!parsed) {
    why.status = forbidden ? 403 : 400;
    return false;
  }
  args["macro"] = parsed->fields;
  return true;
}

// 1 to 32 characters of device text.
bool read_page_name(const nlohmann::json& input, nlohmann::json& args, commands::problem& why) {
  auto name = validation::string_field(input, "name", 4 * macros::max_page_name_chars, why.text);
  if (!name) return false;
  std::size_t chars = 0;
  for (char c : *name)
    chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  if (chars == 0 || chars > macros::max_page_name_chars) {
    why.text = "name must be 1 to 32 characters";
    return false;
  }
  if (!validation::device_text(*name, "name", why.text)) return false;
  args["name"] = std::move(*name);
  return true;
}

void trigger(const command_call_ptr& call) {
  macro_trigger req{std::nullopt, static_cast<int>(call->integer("index")), call->origin().depth};
  if (call->has("page")) req.page = static_cast<int>(call->integer("page"));
  std::string phase;
  if (call->has("phase")) {
    phase = call->text("phase");
    req.edge = phase == "press" ? macro_trigger::phase::press : macro_trigger::phase::release;
  }
  const int index = req.index;
  call->ask(call->dir().get<macros_actor>(), req,
            [index, phase](const command_call_ptr& c, const macro_trigger_outcome& out) {
              const std::string where =
                  "page " + std::to_string(out.page) + ", index " + std::to_string(index);
              switch (out.what) {
                case macro_trigger_outcome::result::empty:
                  return c->fail(404, "No macro at " + where);
                case macro_trigger_outcome::result::running:
                  return c->fail(409, "The macro at " + where + " is still running");
                case macro_trigger_outcome::result::too_deep:
                  return c->fail(508, "The macro at " + where +
                                          " was asked through a chain of more than " +
                                          std::to_string(macros::max_run_depth) +
                                          " macro runs; a macro runs only for a person");
                case macro_trigger_outcome::result::too_often: {
                  auto refused = command_result::failure(
                      429, "The macro at " + where + " ran too often; try again in " +
                               std::to_string(out.retry_after) + " s");
                  refused.headers.emplace_back("Retry-After", std::to_string(out.retry_after));
                  return c->done(std::move(refused));
                }
                case macro_trigger_outcome::result::needs_phase:
                  return c->fail(400, "The macro at " + where +
                                          " is held while its button is down: send phase "
                                          "\"press\", then \"release\"");
                case macro_trigger_outcome::result::started:
                  break;
              }
              nlohmann::json answer{
                  {"success", true}, {"index", index}, {"page", out.page}, {"macro", out.name}};
              if (!phase.empty()) answer["phase"] = phase;
              c->ok(std::move(answer));
            });
}

// An http macro aims mixerd at the network: who may store one, and where it may go
// (protocol/README.md, "Who may aim mixerd at the network"). "" when the macro may be stored.
commands::problem http_problem(const command_call_ptr& call, const macro& value) {
  std::vector<std::pair<std::string, const nlohmann::json*>> requests;  // field prefix, step
  if (value.type() == "http") requests.emplace_back("", &value.fields);
  if (value.type() == "sequence")
    for (std::size_t i = 0; i < value.fields["steps"].size(); ++i)
      if (value.fields["steps"][i].value("type", "") == "http")
        requests.emplace_back("steps[" + std::to_string(i) + "].", &value.fields["steps"][i]);
  if (requests.empty()) return {"", 0};
  if (!call->origin().may(commands::permission::trusted))
    return {
        "An http macro can be stored only with login on, or from a client on this machine "
        "(loopback); turn login on or make the change there",
        403};
  http_targets::rule rule;
  if (auto view = call->dir().view<macros_view>()) rule.allow = view->http_allow;
  if (auto own = call->dir().view<http_targets::own_listeners>()) rule.own_ports = own->ports;
  for (const auto& [prefix, step] : requests)
    if (auto why = http_targets::check_url(
            *uri::split_url(step->at("url").get_ref<const std::string&>()), rule);
        !why.empty())
      return {prefix + why, 400};
  return {"", 0};
}

void set_slot(const command_call_ptr& call) {
  std::string ignored;
  // Read once already (read_macro): parsing the stored form again cannot fail.
  auto value = macros::parse_macro(call->args().at("macro"), macros::origin::api, ignored);
  if (auto problem = http_problem(call, *value); !problem.text.empty())
    return call->fail(problem.status, problem.text);
  macro_edit req{static_cast<int>(call->integer("page")), static_cast<int>(call->integer("index")),
                 std::move(*value), true};
  call->ask(call->dir().get<macros_actor>(), std::move(req),
            [](const command_call_ptr& c, const macro_edit_outcome& out) {
              switch (out.what) {
                case macro_edit_outcome::result::kept_command:
                  // The API may delete a command macro but not write over it.
                  return c->fail(403,
                                 "The slot holds a command macro, which can only be changed in "
                                 "settings.json (the API may delete it)");
                case macro_edit_outcome::result::set_too_large:
                  return c->fail(413, "The macros would take " + std::to_string(out.set_bytes) +
                                          " bytes as JSON; all 36 together may take at most " +
                                          std::to_string(macros::max_set_bytes) +
                                          " (make this or another macro smaller)");
                case macro_edit_outcome::result::stored:
                  break;
              }
              c->ok({{"success", true}, {"macro", out.stored.fields}});
            });
}

void clear_slot(const command_call_ptr& call) {
  macro_edit req{static_cast<int>(call->integer("page")), static_cast<int>(call->integer("index")),
                 macro{}, false};
  call->ask(call->dir().get<macros_actor>(), std::move(req),
            [](const command_call_ptr& c, const macro_edit_outcome&) {
              c->ok({{"success", true}});
            });
}

void rename_page(const command_call_ptr& call) {
  const int page = static_cast<int>(call->integer("page"));
  call->ask(call->dir().get<macros_actor>(), macro_page_rename{page, call->text("name")},
            [page](const command_call_ptr& c, const std::string& stored) {
              c->ok({{"success", true}, {"page", page}, {"name", stored}});
            });
}

}  // namespace

std::vector<command> macros_commands() {
  auto page_or_current = optional(page_param());
  page_or_current.null_is_absent = true;
  page_or_current.description = "The macro page, 0-3 (absent or null: the current page)";
  param macro_object = commands::object("macro", "A Macro object of any kind but command");
  macro_object.read = read_macro;
  param page_name =
      commands::text("name", 4 * macros::max_page_name_chars, "The page's name, 1-32 characters");
  page_name.read = read_page_name;
  return {
      {"macro.trigger",
       "Runs the macro in a slot, as its button does",
       {slot_param(), page_or_current,
        optional(commands::choice("phase", {"press", "release"},
                                  "The button going down or up (absent: a press that runs the "
                                  "macro once; a hold macro needs it)"))},
       commands::permission::control,
       macros_missing,
       trigger},
      {"macro.set",
       "Puts a macro into a slot",
       {page_param(), slot_param(), macro_object},
       commands::permission::control,
       macros_missing,
       set_slot},
      {"macro.clear",
       "Empties a slot",
       {page_param(), slot_param()},
       commands::permission::control,
       macros_missing,
       clear_slot},
      {"macro.rename_page",
       "Renames a macro page",
       {page_param(), page_name},
       commands::permission::control,
       macros_missing,
       rename_page},
  };
}

}  // namespace mixerd
