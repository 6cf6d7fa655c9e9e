// JSON mapping of every wire shape of the controller (docs/api.md, and protocol/README.md for the
// decisions). Gateways and the hub encode through these functions only.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/device.hpp"
#include "protocol/events.hpp"
#include "protocol/mixer.hpp"
#include "protocol/types.hpp"

namespace mixerd::json {

using nlohmann::json;

json to_json(const assignment& a);
json slider_to_json(int index, const slider_state& s);  // index 1-4
json sliders_to_json(const mixer_snapshot& m);          // {"sliders": [...]}
json mutes_to_json(const mute_states& m);               // {"individual": [...], "master": b}
json status_to_json(const device_view& d, bool audio_connected);
json volume_to_json(int volume);          // {"volume": v}
json to_json(const smarthome_device& d);  // the Smart-home device
json to_json(const now_playing& m);       // the Music state
json to_json(const plugin_info& p);       // a plugin of GET /api/plugins

// initial_state must hold at least sliders, macros, profiles, status and connected (the
// controller interface). Capabilities contribute their keys; a key of the interface that no
// running capability fills (one left out of the build) gets its empty shape here, as it reads
// when the service is absent, so clients that read it keep working.
void complete_initial_state(json& state);

// True when `root` nests arrays and objects more than `limit` levels deep. Without recursion:
// nlohmann's copy and dump recurse, so a value from a request body or a file nested thousands of
// levels deep is refused before anything copies or encodes it.
bool nested_deeper_than(const json& root, int limit);

// Parses the text of a file, refusing containers nested more than `max_depth` levels deep while
// it reads. nullopt with `error` "not valid JSON: ..." (a number beyond a double included) or
// "nested deeper than N levels".
std::optional<json> parse_depth_limited(std::string_view text, int max_depth, std::string& error);

// Reads an assignment as stored in settings or sent by a client. On failure returns nullopt
// and sets `problem` to a sentence naming the field, e.g. "names must be an array of strings".
std::optional<assignment> assignment_from_json(const json& j, std::string& problem);

}  // namespace mixerd::json
