#include "protocol/json.hpp"

#include "protocol/macros.hpp"
#include "protocol/music.hpp"
#include "protocol/smarthome.hpp"
#include "protocol/stream.hpp"

namespace mixerd {

namespace json {

namespace {

// An assignment's list of application names (`field`: names or exclude).
bool read_app_names(const json& list, const char* field, std::vector<std::string>& out,
                    std::string& problem) {
  if (!list.is_array()) {
    problem = std::string(field) + " must be an array of application names";
    return false;
  }
  for (const auto& name : list) {
    if (!name.is_string() || name.get_ref<const std::string&>().empty()) {
      problem = std::string(field) + " must be an array of non-empty strings";
      return false;
    }
    out.push_back(name.get<std::string>());
  }
  return true;
}

}  // namespace

json to_json(const assignment& a) {
  json j = {{"type", to_string(a.type)}};
  if (a.type == assignment_type::app) j["names"] = a.names;
  if (a.type == assignment_type::unmapped) j["exclude"] = a.exclude;
  return j;
}

json slider_to_json(int index, const slider_state& s) {
  return {{"index", index},
          {"value", s.value},
          {"assignment", to_json(s.assigned)},
          {"label", s.label},
          {"muted", s.muted},
          {"enforce_volume", s.enforce_volume},
          {"position", s.position ? json(*s.position) : json(nullptr)},
          {"pickup", s.pickup}};
}

json sliders_to_json(const mixer_snapshot& m) {
  json list = json::array();
  for (int i = 0; i < limits::slider_count; ++i)
    list.push_back(slider_to_json(i + 1, m.sliders[i]));
  return {{"sliders", std::move(list)}};
}

json mutes_to_json(const mute_states& m) {
  return {{"individual", m.individual}, {"master", m.master}};
}

json status_to_json(const device_view& d, bool audio_connected) {
  return {{"connected", d.connected},
          {"port", d.port},
          {"page", d.page},
          {"firmware_version", d.firmware_version},
          {"app_version", app_version},
          {"audio_connected", audio_connected}};
}

json volume_to_json(int volume) {
  return {{"volume", volume}};
}

json to_json(const smarthome_device& d) {
  return {{"entity_id", d.entity_id},
          {"friendly_name", d.friendly_name},
          {"state", d.state},
          {"brightness", d.brightness ? json(*d.brightness) : json(nullptr)},
          {"domain", d.domain}};
}

json to_json(const now_playing& m) {
  return {{"player", m.player},      {"status", m.status}, {"title", m.title},
          {"artist", m.artist},      {"album", m.album},   {"art_url", m.art_url},
          {"length_ms", m.length_ms}};
}

json to_json(const plugin_info& p) {
  return {{"id", p.id},
          {"name", p.name},
          {"version", p.version},
          {"api_version", p.api_version},
          {"enabled", p.enabled},
          {"state", to_string(p.state)},
          {"restarts", p.restarts},
          {"last_error", p.last_error}};
}

void complete_initial_state(json& state) {
  if (!state.contains("macros")) state["macros"] = macros::to_json(macros::default_pages());
  if (!state.contains("profiles"))
    state["profiles"] = {{"profiles", json::array()}, {"current", ""}};
  // A build without these capabilities reads as one whose services are absent.
  if (!state.contains("smarthome")) state["smarthome"] = smarthome::to_json(smarthome_view{});
  if (!state.contains("stream")) state["stream"] = stream::to_json(stream_view{});
  if (!state.contains("music")) state["music"] = music::to_json(music_view{});
}

bool nested_deeper_than(const json& root, int limit) {
  std::vector<std::pair<const json*, int>> todo{{&root, 1}};
  while (!todo.empty()) {
    const auto [value, depth] = todo.back();
    todo.pop_back();
    if (!value->is_structured()) continue;
    if (depth > limit) return true;
    for (const auto& item : *value)
      todo.emplace_back(&item, depth + 1);
  }
  return false;
}

std::optional<json> parse_depth_limited(std::string_view text, int max_depth, std::string& error) {
  // The depth passed is the number of containers already open around the new one.
  bool too_deep = false;
  auto depth_guard = [&too_deep, max_depth](int depth, json::parse_event_t event, json&) {
    using ev = json::parse_event_t;
    if ((event == ev::object_start || event == ev::array_start) && depth + 1 > max_depth)
      too_deep = true;
    return !too_deep;
  };
  json j;
  try {
    j = json::parse(text.begin(), text.end(), depth_guard);
  } catch (const json::exception& e) {
    // Not only parse_error: a number too large for a double (1e400) is an out_of_range.
    error = std::string("not valid JSON: ") + e.what();
    return std::nullopt;
  }
  if (too_deep) {
    error = "nested deeper than " + std::to_string(max_depth) + " levels";
    return std::nullopt;
  }
  return j;
}

std::optional<assignment> assignment_from_json(const json& j, std::string& problem) {
  if (!j.is_object()) {
    problem = "must be an object with a 'type'";
    return std::nullopt;
  }
  auto type_it = j.find("type");
  if (type_it == j.end()) {
    problem = "type is missing";
    return std::nullopt;
  }
  if (!type_it->is_string()) {
    problem = "type must be a string";
    return std::nullopt;
  }
  auto type = assignment_type_from_string(type_it->get_ref<const std::string&>());
  if (!type) {
    problem =
        "type must be one of unassigned, system_default_output, system_default_input, app, "
        "unmapped";
    return std::nullopt;
  }
  assignment result;
  result.type = *type;
  if (result.type == assignment_type::unmapped) {
    auto exclude_it = j.find("exclude");
    if (exclude_it == j.end()) return result;
    if (!read_app_names(*exclude_it, "exclude", result.exclude, problem)) return std::nullopt;
    return result;
  }
  if (result.type != assignment_type::app) return result;
  auto names_it = j.find("names");
  if (names_it == j.end()) {
    problem = "names must be an array of application names";
    return std::nullopt;
  }
  if (!read_app_names(*names_it, "names", result.names, problem)) return std::nullopt;
  return result;
}

}  // namespace json
}  // namespace mixerd
