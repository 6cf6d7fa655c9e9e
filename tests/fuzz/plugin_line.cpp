// Fuzz target: a line from a plugin process (plugins::decode_plugin_line, the plugin bridge's
// line decoder) and the same bytes as a plugin's manifest.json (plugins::parse_manifest). The
// input is the line's text. Checked:
// - decoding never throws and never overflows the stack (deep JSON is a bad line); a bad line
//   has a reason;
// - a decoded line reads back as itself when written again as the README shows it;
// - the host's answer to a call (a reply with the call's arguments as its result, and an error
//   reply) is one line of JSON that reads back;
// - a manifest that may run has a valid id, entry point and class, and its schema's defaults
//   pass check_setting; one that may not has a reason.
#include <string>

#include "protocol/json.hpp"
#include "protocol/plugins.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using nlohmann::json;
using namespace mixerd;

std::string again(const json& line) {
  return line.dump(-1, ' ', false, json::error_handler_t::replace);
}

void check_line(std::string_view text, const std::string& context) {
  auto line = plugins::decode_plugin_line(text);
  if (auto* bad = std::get_if<plugins::line_bad>(&line)) {
    FUZZ_CHECK(!bad->reason.empty(), context);
    return;
  }
  json written;
  if (auto* ready = std::get_if<plugins::line_ready>(&line)) {
    written = {{"type", "ready"}, {"hooks", ready->hooks}};
    auto back = plugins::decode_plugin_line(again(written));
    FUZZ_CHECK(std::holds_alternative<plugins::line_ready>(back), context);
    FUZZ_CHECK(std::get<plugins::line_ready>(back).hooks == ready->hooks, context);
  } else if (auto* fatal = std::get_if<plugins::line_fatal>(&line)) {
    written = {{"type", "fatal"}, {"error", fatal->error}};
    auto back = plugins::decode_plugin_line(again(written));
    FUZZ_CHECK(std::holds_alternative<plugins::line_fatal>(back), context);
  } else if (auto* done = std::get_if<plugins::line_hook_done>(&line)) {
    written = {{"type", "hook_done"}, {"id", done->id}, {"result", done->result}};
    if (done->error) written["error"] = *done->error;
    auto back = plugins::decode_plugin_line(again(written));
    FUZZ_CHECK(std::holds_alternative<plugins::line_hook_done>(back), context);
    FUZZ_CHECK(std::get<plugins::line_hook_done>(back).id == done->id, context);
    FUZZ_CHECK(std::get<plugins::line_hook_done>(back).error == done->error, context);
  } else if (auto* call = std::get_if<plugins::line_call>(&line)) {
    FUZZ_CHECK(call->args.is_object() && !call->method.empty(), context);
    written = {{"type", "call"}, {"method", call->method}, {"args", call->args}};
    if (call->id) written["id"] = *call->id;
    auto back = plugins::decode_plugin_line(again(written));
    FUZZ_CHECK(std::holds_alternative<plugins::line_call>(back), context);
    FUZZ_CHECK(std::get<plugins::line_call>(back).id == call->id, context);
    FUZZ_CHECK(std::get<plugins::line_call>(back).method == call->method, context);
    // The host's answers are single lines that read back.
    for (const auto& reply :
         {plugins::encode_reply(call->id.value_or(0), call->args),
          plugins::encode_reply_error(call->id.value_or(0), "ValueError", call->method)}) {
      FUZZ_CHECK(reply.find('\n') == std::string::npos, context);
      FUZZ_CHECK(!json::parse(reply, nullptr, false).is_discarded(), context + " -> " + reply);
    }
    std::string error = plugins::check_setting({}, call->method, call->args);
    (void)error;
  }
}

void check_manifest(std::string_view text, const std::string& context) {
  auto c = plugins::parse_manifest(text, "folder");
  FUZZ_CHECK(!c.m.id.empty(), context);
  if (c.state != plugin_state::stopped) {
    FUZZ_CHECK(c.state == plugin_state::invalid || c.state == plugin_state::incompatible, context);
    FUZZ_CHECK(!c.reason.empty(), context);
    return;
  }
  FUZZ_CHECK(c.reason.empty(), context);
  FUZZ_CHECK(plugins::valid_plugin_id(c.m.id), context);
  FUZZ_CHECK(plugins::valid_entry_point(c.m.entry_point), context);
  FUZZ_CHECK(plugins::valid_class_name(c.m.main_class), context);
  for (const auto& [key, spec] : c.m.schema)
    if (!spec.default_value.is_null())
      FUZZ_CHECK(plugins::check_setting(c.m.schema, key, spec.default_value).empty(),
                 context + " -> " + key);
  auto init = plugins::encode_init(c.m, "/folder");
  FUZZ_CHECK(init.find('\n') == std::string::npos, context);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const std::string context(text.substr(0, 4096));
  check_line(text, context);
  check_manifest(text, context);
  return 0;
}
