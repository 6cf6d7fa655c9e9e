"""Hotkey macros press real keys: through XTest on a private Xvfb, seen there by a RECORD client.

The daemon gets no uinput (conftest.NO_UINPUT), so the X server is its only keyboard output;
without $DISPLAY it has none. Xvfb and python3-xlib come from tools/install-deps.sh --with-tests.
"""
import pytest

from conftest import NO_UINPUT, get_json, http, wait_until
from socketio_support import PyClient
from xserver_support import key_recorder, xserver  # noqa: F401 (fixtures)

MUTE_MIC = {"type": "hotkey", "name": "Mute mic", "icon": "", "key": "ctrl+shift+m"}
CTRL_SHIFT_M = [("down", "Control_L"), ("down", "Shift_L"), ("down", "m"),
                ("up", "m"), ("up", "Shift_L"), ("up", "Control_L")]


@pytest.fixture
def events():
    """Socket.IO clients of a daemon, closed after the test."""
    made = []

    def connect(daemon):
        client = PyClient(daemon.url(""))
        made.append(client)
        return client

    yield connect
    for c in made:
        c.close()


def start(daemon_factory, device, display=None):
    daemon = daemon_factory("--serial", device.path, env={"DISPLAY": display} if display else None)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="connected")
    return daemon


def put_macro(daemon, page, index, macro):
    status, body, _ = http("PUT", daemon.url(f"/api/macros/{page}/{index}"), macro)
    assert status == 200 and body["success"] is True, (status, body)


def trigger(daemon, index, page=0):
    status, body, _ = http("POST", daemon.url("/api/macros/trigger"), {"index": index, "page": page})
    return status, body


def test_api_trigger_and_device_button_press_the_keys_on_the_x_server(
        xserver, key_recorder, daemon_factory, device, events):
    daemon = start(daemon_factory, device, xserver.display)
    client = events(daemon)
    put_macro(daemon, 0, 0, MUTE_MIC)
    done = {"page": 0, "index": 0, "name": "Mute mic", "ok": True}

    status, body = trigger(daemon, 0)
    assert (status, body) == (200, {"success": True, "index": 0, "page": 0, "macro": "Mute mic"})
    assert key_recorder.take(6) == CTRL_SHIFT_M
    assert client.event("macro_executed") == done

    # The device's button 1 of the current page (0) is slot 0.
    device.send("MACRO,0,PRESS")
    assert key_recorder.take(6) == CTRL_SHIFT_M
    assert client.event("macro_executed") == done
    # Each run pressed the combination once: nothing came after the six keys.
    assert key_recorder.keys == []
    daemon.wait_log("macro 'Mute mic' (page 0, slot 0) done")
    # The X connections are all closed again (the ASan build checks for leaks at exit).
    assert daemon.stop() == 0


def test_without_display_or_uinput_a_hotkey_fails_with_no_keyboard_output(
        daemon_factory, device, events):
    daemon = start(daemon_factory, device)
    assert "DISPLAY" not in daemon.env and daemon.env["MIXERD_UINPUT"] == NO_UINPUT
    client = events(daemon)
    put_macro(daemon, 0, 4, MUTE_MIC)
    failed = {"page": 0, "index": 4, "name": "Mute mic", "ok": False,
              "error": "no keyboard output"}

    # The trigger answers once the macro started; its failure is the event's and the log's.
    status, body = trigger(daemon, 4)
    assert (status, body) == (200, {"success": True, "index": 4, "page": 0, "macro": "Mute mic"})
    assert client.event("macro_executed") == failed
    daemon.wait_log("macro 'Mute mic' (page 0, slot 4) failed: no keyboard output")

    device.send("MACRO,4,PRESS")
    assert client.event("macro_executed") == failed


def test_a_key_the_x_server_lacks_fails_naming_it_and_presses_nothing(
        xserver, key_recorder, daemon_factory, device, events):
    # Xvfb's keymap (the usual US one) has no F13; its media keys it has.
    daemon = start(daemon_factory, device, xserver.display)
    client = events(daemon)
    put_macro(daemon, 1, 0, {"type": "hotkey", "name": "Scene 13", "icon": "", "key": "ctrl+f13"})
    put_macro(daemon, 1, 1, {"type": "hotkey", "name": "Play", "icon": "",
                             "key": "media_play_pause"})

    assert trigger(daemon, 0, page=1)[0] == 200
    assert client.event("macro_executed") == {
        "page": 1, "index": 0, "name": "Scene 13", "ok": False,
        "error": "the X server has no key for f13"}

    assert trigger(daemon, 1, page=1)[0] == 200
    assert client.event("macro_executed") == {"page": 1, "index": 1, "name": "Play", "ok": True}
    # The first keys the server saw are the second macro's: the first pressed no Control.
    assert key_recorder.take(2) == [("down", "XF86AudioPlay"), ("up", "XF86AudioPlay")]
    assert daemon.stop() == 0
