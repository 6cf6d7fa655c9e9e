"""The audio policy's settings on the page (docs/web.md "Settings"): a slider's curve, its points,
its lowest and highest volume, the "Everything else" assignment with its exclusions (in the
Sliders view and in the live page's editor), and the application aliases in Other settings. Each
save is checked through the API and by its effect on real PulseAudio streams; axe-core at phone
and desktop size."""
import json
import os
import sys

import pytest

from browser import element_id, role
from conftest import REPO, SCREENSHOTS, check_serves_the_page, harness, open_live, web_settings

sys.path.insert(0, os.path.join(REPO, "tests", "integration"))
from audio_support import pulse, volume_of  # noqa: E402,F401 (pulse: a fixture)
from test_settings_sections import open_view  # noqa: E402 (the area opened at one tab)

get_json, http, wait_until = harness.get_json, harness.http, harness.wait_until
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
SIZES = [("phone", 390, 844, True), ("desktop", 1280, 800, False)]


def start(daemon_factory, device, data_dir, server):
    """The web settings, with the daemon on the private PulseAudio `server`."""
    harness.write_settings(data_dir, web_settings())
    env = {"PULSE_SERVER": server.env["PULSE_SERVER"]}
    daemon = daemon_factory("--serial", device.path, env=env)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="device link")
    check_serves_the_page(daemon)
    return daemon




def check_axe(browser, what, include=None):
    result = browser.axe(AXE_TAGS, include=include)
    print(f"\n[figures] axe {result['version']} {what}: {result['passes']} rules passed, "
          f"{len(result['violations'])} violated")
    assert result["violations"] == [], json.dumps(result["violations"], indent=1)


def point(row, column):
    """A box of the curve points of slider 2: row and column (0: slider, 1: volume) from 0."""
    return element_id(f"setting-sliders-1-points-{row}-{column}")


def test_a_slider_saves_its_curve_points_and_range_and_the_sound_follows_them(
        browser, daemon_factory, device, data_dir, pulse):  # noqa: F811
    daemon = start(daemon_factory, device, data_dir, pulse)
    spotify = pulse.play("Spotify", "spotify")  # slider 2 ("Music") controls spotify
    open_view(browser, daemon, "Sliders")
    save = role("button", "Save slider 2")
    browser.wait(save, "visible", equals=True)
    curve = element_id("setting-sliders-1-curve")
    points = element_id("setting-sliders-1-points")
    # The points are shown only with the curve "My own points".
    assert browser.read(points, "visible") is False
    browser.select(curve, "points")
    browser.wait(points, "visible", equals=True)
    # It starts from three points; a fourth is added, and the boxes are named for a screen reader.
    assert [browser.read(point(r, c)) for r in range(3) for c in range(2)] == ["0", "0", "50", "20", "100", "100"]
    browser.click(role("button", "Add a point"))
    assert browser.focused()["id"] == "setting-sliders-1-points-3-0"
    assert browser.count(role("spinbutton", "Point 4 Slider")) == 1
    assert browser.count(role("spinbutton", "Point 4 Volume")) == 1
    for (r, c), value in {(1, 1): "10", (2, 0): "75", (2, 1): "40", (3, 0): "100", (3, 1): "100"}.items():
        browser.fill(point(r, c), value)
    browser.fill(element_id("setting-sliders-1-min"), "10")
    browser.fill(element_id("setting-sliders-1-max"), "80")
    browser.click(save)
    browser.wait(element_id("settings-slider-1-status"), "text", equals="Slider 2 saved: the device shows Music.")
    saved = get_json(daemon, "/api/settings")["sliders"][1]
    assert (saved["curve"], saved["points"], saved["min"], saved["max"]) == (
        "points", [[0, 0], [50, 10], [75, 40], [100, 100]], 10, 80), saved
    # Applied live: at 50 the points give 10 %, within 10-80 that is 10 + 70 * 10 % = 17 %.
    assert http("POST", daemon.url("/api/sliders/2"), {"value": 50})[0] == 200
    wait_until(lambda: volume_of(pulse.stream(spotify)) == 17, what="spotify at 17 %")
    assert browser.read(point(2, 0)) == "75"  # the saved rows stay shown
    browser.click(point(1, 0))  # scrolls the points to the middle of the screen
    browser.screenshot(os.path.join(SCREENSHOTS, "settings-slider-curve-phone.png"))

    # Refused by mixerd: points that do not rise. Its sentence is under the points, the row it
    # names is marked and has the focus, and nothing changed.
    before = get_json(daemon, "/api/settings")
    browser.fill(point(2, 0), "40")
    browser.click(save)
    error = element_id("setting-sliders-1-points-error")
    said = browser.wait(error, "text", regex=r"\S")["value"]
    assert said.startswith("sliders[1].points[2] "), said
    assert browser.read(point(2, 0), "attr:aria-invalid") == "true"
    assert browser.focused()["id"] == "setting-sliders-1-points-2-0"
    assert "setting-sliders-1-points-error" in browser.read(point(2, 0), "attr:aria-describedby")
    # An empty box is caught before sending; removing a point keeps the focus in the list.
    browser.fill(point(1, 1), "")
    browser.click(save)
    browser.wait(error, "text", equals="Point 2 needs a slider position and a volume, numbers from 0 to 100.")
    assert browser.focused()["id"] == "setting-sliders-1-points-1-0"
    assert get_json(daemon, "/api/settings") == before
    browser.click(role("button", "Remove point 2"))
    assert browser.focused()["id"] == "setting-sliders-1-points-1-0"
    assert browser.read(point(1, 0)) == "40"
    browser.fill(point(1, 0), "75")
    browser.click(save)
    browser.wait(element_id("settings-slider-1-status"), "text", contains="Slider 2 saved")
    assert get_json(daemon, "/api/settings")["sliders"][1]["points"] == [[0, 0], [75, 40], [100, 100]]
    browser.wait(error, "text", equals="")

    # Back to linear: the points are hidden and kept; the range still applies (10 + 70 * 50 % = 45).
    browser.select(curve, "linear")
    browser.wait(points, "visible", equals=False)
    browser.click(save)
    browser.wait(element_id("settings-slider-1-status"), "text", contains="Slider 2 saved")
    saved = get_json(daemon, "/api/settings")["sliders"][1]
    assert (saved.get("curve", "linear"), saved["points"], saved["min"]) == (
        "linear", [[0, 0], [75, 40], [100, 100]], 10), saved
    wait_until(lambda: volume_of(pulse.stream(spotify)) == 45, what="spotify at 45 %")
    # min above max is refused at the lowest volume, in mixerd's words.
    browser.fill(element_id("setting-sliders-1-min"), "90")
    browser.click(save)
    said = browser.wait(element_id("setting-sliders-1-min-error"), "text", regex=r"\S")["value"]
    assert said.startswith("sliders[1].min "), said
    assert browser.focused()["id"] == "setting-sliders-1-min"


def test_everything_else_with_exclusions_is_saved_from_the_sliders_view(
        browser, daemon_factory, device, data_dir, pulse):  # noqa: F811
    daemon = start(daemon_factory, device, data_dir, pulse)
    mpv = pulse.play("mpv Media Player", "mpv")
    vlc = pulse.play("VLC media player", "vlc")
    open_view(browser, daemon, "Sliders")
    choice = element_id("setting-sliders-2-assignment")
    exclude = element_id("setting-sliders-2-assignment-exclude")
    browser.wait(choice, "visible", equals=True)
    assert browser.read(exclude, "visible") is False
    browser.select(choice, "Everything else")
    browser.wait(exclude, "visible", equals=True)
    assert browser.read(element_id("setting-sliders-2-assignment-names"), "visible") is False
    browser.fill(exclude, "vlc, obs")
    browser.click(role("button", "Save slider 3"))
    browser.wait(element_id("settings-slider-2-status"), "text", equals="Slider 3 saved: the device shows Chat.")
    browser.click(exclude)  # scrolls the choice into the screen
    browser.screenshot(os.path.join(SCREENSHOTS, "settings-slider-everything-else-phone.png"))
    running = get_json(daemon, "/api/sliders")["sliders"][2]
    assert running["assignment"] == {"type": "unmapped", "exclude": ["vlc", "obs"]}, running
    assert get_json(daemon, "/api/settings")["sliders"][2]["assignment"] == running["assignment"]
    # mpv is no other slider's: it follows; vlc is excluded: it stays where it was.
    before = volume_of(pulse.stream(vlc))
    assert http("POST", daemon.url("/api/sliders/3"), {"value": 30})[0] == 200
    wait_until(lambda: volume_of(pulse.stream(mpv)) == 30, what="mpv at 30 %")
    assert volume_of(pulse.stream(vlc)) == before
    # The live page says what it controls under the slider.
    browser.click(role("button", "Close settings"))
    browser.wait(element_id("slider-3-assignment"), "text", equals="Everything else but vlc, obs")
    # Shown again as saved when the view is opened anew.
    browser.click(role("button", "Settings"))
    browser.click(role("tab", "Sliders"))
    browser.wait(exclude, "value", equals="vlc, obs")
    assert browser.read(choice) == "unmapped"


def test_everything_else_is_offered_in_the_live_pages_editor(browser, web):
    open_live(browser, web, width=390, height=844, touch=True)
    browser.click(element_id("slider-3-assignment"))
    browser.wait(role("combobox", "Controls"), "visible", equals=True)
    exclude = element_id("assignment-exclude")
    assert browser.read(exclude, "visible") is False
    browser.select(role("combobox", "Controls"), "unmapped")
    browser.wait(exclude, "visible", equals=True)
    browser.fill(role("textbox", "Except these applications"), "spotify")
    check_axe(browser, "live page, assignment editor with Everything else", include="#assignment-dialog")
    browser.click(role("button", "Save"))
    browser.wait(element_id("slider-3-assignment"), "text", equals="Everything else but spotify")
    running = get_json(web, "/api/sliders")["sliders"][2]
    assert running["assignment"] == {"type": "unmapped", "exclude": ["spotify"]}, running
    # Opened again, the editor shows it as saved.
    browser.click(element_id("slider-3-assignment"))
    browser.wait(role("combobox", "Controls"), "value", equals="unmapped")
    assert browser.read(exclude) == "spotify"


def test_application_aliases_are_edited_as_rows_in_other_settings(browser, web):
    open_view(browser, web, "Other settings")
    save = role("button", "Save Audio settings")
    browser.wait(save, "visible", equals=True)
    browser.click(role("button", "Add an alias"))
    assert browser.focused()["id"] == "setting-app-aliases-0-0"
    browser.fill(role("textbox", "Alias 1 Application"), "discord")
    browser.fill(role("textbox", "Alias 1 Also matches"), "WEBRTC VoiceEngine, com.discordapp.Discord")
    browser.click(role("button", "Add an alias"))
    browser.fill(role("textbox", "Alias 2 Application"), "game")
    browser.fill(role("textbox", "Alias 2 Also matches"), "steam_app_1")
    browser.select(element_id("setting-app-volume-policy"), "follow")
    browser.click(save)
    browser.wait(element_id("settings-group-audio-status"), "text", equals="Audio settings saved.")
    settings = get_json(web, "/api/settings")
    assert settings["app_aliases"] == {"discord": ["WEBRTC VoiceEngine", "com.discordapp.Discord"],
                                       "game": ["steam_app_1"]}, settings["app_aliases"]
    assert settings["app_volume_policy"] == "follow"
    browser.click(role("textbox", "Alias 2 Application"))  # scrolls the aliases into the screen
    browser.screenshot(os.path.join(SCREENSHOTS, "settings-aliases-phone.png"))

    # A half-filled row is caught before sending; a removed row is removed from the settings.
    browser.fill(role("textbox", "Alias 2 Also matches"), "")
    browser.click(save)
    browser.wait(element_id("setting-app-aliases-error"), "text",
                 equals="Alias 2 needs an application name and at least one name it also matches.")
    assert browser.read(role("textbox", "Alias 2 Application"), "attr:aria-invalid") == "true"
    browser.click(role("button", "Remove alias 1"))
    assert browser.focused()["id"] == "setting-app-aliases-0-0"
    browser.fill(role("textbox", "Alias 1 Also matches"), "steam_app_2")
    browser.click(save)
    browser.wait(element_id("settings-group-audio-status"), "text", equals="Audio settings saved.")
    assert get_json(web, "/api/settings")["app_aliases"] == {"game": ["steam_app_2"]}

    # The pick-up and deadband settings are plain fields of the mixer's group.
    browser.select(element_id("setting-slider-takeover"), "jump")
    browser.fill(element_id("setting-slider-deadband"), "3")
    browser.click(role("button", "Save Mixer settings"))
    browser.wait(element_id("settings-group-mixer-status"), "text", equals="Mixer settings saved.")
    settings = get_json(web, "/api/settings")
    assert (settings["slider_takeover"], settings["slider_deadband"]) == ("jump", 3)


@pytest.mark.parametrize("name,width,height,touch", SIZES)
def test_the_new_fields_have_no_axe_violations(browser, web, name, width, height, touch):
    # Slider 2 with its points shown and an error at them, slider 3 on "Everything else".
    open_view(browser, web, "Sliders", width=width, height=height, touch=touch)
    browser.wait(role("button", "Save slider 2"), "visible", equals=True)
    browser.select(element_id("setting-sliders-1-curve"), "points")
    browser.fill(point(1, 1), "")
    browser.click(role("button", "Save slider 2"))
    browser.wait(element_id("setting-sliders-1-points-error"), "text", regex=r"\S")
    browser.select(element_id("setting-sliders-2-assignment"), "unmapped")
    browser.fill(element_id("setting-sliders-2-assignment-exclude"), "vlc")
    check_axe(browser, f"Sliders view with curve points, {name}")
    layout = browser.layout()
    assert layout["scrollWidth"] <= layout["clientWidth"], layout
    browser.click(role("tab", "Other settings"))
    browser.wait(role("button", "Save Audio settings"), "visible", equals=True)
    browser.click(role("button", "Add an alias"))
    browser.fill(role("textbox", "Alias 1 Application"), "discord")
    check_axe(browser, f"Other settings with an alias, {name}")
    layout = browser.layout()
    assert layout["scrollWidth"] <= layout["clientWidth"], layout
