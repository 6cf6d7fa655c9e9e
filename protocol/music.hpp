// The music capability: MPRIS players on the session D-Bus (contract, "Music"). The bus
// connection (actors/music/mpris_bus.hpp) reads each player's properties into the plain values
// below; this file turns them into the Music state, chooses the active player and builds the
// bodies. No I/O. Decisions: protocol/README.md, "Music".
#pragma once

#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "protocol/events.hpp"
#include "protocol/stream.hpp"
#include "protocol/toast.hpp"
#include "protocol/types.hpp"

namespace mixerd {

// ---- Events (protocol/events.hpp) ---------------------------------------------------------

// The active music player's state changed (none: no player; null on the wire).
struct music_change {
  static constexpr std::string_view wire_name = "music_change";
  static constexpr bool for_clients = true;
  std::optional<now_playing> state;
  nlohmann::json to_json() const;
};

// One value of a player's Metadata (a{sv}) as the bus carried it. Strings and object paths are
// strings; every integer type is widened; values of other types are left out.
using mpris_value =
    std::variant<std::string, std::vector<std::string>, std::int64_t, std::uint64_t, double, bool>;
using mpris_metadata = std::map<std::string, mpris_value>;

// ---- io thread -> music actor (actors/music/mpris_bus.hpp) ------------------------------------
// Besides these: (opened_atom, gen) once the bus answered ListNames, and (closed_atom, gen,
// std::string reason) exactly once when the connection could not be made or was lost.

// What a player's properties say now. The first one of a player carries all three (both GetAll
// calls); a PropertiesChanged signal carries what changed.
struct mpris_player_update {
  std::uint64_t gen = 0;
  std::string name;  // the well-known bus name, "org.mpris.MediaPlayer2.mpv"
  std::optional<std::string> identity;
  std::optional<std::string> status;  // PlaybackStatus as the player sent it
  std::optional<mpris_metadata> metadata;
};
// The player's bus name has no owner any more (it quit or crashed).
struct mpris_player_gone {
  std::uint64_t gen = 0;
  std::string name;
};
// The outcome of a method call on a player (error empty: it answered without an error).
struct mpris_call_done {
  std::uint64_t gen = 0;
  std::uint64_t id = 0;
  std::string error;
};

// ---- the music actor's interface --------------------------------------------------------------

// -> media_outcome. A `media` macro: `action` is one of play_pause play pause next previous stop.
struct media_command {
  std::string action;
};
struct media_outcome {
  bool ok = false;
  std::string error;  // a sentence for macro_executed when not ok
};

// What the music actor publishes after every change: GET /api/music, initial_state.music, and
// (issue 13) the plugins' get_music_state() and on_music_track_change.
struct music_view {
  bool connected = false;            // the session bus answered and has not been lost since
  std::optional<now_playing> state;  // the active player's; none: no player
  // How many track changes the active player has had (music::is_track_change): a reader that
  // remembers the count sees whether the track changed since it last looked.
  std::uint64_t track_changes = 0;
};

using music_actor = caf::typed_actor<caf::replies_to<media_command>::with<media_outcome>>;

bool operator==(const now_playing& a, const now_playing& b);
inline bool operator!=(const now_playing& a, const now_playing& b) {
  return !(a == b);
}

namespace music {

inline constexpr std::string_view player_prefix = "org.mpris.MediaPlayer2.";
inline constexpr std::string_view object_path = "/org/mpris/MediaPlayer2";
inline constexpr std::string_view root_interface = "org.mpris.MediaPlayer2";
inline constexpr std::string_view player_interface = "org.mpris.MediaPlayer2.Player";

// The texts of a failed media macro.
inline constexpr std::string_view no_bus_error = "Music not available: no session D-Bus";
inline constexpr std::string_view no_player_error = "No music player running";

// At most this many players are followed (more are ignored and logged).
inline constexpr std::size_t max_players = 32;
// At most this many media commands wait for a player's answer; one more fails at once.
inline constexpr std::size_t max_pending_commands = 16;
// Longest text taken from a player (each Metadata text, the joined artists, the Identity, an
// error message), in bytes: longer ones are cut on a character boundary.
inline constexpr std::size_t max_text_bytes = 1024;

// A text from a player as mixerd keeps it: cut to max_text_bytes, control characters as spaces
// (it reaches the log, the JSON bodies and the device).
std::string clean_text(std::string_view text);

// True for a bus name an MPRIS player owns ("org.mpris.MediaPlayer2.<something>").
bool is_player_name(std::string_view bus_name);

// PlaybackStatus as the contract spells it; anything else a player sends counts as "Stopped".
std::string status_of(std::string_view playback_status);

// The track fields of a Music state from a Metadata map: xesam:title, xesam:artist (a list
// joined with ", "; a single string is taken as it is), xesam:album, mpris:artUrl, mpris:length
// (microseconds, any integer type or a double; negative counts as 0) in milliseconds. Texts go
// through clean_text.
struct track {
  std::string title;
  std::string artist;
  std::string album;
  std::string art_url;
  std::int64_t length_ms = 0;
};
track track_of(const mpris_metadata& metadata);

// A player as the music actor follows it.
struct player {
  std::string name;      // well-known bus name
  std::string identity;  // empty: not known (its bus name stands in)
  std::string status = "Stopped";
  track current;
  std::uint64_t found = 0;    // order of discovery (1, 2, ...)
  std::uint64_t started = 0;  // when it last started playing, in the same order; 0: never
  bool ready = false;         // its properties have been read once
};

// The Music state of a player. `player` is its Identity, else its bus name without the prefix.
now_playing state_of(const player& p);

// The active player (contract): among the ready players, the one that most recently started
// playing, else the first found. Null when there is none.
const player* active_of(const std::map<std::string, player>& players);

// The MPRIS method of a media action (play_pause -> PlayPause, ...); none for anything else.
std::optional<std::string_view> method_of(std::string_view action);

// A track change: the state after has a title and its player, title, artist or album differ
// from the state before (none before counts as different).
bool is_track_change(const std::optional<now_playing>& before,
                     const std::optional<now_playing>& after);

// The `music` handler's toast for the state's track: the title (at most 30 characters) as the
// message, the artist (at most 40) as the subtitle, icon "play".
toast_content toast_of(const now_playing& state);

// GET /api/music and initial_state.music: {"connected", "state": <Music state or null>}.
nlohmann::json to_json(const music_view& view);

}  // namespace music

namespace macros {
struct kind;
}  // namespace macros

// The music capability's macro kind: media.
std::vector<macros::kind> music_macro_kinds();

// Its toast handler: a track change.
toast_handler_list music_toast_handlers();

}  // namespace mixerd

// The music capability's CAF type-ID block, chained after the stream block (docs/architecture.md,
// "Type IDs"). Its values never leave the process: no serialization needed.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mpris_player_update)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mpris_player_gone)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::mpris_call_done)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::media_command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mixerd::media_outcome)

CAF_BEGIN_TYPE_ID_BLOCK(mixerd_music, caf::id_block::mixerd_stream::end)
CAF_ADD_TYPE_ID(mixerd_music, (mixerd::mpris_player_update))
CAF_ADD_TYPE_ID(mixerd_music, (mixerd::mpris_player_gone))
CAF_ADD_TYPE_ID(mixerd_music, (mixerd::mpris_call_done))
CAF_ADD_TYPE_ID(mixerd_music, (mixerd::media_command))
CAF_ADD_TYPE_ID(mixerd_music, (mixerd::media_outcome))
CAF_END_TYPE_ID_BLOCK(mixerd_music)
