"""A build with only device, mixer, audio, auth, toast, plants and the controller (docs/api.md,
"Build options"): it starts, serves what it has, and answers for what it left out as "not
available", the way a capability answers when its service is absent."""
import json
import os
import subprocess

from conftest import harness

http = harness.http
get_json = harness.get_json

LEFT_OUT = ("macro.", "profile.", "smarthome.", "stream.", "music.", "plugin.")
# The outside libraries of the optional capabilities: the minimal binary links none of them
# (libpulse may still load some of them for its own use).
OPTIONAL_LIBRARIES = ("libavahi", "libmosquitto", "libsystemd", "libX11", "libXtst")


def post(daemon, path, body=None):
    return http("POST", daemon.url(path), {} if body is None else body)[:2]


def test_the_binary_links_none_of_the_optional_libraries():
    needed = subprocess.run(["readelf", "-d", harness.MIXERD_BIN], capture_output=True,
                            text=True, check=True).stdout
    linked = [line for line in needed.splitlines() if "(NEEDED)" in line]
    assert any("libcaf_core" in line for line in linked), needed
    for library in OPTIONAL_LIBRARIES:
        assert not [line for line in linked if library in line], library


def test_the_mixer_and_the_device_work(connected):
    daemon, device = connected
    device.expect("MASTER,50")
    assert post(daemon, "/api/sliders/2", {"value": 61}) == (
        200, {"success": True, "index": 2, "value": 61})
    device.expect("VOL,1,Slider 2,61")
    assert post(daemon, "/api/commands/mute.toggle", {"index": 3})[0] == 200
    device.expect("MUTE,2,1")
    assert get_json(daemon, "/api/mutes")["individual"] == [False, False, True, False]


def test_the_command_list_holds_only_what_was_built(connected):
    daemon, _ = connected
    names = [c["name"] for c in get_json(daemon, "/api/commands")["commands"]]
    for built in ("slider.set", "mute.toggle", "master.set", "toast.send", "plant.delete"):
        assert built in names
    assert [n for n in names if n.startswith(LEFT_OUT)] == []
    # By name, a command that is not in this build is unknown, as any other name.
    assert post(daemon, "/api/commands/macro.trigger", {"page": 1, "slot": 1}) == (
        404, {"error": "Unknown command: macro.trigger"})


def test_routes_of_capabilities_left_out_answer_not_available(connected):
    daemon, _ = connected
    writes = [("/api/macros/trigger", {"page": 0, "index": 0}, "macro.trigger"),
              ("/api/profiles/load", {"name": "Default"}, "profile.load"),
              ("/api/stream/scene", {"scene": "Live"}, "stream.scene"),
              ("/api/smarthome/toggle", {"entity_id": "light.desk"}, "smarthome.toggle")]
    for path, body, command in writes:
        assert post(daemon, path, body) == (
            503, {"error": f"{command} is not available in this build"}), path
    for path in ("/api/macros", "/api/profiles", "/api/music", "/api/plugins"):
        status, body, _ = http("GET", daemon.url(path))
        assert status == 503 and body["error"], (path, status, body)
    # Home Assistant and OBS read as absent services do.
    assert get_json(daemon, "/api/smarthome") == {"connected": False, "devices": []}
    assert http("GET", daemon.url("/api/stream/scenes"))[:2] == (
        400, {"error": "Streaming software not connected"})


def test_the_notification_api_and_the_plant_store_answer(connected, data_dir):
    daemon, device = connected
    with open(os.path.join(data_dir, "settings.json")) as f:
        settings = json.load(f)
    status, body, _ = http("POST", daemon.url("/api/toast/send", "notification API"),
                           {"message": "Build done"},
                           headers={"X-API-Key": settings["toast_api_key"]})
    assert status == 200 and body["status"] == "success", body
    device.expect("TOAST,3000,bell,3B82F6,Build done,")
    status, body, _ = http("DELETE", daemon.url("/plants/3", "plant store"),
                           headers={"Authorization": "Bearer " + settings["plant_store_token"]})
    assert status == 204, body


def test_settings_of_capabilities_left_out_are_kept(daemon_factory, data_dir):
    # A settings file from a full build starts the minimal one, and a rewrite keeps its keys.
    os.makedirs(data_dir, exist_ok=True)
    path = os.path.join(data_dir, "settings.json")
    macros = harness.macro_set({(0, 0): {"type": "stream_scene", "name": "Live", "icon": "",
                                         "scene_name": "Live"},
                                (0, 1): {"type": "profile", "name": "Night", "icon": "",
                                         "profile": "Night"}})
    foreign = {"mqtt": {"url": "mqtt://127.0.0.1:1", "node_id": "desk"},
               "obs": {"url": "ws://127.0.0.1:4455"}, "macros": macros}
    with open(path, "w") as f:
        json.dump({"master_volume": 40, **foreign}, f)
    daemon = daemon_factory("--serial", "none")
    assert post(daemon, "/api/volume/master", {"value": 55})[0] == 200
    harness.wait_until(lambda: json.load(open(path)).get("master_volume") == 55,
                       what="settings.json rewritten")
    with open(path) as f:
        written = json.load(f)
    assert {k: written[k] for k in foreign} == foreign


def test_settings_of_capabilities_left_out_keep_their_checks(daemon_factory, data_dir):
    # The keys of a capability left out are checked as in a full build: a typo is refused, not
    # silently kept (exit 2 naming the key).
    os.makedirs(data_dir, exist_ok=True)
    with open(os.path.join(data_dir, "settings.json"), "w") as f:
        json.dump({"mqtt": {"url": "mqtt://127.0.0.1:1", "urll": "x"}}, f)
    daemon = daemon_factory("--serial", "none", wait_ready=False)
    assert daemon.proc.wait(timeout=10) == 2
    daemon.wait_log("key 'mqtt' has an unknown key")


def test_the_settings_api_history_and_backup_work_without_the_optional_capabilities(connected):
    daemon, device = connected
    schema = get_json(daemon, "/api/settings/schema")
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "master_volume" in schema["properties"]
    status, body, _ = http("PATCH", daemon.url("/api/settings"), {"master_volume": 33})
    assert status == 200 and body["settings"]["master_volume"] == 33, body
    device.expect("MASTER,33")
    status, body, _ = http("PATCH", daemon.url("/api/settings"), {"device_brightness": 20})
    assert status == 200, body
    device.expect("BRIGHTNESS,20")
    history = get_json(daemon, "/api/config/history")["history"]
    assert history[0]["summary"] == "device_brightness" and history[0]["source"] == "api"
    # No profiles capability: the export holds none, and the import takes the file back.
    exported = get_json(daemon, "/api/config/export")
    assert exported["profiles"] == [] and exported["settings"]["device_brightness"] == 20
    exported["settings"]["device_brightness"] = 60
    status, body, _ = http("POST", daemon.url("/api/config/import"), exported)
    assert status == 200, body
    device.expect("BRIGHTNESS,60")
    status, body, _ = http("POST", daemon.url("/api/config/rollback"),
                           {"id": get_json(daemon, "/api/config/history")["history"][0]["id"]})
    assert status == 200, body
    device.expect("BRIGHTNESS,20")
    # The login is part of every build: the first password turns it on.
    status, body, headers = http("POST", daemon.url("/api/auth/password"),
                                 {"password": "a long passphrase"})
    assert status == 200 and "controller_session=" in headers["Set-Cookie"], body
    assert http("GET", daemon.url("/api/settings"))[0] == 401
