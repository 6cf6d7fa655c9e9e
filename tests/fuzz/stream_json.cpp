// Fuzz target: a message from the streaming software (OBS, obs-websocket 5) as the stream actor
// reads it (protocol/stream parse_message), and the responseData / eventData it then interprets
// (scene_list_of, scene_items_of, output_active_of) over the same input.
// Checked: a refused message always says why; an accepted one is of the four kinds mixerd
// handles; a Hello with a challenge gives an Identify that is valid JSON with a 44-character
// authentication; a scene list and an item list keep every entry, items ordered top first;
// the API bodies of what was read encode.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "protocol/json.hpp"
#include "protocol/stream.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace mixerd;
using nlohmann::json;

void check_lists(const json& data, const std::string& context) {
  if (auto list = stream::scene_list_of(data)) {
    FUZZ_CHECK(data.contains("scenes") && list->scenes.size() == data["scenes"].size(), context);
    stream_view view;
    view.connected = true;
    view.scenes = list->scenes;
    view.current = list->current;
    (void)stream::scenes_to_json(view).dump(-1, ' ', false, json::error_handler_t::replace);
  }
  if (auto items = stream::scene_items_of(data)) {
    FUZZ_CHECK(data.contains("sceneItems") && items->size() == data["sceneItems"].size(), context);
    stream_view view;
    view.sources = *items;
    (void)stream::to_json(view).dump(-1, ' ', false, json::error_handler_t::replace);
  }
  (void)stream::output_active_of(data);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const std::string context(text);
  std::string error;
  auto msg = stream::parse_message(text, error);
  if (!msg) {
    FUZZ_CHECK(!error.empty(), context);
    // The same text as responseData of a list request (OBS answers are read the same way).
    auto raw = mixerd::json::parse_depth_limited(text, stream::max_json_depth, error);
    if (raw) check_lists(*raw, context);
    return 0;
  }
  if (auto* h = std::get_if<stream::hello>(&*msg)) {
    auto identify = nlohmann::json::parse(stream::identify_message(*h, "password"), nullptr, false);
    FUZZ_CHECK(!identify.is_discarded() && identify["op"] == 1, context);
    if (h->challenge)
      FUZZ_CHECK(identify["d"]["authentication"].get<std::string>().size() == 44, context);
  } else if (auto* e = std::get_if<stream::event>(&*msg)) {
    FUZZ_CHECK(e->data.is_object(), context);
    check_lists(e->data, context);
  } else if (auto* r = std::get_if<stream::response>(&*msg)) {
    FUZZ_CHECK(r->data.is_object(), context);
    check_lists(r->data, context);
    (void)stream::request_message(r->type, r->id, r->data);
  } else {
    FUZZ_CHECK(std::holds_alternative<stream::identified>(*msg), context);
  }
  return 0;
}
