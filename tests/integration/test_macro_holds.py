"""Hold buttons (macro kinds hold_mute and hold_unmute; docs/api.md 2.10, protocol/README.md
"Macros") against the real binary, the pty device and a real audio server checked with pactl:
MACRO,<i>,PRESS holds, MACRO,<i>,RELEASE restores the state from before the press, a lost
device link restores it too, and the API's phase press / release does the same (a hold it does
not renew ends by itself)."""
import time

import pytest

from audio_support import pulse  # noqa: F401 (a fixture)
from conftest import get_json, http, macro_set, wait_until, write_settings


def hold(name, kind, target):
    return {"type": kind, "name": name, "icon": "", "target": target}


@pytest.fixture
def holds(daemon_factory, device, data_dir, pulse):  # noqa: F811
    """holds(slots, sliders=None) -> daemon: settings.json holds those macros (slots of page 0)
    and slider assignments, the device and the audio server are linked."""

    def make(slots, sliders=None):
        settings = {"macros": macro_set(slots)}
        if sliders:
            settings["sliders"] = sliders
        write_settings(data_dir, settings)
        daemon = daemon_factory("--serial", device.path,
                                env={"PULSE_SERVER": pulse.env["PULSE_SERVER"]})
        wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="device link")
        wait_until(lambda: get_json(daemon, "/api/status")["audio_connected"], what="audio link")
        device.expect("MASTER,50")  # the state push is done: later lines are answers
        return daemon

    return make


def app_slider(name):
    return {"label": name, "assignment": {"type": "app", "names": [name.lower()]}}


def wait_stream_muted(pulse, index, muted, what):  # noqa: F811
    wait_until(lambda: pulse.stream(index)["mute"] is muted, what=f"{what}: "
               f"{pulse.pactl('list', 'sink-inputs')}")


def wait_device_muted(pulse, kind, name, muted, what):  # noqa: F811
    wait_until(lambda: pulse.device(kind, name)["mute"] is muted, what=what)


def trigger(daemon, body):
    return http("POST", daemon.url("/api/macros/trigger"), body)[:2]


def test_hold_mute_mutes_a_slider_while_held_and_release_restores(holds, device, pulse):  # noqa: F811
    daemon = holds({3: hold("Cough", "hold_mute", 1)}, [app_slider("Game")])
    game = pulse.play("Game")
    wait_stream_muted(pulse, game, False, "the stream plays unmuted")
    device.send("MACRO,3,PRESS")
    device.expect("MUTE,0,1")
    wait_stream_muted(pulse, game, True, "muted while held")
    assert get_json(daemon, "/api/mutes")["individual"] == [True, False, False, False]
    device.send("MACRO,3,RELEASE")
    device.expect("MUTE,0,0")
    wait_stream_muted(pulse, game, False, "unmuted on release")
    assert get_json(daemon, "/api/mutes")["individual"] == [False, False, False, False]
    daemon.wait_log("macro 'Cough' (page 0, slot 3) released (button up)")


def test_a_quick_tap_still_ends_unmuted(holds, device, pulse):  # noqa: F811
    # The release comes while the press is still on its way: it must not overtake it.
    daemon = holds({0: hold("Tap", "hold_mute", 2)}, [{}, app_slider("Radio")])
    radio = pulse.play("Radio")
    for _ in range(3):
        device.send("MACRO,0,PRESS")
        device.send("MACRO,0,RELEASE")
        device.expect("MUTE,1,1")
        device.expect("MUTE,1,0")
    wait_stream_muted(pulse, radio, False, "unmuted after the taps")
    time.sleep(0.3)  # nothing late may mute it again
    assert pulse.stream(radio)["mute"] is False
    assert get_json(daemon, "/api/mutes")["individual"][1] is False


def test_a_mute_that_was_on_before_the_hold_stays_on_after_it(holds, device, pulse):  # noqa: F811
    daemon = holds({3: hold("Cough", "hold_mute", 1)}, [app_slider("Game")])
    game = pulse.play("Game")
    device.send("MUTE,0,PRESS")
    device.expect("MUTE,0,1")
    wait_stream_muted(pulse, game, True, "muted by its button")
    device.send("MACRO,3,PRESS")
    device.send("MACRO,3,RELEASE")
    daemon.wait_log("macro 'Cough' (page 0, slot 3) released (button up)")
    time.sleep(0.3)  # a wrong restore would have arrived by now
    assert pulse.stream(game)["mute"] is True
    assert get_json(daemon, "/api/mutes")["individual"][0] is True


def test_hold_mute_master_mutes_the_output_while_held(holds, device, pulse):  # noqa: F811
    holds({8: hold("Quiet", "hold_mute", "master")})
    wait_device_muted(pulse, "sinks", "testsink", False, "output unmuted")
    device.send("MACRO,8,PRESS")
    device.expect("MUTE,MASTER,1")
    wait_device_muted(pulse, "sinks", "testsink", True, "output muted while held")
    device.send("MACRO,8,RELEASE")
    device.expect("MUTE,MASTER,0")
    wait_device_muted(pulse, "sinks", "testsink", False, "output unmuted on release")


def test_hold_unmute_is_push_to_talk_on_the_microphone(holds, device, pulse):  # noqa: F811
    mic = {"label": "Mic", "assignment": {"type": "system_default_input"}}
    daemon = holds({1: hold("Talk", "hold_unmute", 4)}, [{}, {}, {}, mic])
    device.send("MUTE,3,PRESS")  # the microphone is off between talks
    wait_device_muted(pulse, "sources", "testmic", True, "microphone muted")
    device.send("MACRO,1,PRESS")
    device.expect("MUTE,3,0")
    wait_device_muted(pulse, "sources", "testmic", False, "microphone open while held")
    device.send("MACRO,1,RELEASE")
    device.expect("MUTE,3,1")
    wait_device_muted(pulse, "sources", "testmic", True, "microphone off again")
    assert get_json(daemon, "/api/mutes")["individual"][3] is True


def test_a_lost_device_link_releases_every_hold(holds, device, pulse):  # noqa: F811
    mic = {"label": "Mic", "assignment": {"type": "system_default_input"}}
    daemon = holds({1: hold("Talk", "hold_unmute", 4), 2: hold("Quiet", "hold_mute", "master")},
                   [{}, {}, {}, mic])
    device.send("MUTE,3,PRESS")
    wait_device_muted(pulse, "sources", "testmic", True, "microphone muted")
    device.send("MACRO,1,PRESS")
    device.send("MACRO,2,PRESS")
    wait_device_muted(pulse, "sources", "testmic", False, "microphone open while held")
    wait_device_muted(pulse, "sinks", "testsink", True, "output muted while held")
    device.unplug()  # the buttons' RELEASE can never come
    wait_until(lambda: not get_json(daemon, "/api/status")["connected"], what="link lost")
    wait_device_muted(pulse, "sources", "testmic", True, "microphone closed at the link loss")
    wait_device_muted(pulse, "sinks", "testsink", False, "output back at the link loss")
    daemon.wait_log("macro 'Talk' (page 0, slot 1) released (the device link was lost)")
    assert get_json(daemon, "/api/mutes") == {"individual": [False, False, False, True],
                                              "master": False}


def test_the_api_holds_with_phase_press_and_release(holds, device, pulse):  # noqa: F811
    daemon = holds({4: hold("Cough", "hold_mute", 1), 5: {"type": "mute", "name": "Mute",
                                                           "icon": "", "target": 2}},
                   [app_slider("Game")])
    game = pulse.play("Game")
    assert trigger(daemon, {"index": 4, "phase": "press"}) == (
        200, {"success": True, "index": 4, "page": 0, "macro": "Cough", "phase": "press"})
    wait_stream_muted(pulse, game, True, "muted while held through the API")
    # A press again renews the hold; it changes nothing.
    assert trigger(daemon, {"index": 4, "page": 0, "phase": "press"})[0] == 200
    assert trigger(daemon, {"index": 4, "phase": "release"})[0] == 200
    wait_stream_muted(pulse, game, False, "unmuted on the API's release")
    # A release of a slot that holds nothing is harmless.
    assert trigger(daemon, {"index": 4, "phase": "release"})[0] == 200
    assert pulse.stream(game)["mute"] is False

    # Without a phase a hold would be let go at once: refused, saying what to send.
    assert trigger(daemon, {"index": 4}) == (400, {
        "error": 'The macro at page 0, index 4 is held while its button is down: send phase '
                 '"press", then "release"'})
    assert trigger(daemon, {"index": 4, "phase": "down"}) == (
        400, {"error": "phase must be one of press, release"})
    # Any other kind runs on a press, as the device's button, and ignores a release.
    assert trigger(daemon, {"index": 5, "phase": "press"})[0] == 200
    wait_until(lambda: get_json(daemon, "/api/mutes")["individual"][1], what="mute 2 toggled")
    assert trigger(daemon, {"index": 5, "phase": "release"})[0] == 200
    time.sleep(0.3)
    assert get_json(daemon, "/api/mutes")["individual"][1] is True


def test_an_api_hold_that_is_not_renewed_ends_by_itself(holds, device, pulse):  # noqa: F811
    # A client that vanished while holding (no release will come) cannot leave a mute held.
    daemon = holds({4: hold("Cough", "hold_mute", 1)}, [app_slider("Game")])
    game = pulse.play("Game")
    assert trigger(daemon, {"index": 4, "phase": "press"})[0] == 200
    pressed = time.monotonic()
    wait_stream_muted(pulse, game, True, "muted while held")
    time.sleep(6)
    assert trigger(daemon, {"index": 4, "phase": "press"})[0] == 200  # renewed at 6 s
    renewed = time.monotonic()
    wait_until(lambda: pulse.stream(game)["mute"] is False, timeout=14,
               what="the hold ended 10 s after its last press")
    assert time.monotonic() - renewed >= 9.5
    assert time.monotonic() - pressed >= 15
    daemon.wait_log("no press renewed the hold within 10 s")


@pytest.mark.parametrize("body,error", [
    ({"type": "hold_mute", "target": 5}, 'target must be 1-4 or "master"'),
    ({"type": "hold_mute"}, "Missing field: target"),
    ({"type": "hold_unmute", "target": "master"}, "target must be an integer from 1 to 4"),
    ({"type": "hold_unmute", "target": 0}, "target must be an integer from 1 to 4"),
])
def test_a_bad_hold_macro_is_a_400_naming_the_field(connected, body, error):
    daemon, _ = connected
    assert http("PUT", daemon.url("/api/macros/0/2"), body)[:2] == (400, {"error": error})


def test_a_hold_is_no_step_of_a_sequence(connected):
    # A step has no button that is held.
    daemon, _ = connected
    status, reply, _ = http("PUT", daemon.url("/api/macros/0/2"), {
        "type": "sequence", "steps": [{"type": "hold_mute", "target": 1}]})
    assert status == 400
    assert reply["error"].startswith("steps[0].type must be one of delay, ")
    assert ", mute, " in reply["error"] and "hold" not in reply["error"]


def test_a_hold_macro_is_stored_as_read(connected):
    daemon, _ = connected
    status, reply, _ = http("PUT", daemon.url("/api/macros/0/2"),
                            {"type": "hold_unmute", "name": "Talk", "target": 4, "extra": 1})
    assert (status, reply["macro"]) == (200, {"type": "hold_unmute", "name": "Talk", "icon": "",
                                              "target": 4})
