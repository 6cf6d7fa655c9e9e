"""The example plugins in plugins/examples load under the runner and do what their docs say,
against a scripted daemon (the integration tests run them against the real one)."""
import json

import pytest

from conftest import EXAMPLES_DIR, fake_daemon

REQUIRED = ("id", "name", "version", "api_version", "type", "entry_point", "main_class")


@pytest.mark.parametrize("folder", sorted(path.name for path in EXAMPLES_DIR.iterdir()
                                          if (path / "manifest.json").exists()))
def test_every_example_has_a_complete_manifest(folder):
    manifest = json.loads((EXAMPLES_DIR / folder / "manifest.json").read_text())
    assert all(isinstance(manifest.get(field), str) for field in REQUIRED), manifest
    assert manifest["type"] == "executable" and manifest["api_version"].split(".")[0] == "1"
    assert (EXAMPLES_DIR / folder / manifest["entry_point"]).is_file()
    for key, spec in manifest.get("settings_schema", {}).items():
        assert spec["type"] in ("string", "integer", "number", "boolean"), key


def test_slider_alerts_alerts_once_per_rise_past_the_threshold(example_host):
    host, manifest, ready = example_host("slider_alerts")
    assert set(ready["hooks"]) == {"on_load", "on_slider_change", "on_encoder_turn",
                                   "on_encoder_press", "on_settings_change"}
    replies, daemon = fake_daemon(manifest, sliders=(95, 10, 10, 10))
    assert "error" not in host.run_hook("on_load", replies=replies)
    for index, value in ((1, 96), (2, 89), (2, 90), (2, 99), (2, 40), (2, 91)):
        assert "error" not in host.run_hook("on_slider_change", index, value, replies=replies)
    # Slider 1 was already loud at start; slider 2 rose twice.
    assert daemon.notifications == [("Slider 2 loud", "90 is over 90"),
                                    ("Slider 2 loud", "91 is over 90")]
    daemon.settings["threshold"] = 50
    host.run_hook("on_settings_change", "threshold", 50, replies=replies)
    host.run_hook("on_slider_change", 3, 60, replies=replies)
    assert daemon.notifications[-1] == ("Slider 3 loud", "60 is over 50")
    host.logs.clear()
    for direction in (2, -1, 3):
        host.run_hook("on_encoder_turn", direction, replies=replies)
    host.run_hook("on_encoder_press", "press", replies=replies)
    assert host.logs[-1] == {"message": "encoder pressed after +4 detents", "level": "info"}
    assert host.logs[0] == {"message": "encoder turned +2 (total +2)", "level": "debug"}


def test_toast_macro_shows_its_text_and_counts_runs(example_host):
    host, manifest, ready = example_host("toast_macro")
    replies, daemon = fake_daemon(manifest, settings={"runs": 4})
    host.run_hook("on_load", replies=replies)
    assert daemon.macro_types == ["toast_text"]
    macro = {"type": "plugin", "plugin_type": "toast_text", "name": "Hello",
             "title": "Break time", "text": "Stand up and stretch"}
    assert host.run_hook("macro_type", "toast_text", macro, replies=replies)["result"] is True
    untitled = {"type": "plugin", "plugin_type": "toast_text", "name": "N" * 40, "text": "x" * 50}
    assert host.run_hook("macro_type", "toast_text", untitled, replies=replies)["result"] is True
    assert daemon.notifications == [("Break time", "Stand up and stretch"), ("N" * 30, "x" * 40)]
    assert daemon.settings["runs"] == 6


def test_now_playing_shows_title_and_artist_within_the_toast_limits(example_host):
    host, manifest, ready = example_host("now_playing")
    assert ready["hooks"] == ["on_music_track_change"]
    replies, daemon = fake_daemon(manifest)
    track = {"player": "mpv", "status": "Playing", "title": "First Tone",
             "artist": "Alice Example", "album": "Test Tones", "art_url": "", "length_ms": 600000}
    host.run_hook("on_music_track_change", track, replies=replies)
    daemon.settings["show_album"] = True
    long_track = dict(track, title="T" * 31, artist="A" * 30)
    host.run_hook("on_music_track_change", long_track, replies=replies)
    assert daemon.notifications == [("First Tone", "Alice Example"),
                                    ("T" * 29 + "…", "A" * 30 + " - Test T…")]
    assert all(len(title) <= 30 and len(text) <= 40 for title, text in daemon.notifications)
