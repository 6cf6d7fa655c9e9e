"""The audio policy (protocol/README.md, "Audio server" and "Sliders"): which app is which,
everything else on one slider, streams kept where the slider puts them, curves, a steady slider
and pick-up instead of jumps. Real streams (pacat) whose properties mimic a Flatpak app, an
Electron app and an app with two streams, on the private audio server of audio_support (each
test runs on every server that fixture offers)."""

import time

from audio_support import pulse, volume_of  # noqa: F401 (pulse: a fixture)
from conftest import get_json, http, wait_until, write_settings
from test_audio import SETTLE_TIME, assign, mixer, wait_stream  # noqa: F401 (mixer: a fixture)

# What PipeWire's access module gives a Flatpak client, and what every Electron app says.
FLATPAK_DISCORD = {"pipewire.access.portal.app_id": "com.discordapp.Discord"}


def patch_settings(daemon, patch):
    status, reply, _ = http("PATCH", daemon.url("/api/settings"), patch)
    assert status == 200, reply
    return reply


def patch_sliders(daemon, changes):
    """Changes fields of sliders (index 1-4 -> fields) through the settings API: a merge patch
    replaces arrays, so the whole `sliders` array goes out with the changes made to it."""
    current = get_json(daemon, "/api/settings")["sliders"]
    for index, fields in changes.items():
        current[index - 1].update(fields)
    return http("PATCH", daemon.url("/api/settings"), {"sliders": current})


def sessions(daemon):
    return {s["name"]: s for s in get_json(daemon, "/api/audio/sessions")["sessions"]}


def slider(daemon, index):
    return get_json(daemon, "/api/sliders")["sliders"][index - 1]


def processed(daemon, device, index=4, value=None):
    """Waits until the daemon has handled every device line sent so far: a move of another
    slider, sent last, shows in the API only after the lines before it."""
    value = 3 if value is None else value
    device.send(f"SLIDER,{index - 1},{value}")
    wait_until(lambda: slider(daemon, index)["value"] == value, what="the marker move")


def test_a_flatpak_app_is_matched_by_its_app_id(mixer):
    daemon, device, pulse = mixer
    discord = pulse.play("Discord", props=FLATPAK_DISCORD)
    assign(daemon, 1, {"type": "app", "names": ["com.discordapp.Discord"]})
    device.send("SLIDER,0,35")
    wait_stream(pulse, discord, volume=35, what="the Flatpak stream at the slider")
    entry = wait_until(lambda: sessions(daemon).get("com.discordapp.Discord"),
                       what="the Flatpak app listed by its app id")
    assert entry["flatpakId"] == "com.discordapp.Discord"
    assert entry["slider"] == 1 and entry["volume"] == 35.0


def test_an_electron_app_is_told_apart_from_chromium_by_its_binary(mixer):
    daemon, device, pulse = mixer
    electron = pulse.play("Chromium", "discord")  # Electron apps all call themselves Chromium
    browser = pulse.play("Chromium", "chromium")
    assign(daemon, 1, {"type": "app", "names": ["chromium"]})
    assign(daemon, 2, {"type": "app", "names": ["discord"]})
    device.send("SLIDER,0,20")
    device.send("SLIDER,1,60")
    wait_stream(pulse, browser, volume=20, what="the browser on the chromium slider")
    wait_stream(pulse, electron, volume=60, what="the Electron app on its own slider")
    listed = sessions(daemon)
    assert listed["discord"]["slider"] == 2 and listed["discord"]["applicationName"] == "Chromium"
    assert listed["chromium"]["slider"] == 1


def test_an_app_with_two_streams_is_one_session_and_both_follow(mixer):
    daemon, device, pulse = mixer
    first = pulse.play("Game", "game")
    second = pulse.play("Game", "game")
    assign(daemon, 3, {"type": "app", "names": ["game"]})
    device.send("SLIDER,2,45")
    wait_stream(pulse, first, volume=45)
    wait_stream(pulse, second, volume=45)
    entry = wait_until(lambda: (lambda s: s.get("game", {}).get("streams") == 2 and s["game"])(
        sessions(daemon)), what="one session with two streams")
    assert entry["slider"] == 3
    assert len([s for s in get_json(daemon, "/api/audio/sessions")["sessions"]
                if s["name"] == "game"]) == 1


def test_an_alias_matches_the_names_listed_under_it_live(mixer):
    daemon, device, pulse = mixer
    voice = pulse.play("WEBRTC VoiceEngine")  # what Discord's voice stream is called
    assign(daemon, 1, {"type": "app", "names": ["discord"]})
    device.send("SLIDER,0,25")
    wait_until(lambda: slider(daemon, 1)["value"] == 25, what="slider at 25")
    assert volume_of(pulse.stream(voice)) == 100  # not matched yet
    patch_settings(daemon, {"app_aliases": {"discord": ["WEBRTC VoiceEngine",
                                                        "com.discordapp.Discord"]}})
    wait_stream(pulse, voice, volume=25, what="the aliased stream at the slider, no restart")
    status, reply, _ = http("PATCH", daemon.url("/api/settings"),
                            {"app_aliases": {"discord": "WEBRTC VoiceEngine"}})
    assert status == 400 and "app_aliases.discord" in reply["error"], reply


def test_unmapped_controls_everything_no_slider_claims_but_its_exclusions(mixer):
    daemon, device, pulse = mixer
    music = pulse.play("Spotify", "spotify")
    browser = pulse.play("Firefox", "firefox")
    chat = pulse.play("Chromium", "discord")
    assign(daemon, 1, {"type": "app", "names": ["spotify"]})
    assign(daemon, 2, {"type": "unmapped", "exclude": ["discord"]})
    assert slider(daemon, 2)["assignment"] == {"type": "unmapped", "exclude": ["discord"]}
    device.send("SLIDER,0,70")
    device.send("SLIDER,1,15")
    wait_stream(pulse, browser, volume=15, what="an unclaimed app on the unmapped slider")
    wait_stream(pulse, music, volume=70, what="a claimed app on its own slider")
    # It follows apps as they come.
    late = pulse.play("Totem", "totem")
    wait_stream(pulse, late, volume=15, what="a new app on the unmapped slider")
    processed(daemon, device)
    assert volume_of(pulse.stream(chat)) == 100, "an excluded app was touched"
    # An app assignment elsewhere takes its app off the unmapped slider at once.
    assign(daemon, 3, {"type": "app", "names": ["firefox"]})
    device.send("SLIDER,2,90")
    wait_stream(pulse, browser, volume=90, what="firefox moved to its own slider")
    status, reply, _ = http("POST", daemon.url("/api/sliders/2/assignment"),
                            {"type": "unmapped", "exclude": "discord"})
    assert status == 400 and reply["error"].startswith("exclude"), reply


def test_policy_follow_moves_the_slider_to_the_apps_own_volume(mixer):
    daemon, device, pulse = mixer
    first = pulse.play("Game", "game")
    second = pulse.play("Game", "game")
    assign(daemon, 1, {"type": "app", "names": ["game"]})
    device.send("SLIDER,0,40")
    wait_stream(pulse, first, volume=40)
    wait_stream(pulse, second, volume=40)
    known_since = time.monotonic()  # mixerd has seen both streams: it set them
    patch_settings(daemon, {"app_volume_policy": "follow"})
    # The app's own change comes once the streams are past their first moments (a change in a
    # stream's first second is the server's restore, set back under every policy).
    time.sleep(max(0.0, known_since + SETTLE_TIME + 0.1 - time.monotonic()))
    pulse.pactl("set-sink-input-volume", str(first), "30%")
    wait_until(lambda: slider(daemon, 1)["value"] == 30, what="the slider following the app")
    device.expect(lambda line: line.startswith("VOL,0,") and line.endswith(",30"),
                  what="the device told the new value")
    wait_stream(pulse, second, volume=30, what="the app's other stream following")
    wait_stream(pulse, first, volume=30, what="the app's own change kept")
    # Back to hold: the app's change is set back.
    patch_settings(daemon, {"app_volume_policy": "hold"})
    pulse.pactl("set-sink-input-volume", str(first), "80%")
    wait_stream(pulse, first, volume=30, what="set back under hold")
    assert slider(daemon, 1)["value"] == 30


def test_curves_and_range_shape_the_applied_volume(mixer):
    daemon, device, pulse = mixer
    quiet = pulse.play("Quiet", "quiet")
    shaped = pulse.play("Shaped", "shaped")
    assign(daemon, 1, {"type": "app", "names": ["quiet"]})
    assign(daemon, 2, {"type": "app", "names": ["shaped"]})
    status, reply, _ = patch_sliders(daemon, {
        1: {"curve": "fine"},
        2: {"curve": "points", "points": [[0, 0], [50, 10], [100, 100]], "min": 0, "max": 80}})
    assert status == 200, reply
    device.send("SLIDER,0,10")
    device.send("SLIDER,1,75")
    # fine: 10 -> 1 % (655 of 65536); points: 75 -> 55 % of the 0-80 range = 44 %.
    wait_until(lambda: pulse.stream(quiet)["volume"]["front-left"]["value"] == 655,
               what="slider 10 at 1 % on the fine curve")
    wait_stream(pulse, shaped, volume=44, what="the points curve inside the range")
    # The API and the events keep the slider's own value; the sessions show the applied one.
    assert slider(daemon, 1)["value"] == 10
    listed = wait_until(lambda: (lambda s: s.get("quiet", {}).get("volume") == 1.0 and s)(
        sessions(daemon)), what="the applied volume in the session list")
    assert listed["shaped"]["volume"] == 44.0
    status, reply, _ = patch_sliders(daemon, {1: {"curve": "points"}})
    assert status == 400 and reply["error"].startswith("sliders[0].points"), reply
    status, reply, _ = patch_sliders(daemon, {1: {"curve": "fine", "min": 60, "max": 40}})
    assert status == 400 and reply["error"].startswith("sliders[0].min"), reply


def test_a_jittering_potentiometer_does_not_flicker_the_volume(mixer):
    daemon, device, pulse = mixer
    app = pulse.play("Music", "music")
    assign(daemon, 1, {"type": "app", "names": ["music"]})
    device.send("SLIDER,0,40")
    wait_stream(pulse, app, volume=40)
    for value in (41, 40, 41, 40, 41):  # a noisy pot: one step up, one back, ...
        device.send(f"SLIDER,0,{value}")
    processed(daemon, device)
    assert slider(daemon, 1)["value"] == 40
    assert volume_of(pulse.stream(app)) == 40
    # A real move is applied as it arrives.
    device.send("SLIDER,0,43")
    wait_stream(pulse, app, volume=43, what="a real move")


def test_after_a_profile_load_the_physical_slider_must_pick_the_value_up(mixer):
    daemon, device, pulse = mixer
    app = pulse.play("Music", "music")
    assign(daemon, 1, {"type": "app", "names": ["music"]})
    device.send("SLIDER,0,70")
    wait_stream(pulse, app, volume=70)
    status, reply, _ = http("POST", daemon.url("/api/profiles"), {"name": "Loud"})
    assert status == 201, reply
    device.send("SLIDER,0,30")
    wait_stream(pulse, app, volume=30)
    status, reply, _ = http("POST", daemon.url("/api/profiles/load"), {"name": "Loud"})
    assert status == 200, reply
    wait_stream(pulse, app, volume=70, what="the profile's value applied")
    state = slider(daemon, 1)
    assert state["pickup"] is True and state["position"] == 30, state
    # The hand rests on the slider at 30: jitter and a slow move below 68 change nothing.
    for value in (31, 30, 32, 29, 45, 60, 67):
        device.send(f"SLIDER,0,{value}")
    processed(daemon, device)
    assert volume_of(pulse.stream(app)) == 70
    state = slider(daemon, 1)
    assert (state["value"], state["position"], state["pickup"]) == (70, 67, True), state
    # Within 2 of 70: picked up, and from then on the slider drives.
    device.send("SLIDER,0,69")
    wait_stream(pulse, app, volume=69, what="the slider driving after the pick-up")
    assert slider(daemon, 1)["pickup"] is False
    device.send("SLIDER,0,50")
    wait_stream(pulse, app, volume=50)


def test_restored_values_hold_at_start_up(daemon_factory, data_dir, device, pulse):
    write_settings(data_dir, {
        "sliders": [{"label": "Music", "assignment": {"type": "app", "names": ["music"]}}],
        "slider_values": [20]})
    app = pulse.play("Music", "music")
    daemon = daemon_factory("--serial", device.path,
                            env={"PULSE_SERVER": pulse.env["PULSE_SERVER"]})
    wait_stream(pulse, app, volume=20, what="the restored value applied at start-up")
    # The device's first reading (its slider moved while mixerd was down) does not move it.
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="device link")
    device.send("SLIDER,0,90")
    processed(daemon, device)
    assert volume_of(pulse.stream(app)) == 20
    state = slider(daemon, 1)
    assert (state["value"], state["position"], state["pickup"]) == (20, 90, True), state
    device.send("SLIDER,0,21")
    wait_stream(pulse, app, volume=21, what="picked up")
