#include "protocol/music.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "protocol/device_codec.hpp"
#include "protocol/json.hpp"
#include "protocol/limits.hpp"
#include "protocol/macro_kinds.hpp"
#include "protocol/validation.hpp"

namespace mixerd {

// ---- Events ------------------------------------------------------------------------------

nlohmann::json music_change::to_json() const {
  return state ? json::to_json(*state) : nlohmann::json(nullptr);
}

bool operator==(const now_playing& a, const now_playing& b) {
  return a.player == b.player && a.status == b.status && a.title == b.title &&
         a.artist == b.artist && a.album == b.album && a.art_url == b.art_url &&
         a.length_ms == b.length_ms;
}

namespace music {

namespace {

const std::string* string_at(const mpris_metadata& metadata, const char* key) {
  auto it = metadata.find(key);
  if (it == metadata.end()) return nullptr;
  return std::get_if<std::string>(&it->second);
}

std::string text_at(const mpris_metadata& metadata, const char* key) {
  const auto* s = string_at(metadata, key);
  return s ? clean_text(*s) : std::string();
}

// xesam:artist is a list of strings; some players send one string.
std::string artists_at(const mpris_metadata& metadata, const char* key) {
  auto it = metadata.find(key);
  if (it == metadata.end()) return {};
  if (const auto* one = std::get_if<std::string>(&it->second)) return clean_text(*one);
  const auto* list = std::get_if<std::vector<std::string>>(&it->second);
  if (!list) return {};
  std::string out;
  for (const auto& artist : *list) {
    if (artist.empty()) continue;
    if (!out.empty()) out += ", ";
    out += artist;
    if (out.size() > max_text_bytes) break;
  }
  return clean_text(out);
}

// mpris:length is an int64 of microseconds; players also send uint64, int32 or a double.
std::int64_t length_ms_at(const mpris_metadata& metadata) {
  auto it = metadata.find("mpris:length");
  if (it == metadata.end()) return 0;
  constexpr std::int64_t us_per_ms = 1000;
  if (const auto* i = std::get_if<std::int64_t>(&it->second))
    return std::max<std::int64_t>(0, *i) / us_per_ms;
  if (const auto* u = std::get_if<std::uint64_t>(&it->second))
    return static_cast<std::int64_t>(std::min<std::uint64_t>(*u, INT64_MAX) / us_per_ms);
  if (const auto* d = std::get_if<double>(&it->second)) {
    // Also refuses NaN (every comparison with it is false).
    if (!(*d > 0) || *d > 9.0e18) return 0;
    return static_cast<std::int64_t>(*d) / us_per_ms;
  }
  return 0;
}

// At most `max_chars` code points of UTF-8 text (a cut never splits a character).
std::string first_chars(const std::string& text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if ((byte & 0xC0) == 0x80) continue;  // a continuation byte
    if (chars == max_chars) return text.substr(0, i);
    ++chars;
  }
  return text;
}

}  // namespace

std::string clean_text(std::string_view text) {
  std::string out(protocol::utf8_prefix(text, max_text_bytes));
  for (auto& c : out)
    if (validation::is_control_byte(c)) c = ' ';
  return out;
}

bool is_player_name(std::string_view bus_name) {
  return bus_name.size() > player_prefix.size() &&
         bus_name.substr(0, player_prefix.size()) == player_prefix;
}

std::string status_of(std::string_view playback_status) {
  if (playback_status == "Playing" || playback_status == "Paused")
    return std::string(playback_status);
  return "Stopped";
}

track track_of(const mpris_metadata& metadata) {
  track t;
  t.title = text_at(metadata, "xesam:title");
  t.artist = artists_at(metadata, "xesam:artist");
  t.album = text_at(metadata, "xesam:album");
  t.art_url = text_at(metadata, "mpris:artUrl");
  t.length_ms = length_ms_at(metadata);
  return t;
}

now_playing state_of(const player& p) {
  now_playing s;
  s.player = !p.identity.empty()      ? clean_text(p.identity)
             : is_player_name(p.name) ? p.name.substr(player_prefix.size())
                                      : p.name;
  s.status = p.status;
  s.title = p.current.title;
  s.artist = p.current.artist;
  s.album = p.current.album;
  s.art_url = p.current.art_url;
  s.length_ms = p.current.length_ms;
  return s;
}

const player* active_of(const std::map<std::string, player>& players) {
  const player* latest_started = nullptr;
  const player* first_found = nullptr;
  for (const auto& [name, p] : players) {
    if (!p.ready) continue;
    if (p.started > 0 && (!latest_started || p.started > latest_started->started))
      latest_started = &p;
    if (!first_found || p.found < first_found->found) first_found = &p;
  }
  return latest_started ? latest_started : first_found;
}

std::optional<std::string_view> method_of(std::string_view action) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> methods{{
      {"play_pause", "PlayPause"},
      {"play", "Play"},
      {"pause", "Pause"},
      {"next", "Next"},
      {"previous", "Previous"},
      {"stop", "Stop"},
  }};
  for (const auto& [name, method] : methods)
    if (name == action) return method;
  return std::nullopt;
}

bool is_track_change(const std::optional<now_playing>& before,
                     const std::optional<now_playing>& after) {
  if (!after || after->title.empty()) return false;
  if (!before) return true;
  return before->player != after->player || before->title != after->title ||
         before->artist != after->artist || before->album != after->album;
}

toast_content toast_of(const now_playing& state) {
  toast_content toast;
  toast.message = first_chars(state.title, limits::toast_message_max_chars);
  toast.subtitle = first_chars(state.artist, limits::toast_subtitle_max_chars);
  toast.icon = "play";
  return toast;
}

nlohmann::json to_json(const music_view& view) {
  return {{"connected", view.connected},
          {"state", view.state ? json::to_json(*view.state) : nlohmann::json(nullptr)}};
}

}  // namespace music

}  // namespace mixerd

namespace mixerd {

// ---- Macro kind: media, the active player ---------------------------------------------------

std::vector<macros::kind> music_macro_kinds() {
  return {
      {"media", true,
       [](macros::field_reader& r) {
         return r.one_of("action", {"play_pause", "play", "pause", "next", "previous", "stop"},
                         nullptr);
       },
       [](const nlohmann::json& fields) {
         return command_request{"music.control", {{"action", fields.at("action")}}};
       }},
  };
}

}  // namespace mixerd

namespace mixerd {

toast_handler_list music_toast_handlers() {
  return {{"music", "Music", "#1DB954", true, true}};
}

}  // namespace mixerd
