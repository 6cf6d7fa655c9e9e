// Fuzz target: a message from Home Assistant's WebSocket API as the smart-home actor reads it
// (protocol/smarthome parse, device_of on the states it carries), and the input as the settings
// object mixerd checks (check_settings, settings_from).
// Checked: parse never throws; a state object becomes a device only with a valid entity id, its
// domain as the id's prefix, brightness 0-100, text without control bytes within its bounds, and
// a device whose JSON (the API's Smart-home device) encodes; settings that check_settings accepts
// give a connection with an http(s) URL whose WebSocket target ends in /api/websocket, or none.
#include <cstdint>
#include <string>

#include "protocol/json.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/validation.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace mixerd;
using nlohmann::json;

bool clean(const std::string& text, std::size_t max_bytes) {
  for (char c : text)
    if (validation::is_control_byte(c)) return false;
  return text.size() <= max_bytes;
}

void check_device(const json& state, const std::string& context) {
  auto device = smarthome::device_of(state);
  if (!device) return;
  FUZZ_CHECK(smarthome::valid_entity_id(device->entity_id), context);
  FUZZ_CHECK(device->entity_id.compare(0, device->domain.size() + 1, device->domain + ".") == 0,
             context);
  FUZZ_CHECK(!device->brightness || (*device->brightness >= 0 && *device->brightness <= 100),
             context);
  FUZZ_CHECK(clean(device->state, smarthome::max_state_bytes), context);
  FUZZ_CHECK(clean(device->friendly_name, smarthome::max_friendly_name_bytes), context);
  FUZZ_CHECK(fuzz::valid_utf8(device->friendly_name) && fuzz::valid_utf8(device->state), context);
  const auto text = mixerd::json::to_json(*device).dump();  // throws on invalid UTF-8
  FUZZ_CHECK(!text.empty(), context);
  auto toast = smarthome::toggle_toast(*device);
  FUZZ_CHECK(fuzz::valid_utf8(toast.message) && clean(toast.message, 30 * 4), context);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const std::string context(text);

  if (auto msg = smarthome::parse(text)) {
    using kind = smarthome::incoming::kind;
    if (msg->type == kind::result && msg->result.is_array())
      for (const auto& state : msg->result)
        check_device(state, context);
    if (msg->type == kind::event && !msg->changed_entity.empty())
      check_device(msg->new_state, context);
    if (msg->type == kind::result && !msg->success) FUZZ_CHECK(!msg->error.empty(), context);
  }

  // The same text as settings.json's content.
  std::string why;
  auto settings = mixerd::json::parse_depth_limited(text, 64, why);
  if (!settings) return 0;
  const auto problem = smarthome::check_settings(*settings);
  const auto config = smarthome::settings_from(*settings);
  if (problem) {
    FUZZ_CHECK(!config, context);
    FUZZ_CHECK(problem->key.rfind("smarthome", 0) == 0 && !problem->message.empty(), context);
    return 0;
  }
  if (!config) return 0;
  FUZZ_CHECK(!config->token.empty(), context);
  const auto& target = config->websocket.target;
  FUZZ_CHECK(target.size() >= 14 && target.compare(target.size() - 14, 14, "/api/websocket") == 0,
             context);
  for (const auto& id : config->entities)
    FUZZ_CHECK(smarthome::valid_entity_id(id), context);
  return 0;
}
