#include "protocol/music.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "protocol/device_codec.hpp"

using namespace mixerd;
using json_value = nlohmann::json;
using strings = std::vector<std::string>;

namespace {

music::player ready_player(std::string name, std::uint64_t found, std::uint64_t started = 0) {
  music::player p;
  p.name = std::move(name);
  p.found = found;
  p.started = started;
  p.ready = true;
  return p;
}

std::map<std::string, music::player> players_of(std::vector<music::player> list) {
  std::map<std::string, music::player> out;
  for (auto& p : list)
    out.emplace(p.name, p);
  return out;
}

now_playing song(std::string title, std::string artist = "A", std::string player = "mpv") {
  now_playing s;
  s.player = std::move(player);
  s.status = "Playing";
  s.title = std::move(title);
  s.artist = std::move(artist);
  return s;
}

}  // namespace

TEST_CASE("metadata: the contract's fields from MPRIS's keys, artists joined with \", \"") {
  mpris_metadata m{{"mpris:trackid", std::string("/org/mpv/Track/0")},
                   {"xesam:title", std::string("Song")},
                   {"xesam:artist", strings{"Alice", "Bob"}},
                   {"xesam:album", std::string("Record")},
                   {"mpris:artUrl", std::string("file:///cover.png")},
                   {"mpris:length", std::int64_t{215'123'456}}};
  auto t = music::track_of(m);
  CHECK(t.title == "Song");
  CHECK(t.artist == "Alice, Bob");
  CHECK(t.album == "Record");
  CHECK(t.art_url == "file:///cover.png");
  CHECK(t.length_ms == 215'123);
}

TEST_CASE("metadata: what real players send besides the specification is read or ignored") {
  // One artist as a string, empty names skipped, the length as uint64, int or double.
  CHECK(music::track_of({{"xesam:artist", std::string("Solo")}}).artist == "Solo");
  CHECK(music::track_of({{"xesam:artist", strings{"", "X", ""}}}).artist == "X");
  CHECK(music::track_of({{"mpris:length", std::uint64_t{5'000'000}}}).length_ms == 5000);
  CHECK(music::track_of({{"mpris:length", 2.5e6}}).length_ms == 2500);
  // Nonsense becomes the empty value rather than a wrong one.
  CHECK(music::track_of({{"mpris:length", std::int64_t{-7}}}).length_ms == 0);
  CHECK(music::track_of({{"mpris:length", std::numeric_limits<double>::quiet_NaN()}}).length_ms ==
        0);
  CHECK(music::track_of({{"mpris:length", 1e300}}).length_ms == 0);
  CHECK(music::track_of({{"mpris:length", std::uint64_t{UINT64_MAX}}}).length_ms ==
        INT64_MAX / 1000);
  CHECK(music::track_of({{"xesam:title", std::int64_t{3}}}).title.empty());
  CHECK(music::track_of({{"xesam:artist", true}}).artist.empty());
  auto empty = music::track_of({});
  CHECK((empty.title.empty() && empty.artist.empty() && empty.album.empty()));
  CHECK(empty.length_ms == 0);
}

TEST_CASE("texts from a player are bounded and lose their control characters") {
  CHECK(music::clean_text("Line\nbreak\tand\x7f") == "Line break and ");
  const std::string huge = std::string(1023, 'a') + "\xC3\xA9";  // é would cross 1024
  CHECK(music::clean_text(huge) == std::string(1023, 'a'));
  auto t = music::track_of(
      {{"xesam:title", std::string(5000, 't')}, {"xesam:artist", strings(3000, "Some Artist")}});
  CHECK(t.title.size() == music::max_text_bytes);
  CHECK(t.artist.size() == music::max_text_bytes);
  music::player p;
  p.identity = "Evil\r\nPlayer";
  CHECK(music::state_of(p).player == "Evil  Player");
}

TEST_CASE("PlaybackStatus: the three values pass, anything else counts as Stopped") {
  CHECK(music::status_of("Playing") == "Playing");
  CHECK(music::status_of("Paused") == "Paused");
  CHECK(music::status_of("Stopped") == "Stopped");
  CHECK(music::status_of("playing") == "Stopped");
  CHECK(music::status_of("") == "Stopped");
}

TEST_CASE("player names: org.mpris.MediaPlayer2.<something> only") {
  CHECK(music::is_player_name("org.mpris.MediaPlayer2.mpv"));
  CHECK(music::is_player_name("org.mpris.MediaPlayer2.vlc.instance1234"));
  CHECK_FALSE(music::is_player_name("org.mpris.MediaPlayer2."));
  CHECK_FALSE(music::is_player_name("org.mpris.MediaPlayer2"));
  CHECK_FALSE(music::is_player_name("org.freedesktop.DBus"));
  CHECK_FALSE(music::is_player_name(":1.42"));
}

TEST_CASE("the Music state names the player by its Identity, else by its bus name") {
  auto p = ready_player("org.mpris.MediaPlayer2.vlc.instance7", 1);
  p.status = "Paused";
  p.current.title = "T";
  p.current.length_ms = 1000;
  auto s = music::state_of(p);
  CHECK(s.player == "vlc.instance7");
  CHECK(s.status == "Paused");
  CHECK(s.title == "T");
  CHECK(s.length_ms == 1000);
  p.identity = "VLC media player";
  CHECK(music::state_of(p).player == "VLC media player");
}

TEST_CASE("the active player: the one that most recently started playing, else the first found") {
  CHECK(music::active_of({}) == nullptr);
  // None has played: the first found, whatever the names' order.
  auto players = players_of(
      {ready_player("org.mpris.MediaPlayer2.b", 1), ready_player("org.mpris.MediaPlayer2.a", 2)});
  CHECK(music::active_of(players)->name == "org.mpris.MediaPlayer2.b");
  // One started: it, even paused since.
  players["org.mpris.MediaPlayer2.a"].started = 3;
  players["org.mpris.MediaPlayer2.a"].status = "Paused";
  CHECK(music::active_of(players)->name == "org.mpris.MediaPlayer2.a");
  // The other starts later: it takes over.
  players["org.mpris.MediaPlayer2.b"].started = 4;
  CHECK(music::active_of(players)->name == "org.mpris.MediaPlayer2.b");
  // A player whose properties have not been read yet is never chosen.
  players["org.mpris.MediaPlayer2.b"].ready = false;
  CHECK(music::active_of(players)->name == "org.mpris.MediaPlayer2.a");
  players["org.mpris.MediaPlayer2.a"].ready = false;
  CHECK(music::active_of(players) == nullptr);
}

TEST_CASE("media actions map to the MPRIS Player methods, nothing else does") {
  CHECK(music::method_of("play_pause") == "PlayPause");
  CHECK(music::method_of("play") == "Play");
  CHECK(music::method_of("pause") == "Pause");
  CHECK(music::method_of("next") == "Next");
  CHECK(music::method_of("previous") == "Previous");
  CHECK(music::method_of("stop") == "Stop");
  CHECK_FALSE(music::method_of("Next"));
  CHECK_FALSE(music::method_of("quit"));
  CHECK_FALSE(music::method_of(""));
}

TEST_CASE("a track change: another title, artist, album or player, with a title") {
  CHECK(music::is_track_change(std::nullopt, song("One")));
  CHECK(music::is_track_change(song("One"), song("Two")));
  CHECK(music::is_track_change(song("One", "A"), song("One", "B")));
  CHECK(music::is_track_change(song("One", "A", "mpv"), song("One", "A", "VLC")));
  auto other_album = song("One");
  other_album.album = "Live";
  CHECK(music::is_track_change(song("One"), other_album));
  // Status, length or cover alone are no track change; no player or no title are none either.
  auto paused = song("One");
  paused.status = "Paused";
  paused.length_ms = 5;
  paused.art_url = "file:///x.png";
  CHECK_FALSE(music::is_track_change(song("One"), paused));
  CHECK_FALSE(music::is_track_change(song("One"), std::nullopt));
  CHECK_FALSE(music::is_track_change(song("One"), song("")));
  CHECK_FALSE(music::is_track_change(std::nullopt, std::nullopt));
}

TEST_CASE("the music toast: title as the message, artist as the subtitle, icon play, cut to size") {
  auto t = music::toast_of(song("Bohemian Rhapsody", "Queen"));
  CHECK(t.message == "Bohemian Rhapsody");
  CHECK(t.subtitle == "Queen");
  CHECK(t.icon == "play");
  CHECK(t.color.empty());  // the handler's own colour
  // Longer texts are cut by characters, never inside one.
  const std::string long_title = "\xC3\xA9" + std::string(40, 'x');  // é then 40 x
  auto cut = music::toast_of(song(long_title, std::string(50, 'y')));
  CHECK(toast::utf8_length(cut.message) == 30);
  CHECK(cut.message.substr(0, 2) == "\xC3\xA9");
  CHECK(cut.subtitle == std::string(40, 'y'));
  // Commas and backslashes in a title are escaped on the device line.
  auto line = protocol::encode_host_command(toast::to_device_command([] {
    auto toast = music::toast_of(song("Hello, World", "A\\B"));
    toast.color = "1DB954";
    return toast;
  }()));
  CHECK(line.text == "TOAST,3000,play,1DB954,Hello\\, World,A\\\\B");
}

TEST_CASE("GET /api/music: connected and the state, null without a player") {
  music_view none;
  CHECK(music::to_json(none) == json_value{{"connected", false}, {"state", nullptr}});
  music_view playing{true, song("One", "Alice, Bob"), 1};
  playing.state->album = "Record";
  playing.state->length_ms = 1234;
  CHECK(music::to_json(playing) == json_value{{"connected", true},
                                              {"state",
                                               {{"player", "mpv"},
                                                {"status", "Playing"},
                                                {"title", "One"},
                                                {"artist", "Alice, Bob"},
                                                {"album", "Record"},
                                                {"art_url", ""},
                                                {"length_ms", 1234}}}});
}
