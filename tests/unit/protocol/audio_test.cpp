#include "protocol/audio.hpp"

#include <doctest/doctest.h>

#include <string>
#include <utility>

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

namespace {

audio::app_identity stream(std::string name, std::string binary, std::string id = {},
                           std::string flatpak_id = {}) {
  return {std::move(binary), std::move(name), std::move(id), std::move(flatpak_id)};
}

const audio::alias_list no_aliases;

}  // namespace

TEST_CASE("an app assignment covers streams by application name or binary") {
  assignment a{assignment_type::app, {"Firefox.exe", "vlc"}};
  CHECK(audio::covers(a, stream("Firefox", "firefox-esr"), no_aliases));
  CHECK(audio::covers(a, stream("VLC media player", "vlc"), no_aliases));
  CHECK_FALSE(audio::covers(a, stream("Chromium", "chromium"), no_aliases));
  CHECK_FALSE(audio::covers(a, stream("", ""), no_aliases));
  CHECK_FALSE(audio::covers(assignment{assignment_type::system_default_output, {}},
                            stream("x", "x"), no_aliases));
  CHECK_FALSE(audio::covers(assignment{}, stream("vlc", "vlc"), no_aliases));
}

TEST_CASE("a Flatpak app is matched by its app id, and by application.id") {
  auto flatpak = stream("Discord", "", "", "com.discordapp.Discord");
  CHECK(audio::matched_field("com.discordapp.Discord", flatpak, no_aliases) == "flatpak_id");
  CHECK(audio::matched_field("COM.DISCORDAPP.DISCORD", flatpak, no_aliases) == "flatpak_id");
  auto with_id = stream("Music", "", "org.gnome.Music");
  CHECK(audio::matched_field("org.gnome.Music", with_id, no_aliases) == "application_id");
  CHECK(audio::session_name(flatpak) == "com.discordapp.Discord");
  CHECK(audio::session_name(stream("Discord", "Discord", "", "com.discordapp.Discord")) ==
        "com.discordapp.Discord");
  CHECK(audio::session_name(with_id) == "org.gnome.Music");
}

TEST_CASE("an Electron app is told apart from Chromium by its binary") {
  auto electron = stream("Chromium", "discord");
  auto browser = stream("Chromium", "chromium");
  assignment chromium{assignment_type::app, {"chromium"}};
  assignment discord{assignment_type::app, {"discord"}};
  CHECK_FALSE(audio::covers(chromium, electron, no_aliases));
  CHECK(audio::covers(chromium, browser, no_aliases));
  CHECK(audio::covers(discord, electron, no_aliases));
  // Without a binary the name is all there is.
  CHECK(audio::covers(chromium, stream("Chromium", ""), no_aliases));
  // Other names count with a binary present.
  CHECK(audio::matched_field("Firefox", stream("Firefox", "firefox-esr"), no_aliases) ==
        "application_name");
}

TEST_CASE("an alias matches what its listed names match") {
  audio::alias_list aliases{{"Discord", {"WEBRTC VoiceEngine", "com.discordapp.Discord"}}};
  assignment discord{assignment_type::app, {"discord"}};
  CHECK(audio::covers(discord, stream("WEBRTC VoiceEngine", ""), aliases));
  CHECK(audio::covers(discord, stream("x", "", "", "com.discordapp.Discord"), aliases));
  CHECK_FALSE(audio::covers(discord, stream("WEBRTC VoiceEngine", ""), no_aliases));
  CHECK_FALSE(audio::covers(assignment{assignment_type::app, {"spotify"}},
                            stream("WEBRTC VoiceEngine", ""), aliases));
}

TEST_CASE("an unmapped assignment excludes its names, aliases included") {
  assignment rest{assignment_type::unmapped, {}, {"spotify", "discord"}};
  audio::alias_list aliases{{"discord", {"WEBRTC VoiceEngine"}}};
  CHECK(audio::excludes(rest, stream("Spotify", "spotify"), aliases));
  CHECK(audio::excludes(rest, stream("WEBRTC VoiceEngine", ""), aliases));
  CHECK_FALSE(audio::excludes(rest, stream("Firefox", "firefox"), aliases));
  CHECK_FALSE(audio::covers(rest, stream("Firefox", "firefox"), aliases));
}

TEST_CASE("curves: linear, fine, points, and the range") {
  audio::volume_curve linear;
  CHECK(audio::applied_percent(linear, 37) == doctest::Approx(37));
  audio::volume_curve fine{audio::curve_kind::fine, {}, 0, 100};
  CHECK(audio::applied_percent(fine, 10) == doctest::Approx(1));
  CHECK(audio::applied_percent(fine, 50) == doctest::Approx(25));
  CHECK(audio::applied_percent(fine, 100) == doctest::Approx(100));
  audio::volume_curve points{audio::curve_kind::points, {{20, 10}, {60, 30}, {80, 90}}, 0, 100};
  CHECK(audio::applied_percent(points, 0) == doctest::Approx(10));   // flat before the first
  CHECK(audio::applied_percent(points, 40) == doctest::Approx(20));  // halfway
  CHECK(audio::applied_percent(points, 70) == doctest::Approx(60));
  CHECK(audio::applied_percent(points, 100) == doctest::Approx(90));  // flat after the last
  audio::volume_curve range{audio::curve_kind::linear, {}, 20, 60};
  CHECK(audio::applied_percent(range, 0) == doctest::Approx(20));
  CHECK(audio::applied_percent(range, 50) == doctest::Approx(40));
  CHECK(audio::applied_percent(range, 100) == doctest::Approx(60));
  // Fractions of a percent reach the server.
  CHECK(audio::raw_volume(audio::applied_percent(fine, 5)) == 164);  // 0.25 % of 65536
}

TEST_CASE("the slider value of an applied volume is the nearest one") {
  audio::volume_curve fine{audio::curve_kind::fine, {}, 0, 100};
  CHECK(audio::slider_value_for(fine, 25) == 50);
  CHECK(audio::slider_value_for(fine, 1) == 10);
  audio::volume_curve range{audio::curve_kind::linear, {}, 20, 60};
  CHECK(audio::slider_value_for(range, 40) == 50);
  CHECK(audio::slider_value_for(range, 5) == 0);  // below the range: its bottom
  for (int v = 0; v <= 100; ++v)
    CHECK(audio::slider_value_for(audio::volume_curve{}, v) == v);
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
  CHECK(audio::session_name(stream("Spotify", "spotify")) == "spotify");
  CHECK(audio::session_name(stream("Firefox", "")) == "Firefox");
}
