"""The command table over REST (docs/api.md, section 2.18): GET /api/commands lists every
command with its parameters; POST /api/commands/{name} runs any of them with the same checks,
answer, device lines and events as its dedicated route."""
import os

from conftest import get_json, http
from socketio_support import clients  # noqa: F401 (a fixture)
from test_controller_auth import cookie_of, login, set_password


def post(daemon, path, body=None, headers=None):
    return http("POST", daemon.url(path), body=body if body is not None else b"", headers=headers)


def test_the_list_names_every_command_with_typed_parameters(connected):
    daemon, _ = connected
    listed = get_json(daemon, "/api/commands")["commands"]
    names = [c["name"] for c in listed]
    assert names == sorted(names)
    by_name = {c["name"]: c for c in listed}
    # The examples of the issue, and one command of each capability with commands.
    for name in ("slider.set", "mute.toggle", "master.set", "macro.trigger", "profile.load",
                 "smarthome.toggle", "stream.scene", "music.control", "plugin.switch",
                 "toast.send", "plant.delete", "device.send"):
        assert name in by_name, name
    slider = by_name["slider.set"]
    assert slider["permission"] == "control"
    assert slider["params"] == [
        {"name": "index", "type": "integer", "min": 1, "max": 4, "required": True,
         "description": "The slider, 1-4"},
        {"name": "value", "type": "integer", "min": 0, "max": 100, "required": True,
         "description": "The new value, 0-100"}]
    action = by_name["music.control"]["params"][0]
    assert action["values"] == ["play_pause", "play", "pause", "next", "previous", "stop"]
    trigger = {p["name"]: p for p in by_name["macro.trigger"]["params"]}
    assert trigger["page"]["required"] is False and trigger["index"]["required"] is True
    assert by_name["toast.send"]["permission"] == "toast_api_key"
    assert by_name["device.send"]["permission"] == "local"
    for command in listed:
        assert command["description"], command["name"]
        for p in command["params"]:
            assert p["type"] in ("integer", "string", "boolean", "object", "array"), p


def test_a_command_by_name_answers_as_its_route_and_reaches_device_and_clients(
        connected, clients):  # noqa: F811
    daemon, device = connected
    device.expect("MASTER,50")
    client = clients("python", daemon.url(""), "websocket")
    client.event("initial_state")
    # The same request both ways: the same answer, the same line to the device, the same event.
    by_route = post(daemon, "/api/sliders/2", {"value": 61})
    device.expect("VOL,1,Slider 2,61")
    assert client.event("slider_change", lambda e: e["value"] == 61) == {"index": 2, "value": 61, "position": None, "pickup": True}
    by_name = post(daemon, "/api/commands/slider.set", {"index": 2, "value": 62})
    device.expect("VOL,1,Slider 2,62")
    assert client.event("slider_change", lambda e: e["value"] == 62) == {"index": 2, "value": 62, "position": None, "pickup": True}
    assert by_route[:2] == (200, {"success": True, "index": 2, "value": 61})
    assert by_name[:2] == (200, {"success": True, "index": 2, "value": 62})
    assert get_json(daemon, "/api/sliders")["sliders"][1]["value"] == 62

    assert post(daemon, "/api/commands/mute.toggle", {"index": 3})[:2] == (
        200, {"success": True, "index": 3, "muted": True, "message": "Mute toggle requested"})
    device.expect("MUTE,2,1")
    # A mute set to what it is changes nothing and says so.
    assert post(daemon, "/api/commands/mute.set", {"index": 3, "muted": True})[:2] == (
        200, {"success": True, "index": 3, "muted": True, "changed": False})
    assert post(daemon, "/api/commands/master.mute_set", {"muted": True})[:2] == (
        200, {"success": True, "muted": True, "changed": True})
    device.expect("MUTE,MASTER,1")
    assert get_json(daemon, "/api/mutes") == {"individual": [False, False, True, False],
                                              "master": True}
    # A command without parameters takes an empty body.
    assert post(daemon, "/api/commands/master.mute_toggle")[:2] == (
        200, {"success": True, "muted": False, "message": "Master mute toggle requested"})


def test_bad_names_arguments_and_permissions(connected):
    daemon, _ = connected
    cases = [
        ("nope.nothing", {}, 404, "Unknown command: nope.nothing"),
        ("slider.set", {"index": 5, "value": 1}, 400, "index must be an integer from 1 to 4"),
        ("slider.set", {"index": 1}, 400, "Missing field: value"),
        ("slider.set", {"index": 1, "value": 50.5}, 400, "value must be an integer from 0 to 100"),
        ("music.control", {"action": "rewind"}, 400,
         "action must be one of play_pause, play, pause, next, previous, stop"),
        ("profile.load", {"name": ""}, 400, "name must be 1 to 64 bytes"),
        ("macro.trigger", {"index": 9}, 400, "index must be an integer from 0 to 8"),
    ]
    for name, body, status, message in cases:
        got = post(daemon, "/api/commands/" + name, body)
        assert got[:2] == (status, {"error": message}), (name, body, got)
    assert post(daemon, "/api/commands/slider.set", b"{oops")[:2] == (
        400, {"error": "Malformed JSON in request body"})
    # What the controller does not grant: local code's raw lines, the notification API's key.
    for name, body in (("device.send", {"line": "REBOOT"}), ("toast.regenerate_key", {})):
        status, answer, _ = post(daemon, "/api/commands/" + name, body)
        assert status == 403 and answer["error"].startswith(name + " needs the "), answer
    assert get_json(daemon, "/api/sliders")["sliders"][0]["value"] == 50


def test_commands_follow_the_login_rule(daemon_factory, data_dir):
    os.makedirs(data_dir, exist_ok=True)
    set_password(data_dir)
    daemon = daemon_factory("--serial", "none")
    assert http("GET", daemon.url("/api/commands"))[:2] == (
        401, {"error": "Authentication required"})
    assert post(daemon, "/api/commands/slider.set", {"index": 1, "value": 5})[:2] == (
        401, {"error": "Authentication required"})
    status, _, headers = login(daemon)
    assert status == 200
    cookie = {"Cookie": "controller_session=" + cookie_of(headers)[0]}
    assert post(daemon, "/api/commands/slider.set", {"index": 1, "value": 5}, cookie)[:2] == (
        200, {"success": True, "index": 1, "value": 5})


def test_an_owner_that_answers_with_an_error_is_answered_as_by_its_route(connected):
    daemon, _ = connected
    # Home Assistant is not configured: the route and the command say so alike.
    route = post(daemon, "/api/smarthome/toggle", {"entity_id": "light.desk"})
    command = post(daemon, "/api/commands/smarthome.toggle", {"entity_id": "light.desk"})
    assert route[:2] == command[:2] == (503, {"error": "Smart home not connected"})
    route = post(daemon, "/api/profiles/load", {"name": "Nowhere"})
    command = post(daemon, "/api/commands/profile.load", {"name": "Nowhere"})
    assert route[:2] == command[:2] == (404, {"error": "Profile 'Nowhere' not found"})
