// Fuzz target: a Macro object as the API and settings.json give it (macros::parse_macro, from
// either origin) and the Macro page set as settings.json and profiles keep it
// (macros::validate_settings, pages_from_settings, parse_profile_macros, settings_schema). The
// input is JSON text. Checked:
// - an accepted macro is stored in a form that reads back as itself (no field changes on a
//   second reading), with its kind in "type", a name and an icon the device can show, and an
//   url the HTTP client can split;
// - from the API no command macro is ever accepted, inside a sequence neither, and only a
//   command makes a refusal a 403; every refusal is a sentence;
// - a valid page set reads back as itself through to_json, has 4 pages of 9 slots, and
//   settings_schema::validate reports the same key as validate_settings.
#include <string>

#include "protocol/json.hpp"
#include "protocol/macro_kinds.hpp"
#include "protocol/macros.hpp"
#include "protocol/settings_schema.hpp"
#include "protocol/uri.hpp"
#include "protocol/validation.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using nlohmann::json;
using namespace mixerd;

bool holds_command(const json& fields) {
  if (fields.value("type", "") == "command") return true;
  if (auto steps = fields.find("steps"); steps != fields.end())
    for (const auto& step : *steps)
      if (step.value("type", "") == "command") return true;
  return false;
}

void check_device_text(const json& fields, const std::string& context) {
  for (const char* key : {"name", "icon"}) {
    const auto& text = fields.at(key).get_ref<const std::string&>();
    FUZZ_CHECK(text.size() <= 64, context);
    for (char c : text)
      FUZZ_CHECK(!validation::is_control_byte(c), context);
  }
}

void check_macro(const json& input, macros::origin from, const std::string& context) {
  std::string error;
  bool forbidden = false;
  auto m = macros::parse_macro(input, from, error, &forbidden);
  if (!m) {
    FUZZ_CHECK(!error.empty(), context);
    if (forbidden) {
      FUZZ_CHECK(from == macros::origin::api, context);
      FUZZ_CHECK(error.find("command macro") != std::string::npos, context + " -> " + error);
    }
    return;
  }
  FUZZ_CHECK(!forbidden, context);
  FUZZ_CHECK(m->fields.is_object(), context);
  FUZZ_CHECK(macros::find_kind(m->fields.at("type").get<std::string>()) != nullptr, context);
  check_device_text(m->fields, context);
  if (from == macros::origin::api) FUZZ_CHECK(!holds_command(m->fields), context);
  if (m->type() == "http")
    FUZZ_CHECK(uri::split_url(m->fields.at("url").get<std::string>()), context);
  if (m->type() == "sequence") {
    const auto& steps = m->fields.at("steps");
    FUZZ_CHECK(!steps.empty() && steps.size() <= macros::max_sequence_steps, context);
  }
  // The stored form reads back as itself.
  std::string again_error;
  auto again = macros::parse_macro(m->fields, from, again_error);
  FUZZ_CHECK(again, context + " -> " + m->fields.dump() + " -> " + again_error);
  FUZZ_CHECK(again->fields == m->fields, context + " -> " + m->fields.dump());
}

void check_set(const json& input, const std::string& context) {
  std::string key;
  std::string error;
  const bool valid = macros::validate_settings(input, key, error);
  if (!valid) FUZZ_CHECK(key.rfind("macros", 0) == 0 && !error.empty(), context);
  const json settings = {{"macros", input}};
  auto problem = settings_schema::validate(settings);
  if (valid) {
    FUZZ_CHECK(!problem, context + " -> " + (problem ? problem->key : ""));
  } else {
    FUZZ_CHECK(problem && problem->key == key && problem->message == error, context);
    return;
  }
  auto set = macros::pages_from_settings(settings);
  auto written = macros::to_json(set);
  for (int p = 0; p < limits::macro_page_count; ++p) {
    FUZZ_CHECK(written["pages"][std::to_string(p)].size() == limits::macro_count, context);
    FUZZ_CHECK(!set.page_names[p].empty(), context);
  }
  FUZZ_CHECK(macros::validate_settings(written, key, error), context + " -> " + error);
  FUZZ_CHECK(macros::to_json(macros::pages_from_settings({{"macros", written}})) == written,
             context);
  auto profile = macros::parse_profile_macros(macros::profile_macros_to_json(set), error);
  FUZZ_CHECK(profile, context + " -> " + error);
  FUZZ_CHECK(profile->page_names == set.page_names, context);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const auto input = nlohmann::json::parse(text, nullptr, false);
  if (input.is_discarded()) return 0;
  const std::string context(text);
  // Deep values are refused or skipped without a copy (this must not overflow the stack).
  std::string error;
  macros::parse_macro(input, macros::origin::api, error);
  std::string key;
  macros::validate_settings(input, key, error);
  // The daemon copies and encodes settings only once settings_schema has checked their
  // nesting; this target does the same before it copies the input.
  if (mixerd::json::nested_deeper_than(input, 60)) return 0;

  check_macro(input, macros::origin::api, context);
  check_macro(input, macros::origin::settings, context);
  check_set(input, context);
  return 0;
}
