#include "protocol/audio.hpp"

#include <doctest/doctest.h>

using mixerd::assignment;
using mixerd::assignment_type;
namespace audio = mixerd::audio;

TEST_CASE("app names match case-insensitively and without a trailing .exe") {
  CHECK(audio::same_app("Spotify.exe", "spotify"));
  CHECK(audio::same_app("spotify", "SPOTIFY.EXE"));
  CHECK(audio::same_app("Discord.EXE", "discord.exe"));
  CHECK_FALSE(audio::same_app("spotify", "spotify-launcher"));
  CHECK_FALSE(audio::same_app("", ""));
  CHECK_FALSE(audio::same_app(".exe", ""));
  CHECK(audio::same_app("exe", "EXE"));  // only a suffix is dropped, never the whole name
}

TEST_CASE("an app assignment covers streams by application name or binary") {
  assignment a{assignment_type::app, {"Firefox.exe", "vlc"}};
  CHECK(audio::covers(a, "Firefox", "firefox-esr"));
  CHECK(audio::covers(a, "VLC media player", "vlc"));
  CHECK_FALSE(audio::covers(a, "Chromium", "chromium"));
  CHECK_FALSE(audio::covers(a, "", ""));
  CHECK_FALSE(audio::covers(assignment{assignment_type::system_default_output, {}}, "x", "x"));
  CHECK_FALSE(audio::covers(assignment{}, "vlc", "vlc"));
}

TEST_CASE("volumes convert between percent and server units") {
  CHECK(audio::raw_volume(100) == audio::volume_norm);
  CHECK(audio::raw_volume(0) == 0);
  CHECK(audio::raw_volume(30) == 19661);  // pactl: "19661 / 30%"
  CHECK(audio::raw_volume(150) == audio::volume_norm);
  CHECK(audio::raw_volume(-5) == 0);
  for (int p = 0; p <= 100; ++p)
    CHECK(audio::percent_volume(audio::raw_volume(p)) == p);
  CHECK(audio::percent_volume(audio::volume_norm * 3 / 2) == 100);  // boosted: clamped
  CHECK(audio::percent_volume(27525) == 42);
}

TEST_CASE("a session is named by its binary, else its application name") {
  CHECK(audio::session_name("Spotify", "spotify") == "spotify");
  CHECK(audio::session_name("Firefox", "") == "Firefox");
}
