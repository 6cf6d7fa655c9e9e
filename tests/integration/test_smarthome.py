"""The smart home against the real binary and a fake Home Assistant that speaks the documented
WebSocket API (ha_fake.py): the device list, toggle and brightness acting on the fake, live
changes as smarthome_change, a refused token, a restarted Home Assistant, one that never
answers (504 within the contract's 3 s), no configuration at all, the smarthome macro kind and
the toast of a toggle on the device (docs/api.md, section 2.12)."""
import json
import os
import signal
import ssl
import subprocess
import time

import pytest

from conftest import MIXERD_BIN, get_json, http, make_cert_pair, wait_until, write_settings
from ha_fake import FakeHomeAssistant, demo_states
from socketio_support import clients  # noqa: F401 (a fixture)

TOKEN = "eyJhbGciOiJIUzI1NiJ9.fake-long-lived-token-for-tests.x1Y2z3"
NOT_CONNECTED = {"error": "Smart home not connected"}
EMPTY = {"type": "none", "name": "", "icon": ""}


def smarthome_settings(ha, token=TOKEN, **extra):
    return {"smarthome": {"url": ha.url, "token": token, **extra}}


@pytest.fixture
def ha():
    fake = FakeHomeAssistant(TOKEN, demo_states()).start()
    yield fake
    fake.close()


@pytest.fixture
def start(daemon_factory, device, data_dir, clients):  # noqa: F811
    """start(settings, wait_connected=True) -> (daemon, Socket.IO client): the device is linked
    and a Socket.IO client has its initial_state."""

    def make(settings, wait_connected=True):
        write_settings(data_dir, settings)
        daemon = daemon_factory("--serial", device.path)
        wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="device connected")
        client = clients("python", daemon.url(""), "websocket")
        client.event("initial_state")
        if wait_connected:
            wait_until(lambda: get_json(daemon, "/api/smarthome")["connected"], timeout=10,
                       what="Home Assistant connected")
        return daemon, client

    return make


def post(daemon, path, body):
    return http("POST", daemon.url(path), body)[:2]


def device_of(daemon, entity_id):
    devices = get_json(daemon, "/api/smarthome")["devices"]
    return next(d for d in devices if d["entity_id"] == entity_id)


def next_call(ha, timeout=5):
    return ha.calls.get(timeout=timeout)


def toast_line(device, text):
    return device.expect(lambda l: l.startswith("TOAST,") and text in l, what=f"a toast with {text}")


def test_devices_are_listed_and_a_toggle_answers_with_the_new_state(start, ha, device):
    daemon, client = start(smarthome_settings(ha))
    body = get_json(daemon, "/api/smarthome")
    assert body == {"connected": True, "devices": [
        {"entity_id": "input_boolean.guest_mode", "friendly_name": "Guest mode", "state": "off",
         "brightness": None, "domain": "input_boolean"},
        {"entity_id": "light.desk", "friendly_name": "Desk lamp", "state": "on",
         "brightness": 50, "domain": "light"},  # 128 of 255
        {"entity_id": "switch.fan_plug", "friendly_name": "Fan plug", "state": "off",
         "brightness": None, "domain": "switch"},
    ]}  # the sensor is not of a listed domain

    assert post(daemon, "/api/smarthome/toggle", {"entity_id": "light.desk"}) == (
        200, {"success": True, "entity_id": "light.desk", "state": "off"})
    call = next_call(ha)
    assert (call["domain"], call["service"], call["target"]) == (
        "light", "toggle", {"entity_id": "light.desk"})
    assert ha.state("light.desk")["state"] == "off"
    change = client.event("smarthome_change", lambda e: e["entity_id"] == "light.desk")
    assert change == {"entity_id": "light.desk", "friendly_name": "Desk lamp", "state": "off",
                      "brightness": None, "domain": "light"}
    assert device_of(daemon, "light.desk")["state"] == "off"
    # The smarthome toast handler shows the toggle's result on the device.
    line = toast_line(device, "Desk lamp")
    assert "Now off" in line and ",power," in line

    assert post(daemon, "/api/smarthome/toggle", {"entity_id": "switch.fan_plug"}) == (
        200, {"success": True, "entity_id": "switch.fan_plug", "state": "on"})
    assert next_call(ha)["domain"] == "switch"
    assert post(daemon, "/api/smarthome/toggle", {"entity_id": "light.nope"}) == (
        404, {"error": "Unknown entity: light.nope"})
    assert post(daemon, "/api/smarthome/toggle", {"entity_id": "sensor.temperature"})[0] == 404
    status, body = post(daemon, "/api/smarthome/toggle", {"entity_id": "Desk Lamp"})
    assert status == 400 and "entity_id" in body["error"]
    status, body = post(daemon, "/api/smarthome/toggle", {})
    assert status == 400 and "entity_id" in body["error"]


def test_brightness_is_scaled_and_zero_turns_the_light_off(start, ha):
    daemon, client = start(smarthome_settings(ha))
    assert post(daemon, "/api/smarthome/brightness", {"entity_id": "light.desk", "value": 30}) == (
        200, {"success": True, "entity_id": "light.desk", "brightness": 30})
    call = next_call(ha)
    assert (call["service"], call["service_data"]) == ("turn_on", {"brightness_pct": 30})
    assert ha.state("light.desk")["attributes"]["brightness"] == 77  # 30 % of 255
    assert client.event("smarthome_change", lambda e: e["brightness"] == 30)["state"] == "on"

    assert post(daemon, "/api/smarthome/brightness", {"entity_id": "light.desk", "value": 0}) == (
        200, {"success": True, "entity_id": "light.desk", "brightness": 0})
    call = next_call(ha)
    assert (call["domain"], call["service"]) == ("light", "turn_off")
    assert "service_data" not in call
    assert client.event("smarthome_change", lambda e: e["state"] == "off")["brightness"] is None

    status, body = post(daemon, "/api/smarthome/brightness",
                        {"entity_id": "switch.fan_plug", "value": 50})
    assert status == 400 and "not a light" in body["error"]
    for bad in (101, -1, 2.5, "50", None):
        status, body = post(daemon, "/api/smarthome/brightness",
                            {"entity_id": "light.desk", "value": bad})
        assert status == 400 and "value" in body["error"], (bad, body)
    assert post(daemon, "/api/smarthome/brightness", {"entity_id": "light.gone", "value": 5})[0] == 404
    assert ha.calls.empty()


def test_changes_made_in_home_assistant_reach_socketio_clients(start, ha):
    daemon, client = start(smarthome_settings(ha))
    ha.set_state("sensor.temperature", "22.0")  # not listed: no event
    ha.set_state("switch.fan_plug", "on")
    first = client.event("smarthome_change")
    assert first == {"entity_id": "switch.fan_plug", "friendly_name": "Fan plug", "state": "on",
                     "brightness": None, "domain": "switch"}
    ha.set_state("light.desk", "on", friendly_name="Reading lamp", brightness=255)
    change = client.event("smarthome_change", lambda e: e["entity_id"] == "light.desk")
    assert (change["friendly_name"], change["brightness"]) == ("Reading lamp", 100)
    assert device_of(daemon, "light.desk")["friendly_name"] == "Reading lamp"
    # A new entity of a listed domain joins the list in its place.
    ha.set_state("fan.ceiling", "off", friendly_name="Ceiling fan")
    client.event("smarthome_change", lambda e: e["entity_id"] == "fan.ceiling")
    ids = [d["entity_id"] for d in get_json(daemon, "/api/smarthome")["devices"]]
    assert ids == ["fan.ceiling", "input_boolean.guest_mode", "light.desk", "switch.fan_plug"]


def test_the_entities_setting_chooses_and_orders_the_devices(start, ha):
    daemon, _ = start(smarthome_settings(ha, entities=["switch.fan_plug", "sensor.temperature",
                                                       "light.desk"]))
    devices = get_json(daemon, "/api/smarthome")["devices"]
    assert [d["entity_id"] for d in devices] == ["switch.fan_plug", "sensor.temperature",
                                                 "light.desk"]
    assert devices[1]["state"] == "21.5"


def test_a_refused_token_is_reported_and_a_reload_with_the_right_one_connects(
        start, ha, data_dir):
    daemon, client = start(smarthome_settings(ha, token="wrong-token-123"), wait_connected=False)
    daemon.wait_log("Home Assistant refused the access token")
    assert get_json(daemon, "/api/smarthome") == {"connected": False, "devices": []}
    assert post(daemon, "/api/smarthome/toggle", {"entity_id": "light.desk"}) == (503, NOT_CONNECTED)
    assert post(daemon, "/api/smarthome/brightness", {"entity_id": "light.desk", "value": 3}) == (
        503, NOT_CONNECTED)
    # A broken value on reload is refused and the running settings stay.
    write_settings(data_dir, {"smarthome": {"url": "ftp://127.0.0.1", "token": TOKEN}})
    daemon.proc.send_signal(signal.SIGHUP)
    daemon.wait_log("reload ignored")
    # The right token on reload: it connects.
    write_settings(data_dir, smarthome_settings(ha))
    daemon.proc.send_signal(signal.SIGHUP)
    assert client.event("smarthome_status") == {"connected": True}
    assert get_json(daemon, "/api/smarthome")["connected"] is True
    assert "wrong-token-123" not in "\n".join(daemon.log)
    assert TOKEN not in "\n".join(daemon.log)


def test_a_restarted_home_assistant_is_reconnected(start, ha):
    daemon, client = start(smarthome_settings(ha))
    ha.stop()
    assert client.event("smarthome_status") == {"connected": False}
    assert get_json(daemon, "/api/smarthome") == {"connected": False, "devices": []}
    assert post(daemon, "/api/smarthome/toggle", {"entity_id": "light.desk"}) == (503, NOT_CONNECTED)
    ha.set_state("switch.fan_plug", "on")  # changed while mixerd was away
    ha.start()
    # Back-off 1 s, then 2 s: connected again well within 10 s.
    assert client.event("smarthome_status", timeout=10) == {"connected": True}
    assert device_of(daemon, "switch.fan_plug")["state"] == "on"
    assert post(daemon, "/api/smarthome/toggle", {"entity_id": "switch.fan_plug"}) == (
        200, {"success": True, "entity_id": "switch.fan_plug", "state": "off"})
    daemon.wait_log("Home Assistant connection lost")


def test_a_home_assistant_that_never_answers_gets_504_within_3_s(start, ha):
    daemon, _ = start(smarthome_settings(ha))
    ha.silent_calls = True
    began = time.monotonic()
    status, body = post(daemon, "/api/smarthome/toggle", {"entity_id": "light.desk"})
    took = time.monotonic() - began
    assert status == 504 and body == {
        "error": "Home Assistant did not report a new state of light.desk within 3 s"}
    assert 2.5 <= took < 4.5, took
    began = time.monotonic()
    status, body = post(daemon, "/api/smarthome/brightness", {"entity_id": "light.desk", "value": 9})
    assert (status, body) == (504, {"error": "Home Assistant did not answer within 3 s"})
    assert time.monotonic() - began < 4.5
    # The rest of the daemon never waited, and the connection stays.
    assert get_json(daemon, "/api/smarthome")["connected"] is True
    ha.silent_calls = False
    assert post(daemon, "/api/smarthome/toggle", {"entity_id": "light.desk"})[0] == 200


def test_a_silent_server_leaves_the_daemon_answering(daemon_factory, data_dir):
    silent = FakeHomeAssistant(TOKEN, demo_states())
    silent.silent = True  # accepts the WebSocket and never sends anything
    silent.start()
    try:
        write_settings(data_dir, smarthome_settings(silent))
        daemon = daemon_factory()
        assert get_json(daemon, "/api/smarthome") == {"connected": False, "devices": []}
        began = time.monotonic()
        assert post(daemon, "/api/smarthome/toggle", {"entity_id": "light.desk"}) == (
            503, NOT_CONNECTED)
        assert time.monotonic() - began < 1
        daemon.wait_log("no authentication within 10 s", timeout=15)
    finally:
        silent.close()


def test_not_configured(start):
    daemon, client = start({}, wait_connected=False)
    assert get_json(daemon, "/api/smarthome") == {"connected": False, "devices": []}
    assert post(daemon, "/api/smarthome/toggle", {"entity_id": "light.desk"}) == (503, NOT_CONNECTED)
    assert post(daemon, "/api/smarthome/brightness", {"entity_id": "light.desk", "value": 1}) == (
        503, NOT_CONNECTED)
    state = client.call("get_state")
    assert state["smarthome"] == {"connected": False, "devices": []}
    daemon.wait_log("Home Assistant not configured")


def test_the_token_never_appears_in_answers_or_the_log(start, ha, data_dir):
    daemon, client = start(smarthome_settings(ha))
    answers = [
        http("GET", daemon.url("/api/smarthome"))[1],
        post(daemon, "/api/smarthome/toggle", {"entity_id": "light.desk"})[1],
        post(daemon, "/api/smarthome/toggle", {"entity_id": "light.none"})[1],
        post(daemon, "/api/smarthome/brightness", {"entity_id": "switch.fan_plug", "value": 1})[1],
        client.call("get_state"),
    ]
    ha.stop()
    client.event("smarthome_status", lambda e: not e["connected"])
    answers.append(post(daemon, "/api/smarthome/toggle", {"entity_id": "light.desk"})[1])
    text = json.dumps(answers)
    assert "smarthome" in json.dumps(answers[-2])  # initial_state carries the key, not the token
    assert TOKEN not in text
    assert TOKEN not in "\n".join(daemon.log)
    daemon.stop()
    assert TOKEN not in "\n".join(daemon.log)


def test_bad_smarthome_settings_stop_the_start_with_exit_2(data_dir):
    for settings, key in (
            ({"smarthome": {"url": "ftp://ha.local", "token": TOKEN}}, "smarthome.url"),
            ({"smarthome": {"url": "http://ha.local:8123"}}, "smarthome.token"),
            ({"smarthome": {"url": "http://ha.local:8123", "token": TOKEN + "\u0001"}},
             "smarthome.token"),
            ({"smarthome": {"url": "http://ha.local", "token": TOKEN, "entities": ["Desk"]}},
             "smarthome.entities[0]"),
            ({"smarthome": {"url": "http://ha.local", "token": TOKEN, "verify_tls": "no"}},
             "smarthome.verify_tls")):
        write_settings(data_dir, settings)
        run = subprocess.run([MIXERD_BIN, "--data-dir", data_dir, "--serial", "none"],
                             capture_output=True, text=True, timeout=20)
        assert run.returncode == 2, (settings, run.stderr)
        out = run.stdout + run.stderr
        assert key in out, out
        assert TOKEN not in out


def test_smarthome_macros_call_home_assistant(start, ha, device):
    pages = {str(p): [EMPTY] * 9 for p in range(4)}
    pages["0"] = [
        {"type": "smarthome", "name": "Lamp", "icon": "", "entity_id": "light.desk",
         "action": "toggle"},
        {"type": "smarthome", "name": "Dim", "icon": "", "entity_id": "light.desk",
         "action": "turn_on", "brightness": 40},
        {"type": "smarthome", "name": "Plug off", "icon": "", "entity_id": "switch.fan_plug",
         "action": "turn_off"},
        {"type": "smarthome", "name": "Gone", "icon": "", "entity_id": "light.gone",
         "action": "toggle"},
    ] + [EMPTY] * 5
    macros = {"current_page": 0, "page_names": {str(p): f"Page {p + 1}" for p in range(4)},
              "pages": pages}
    daemon, client = start({**smarthome_settings(ha), "macros": macros})

    def run(index):
        assert post(daemon, "/api/macros/trigger", {"index": index})[0] == 200
        return client.event("macro_executed", lambda e: e["index"] == index)

    assert run(0)["ok"] is True
    assert ha.state("light.desk")["state"] == "off"
    assert "Now off" in toast_line(device, "Desk lamp")
    assert run(1)["ok"] is True
    assert next_call(ha)["service"] == "toggle"
    assert next_call(ha)["service_data"] == {"brightness_pct": 40}
    assert ha.state("light.desk")["attributes"]["brightness"] == 102
    assert run(2)["ok"] is True
    assert ha.state("switch.fan_plug")["state"] == "off"
    gone = run(3)
    assert gone["ok"] is False and gone["error"] == "Unknown entity: light.gone"
    ha.stop()
    client.event("smarthome_status", lambda e: not e["connected"])
    lost = run(0)
    assert lost["ok"] is False and lost["error"] == "Smart home not connected"


def test_wss_with_a_self_signed_certificate(daemon_factory, data_dir, tmp_path):
    crt, key = make_cert_pair(str(tmp_path / "ha-certs"), "ha")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(crt, key)
    fake = FakeHomeAssistant(TOKEN, demo_states(), ssl_context=context).start()
    try:
        assert fake.url.startswith("https://")
        # Checked by default: a self-signed certificate is refused.
        write_settings(data_dir, smarthome_settings(fake))
        daemon = daemon_factory()
        daemon.wait_log("TLS handshake failed")
        assert get_json(daemon, "/api/smarthome")["connected"] is False
        daemon.stop()
        write_settings(data_dir, smarthome_settings(fake, verify_tls=False))
        daemon = daemon_factory()
        wait_until(lambda: get_json(daemon, "/api/smarthome")["connected"], timeout=10,
                   what="connected over wss")
        assert post(daemon, "/api/smarthome/toggle", {"entity_id": "light.desk"})[1]["state"] == "off"
    finally:
        fake.close()
