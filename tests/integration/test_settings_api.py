"""The settings API (docs/api/settings.md): the schema of settings.json checked by a real
JSON Schema validator, the settings with their secrets masked, and changes as JSON merge patches:
checked whole, saved, applied live as a reload applies them, and refused to a client that is
neither logged in nor on this machine when they touch a secret or an access rule; the history of
changes (at most 50, kept through kill -9) and the rollback."""
import json
import os
import signal
import socket
import subprocess
import threading
import time

import jsonschema

from conftest import MIXERD_BIN, get_json, http, other_address, wait_until, write_settings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_settings(data_dir):
    with open(os.path.join(data_dir, "settings.json")) as f:
        return json.load(f)


def patch(daemon, body, headers=None, base=None):
    url = (base or daemon.url("")) + "/api/settings"
    return http("PATCH", url, body, headers=headers)[:2]


def slider_settings(daemon):
    """The sliders as settings.json holds them (a first start has not written them yet)."""
    return [{k: s[k] for k in ("label", "assignment", "enforce_volume")}
            for s in get_json(daemon, "/api/sliders")["sliders"]]


def settled_settings(daemon, data_dir):
    """settings.json once the daemon's first saves (the current profile) are done."""
    wait_until(lambda: "current_profile" in read_settings(data_dir), what="the first save")
    return read_settings(data_dir)


def test_the_schema_is_a_valid_draft_2020_12_document_the_example_file_passes(
        daemon_factory, data_dir):
    daemon = daemon_factory()
    schema = get_json(daemon, "/api/settings/schema")
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    with open(os.path.join(ROOT, "conf", "settings.example.json")) as f:
        example = json.load(f)
    assert list(validator.iter_errors(example)) == []
    # So does the file the daemon wrote itself on its first start.
    assert list(validator.iter_errors(read_settings(data_dir))) == []
    for key, part in schema["properties"].items():
        assert part.get("description"), key
    assert schema["properties"]["toast_api_key"]["writeOnly"] is True
    assert schema["properties"]["smarthome"]["properties"]["token"]["writeOnly"] is True


def test_secrets_read_as_the_mask_or_empty_and_never_in_clear(daemon_factory, data_dir):
    write_settings(data_dir, {"mqtt": {"url": "mqtt://127.0.0.1:1", "username": "mixer",
                                       "password": "broker-pw"}})
    daemon = daemon_factory()
    key = read_settings(data_dir)["toast_api_key"]
    status, body, _ = http("GET", daemon.url("/api/settings"))
    assert status == 200
    assert body["toast_api_key"] == "********"
    assert body["mqtt"]["password"] == "********"
    assert body["mqtt"]["url"] == "mqtt://127.0.0.1:1"
    assert body.get("metrics_token", "") == ""
    text = json.dumps(body)
    assert key not in text and "broker-pw" not in text


def test_a_patch_is_saved_applied_live_and_answered_with_the_settings(
        daemon_factory, device, data_dir):
    daemon = daemon_factory("--serial", device.path)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="connected")
    device.expect("MASTER,50")
    sliders = slider_settings(daemon)
    sliders[0]["label"] = "Game"
    status, body = patch(daemon, {"sliders": sliders, "master_volume": 70})
    assert status == 200, body
    assert body["success"] is True and body["settings"]["sliders"][0]["label"] == "Game"
    assert body["settings"]["toast_api_key"] == "********"
    # Live, as a reload applies it: the device and the API show it, the file holds it.
    device.expect("VOL,0,Game,50")
    device.expect("MASTER,70")
    assert get_json(daemon, "/api/sliders")["sliders"][0]["label"] == "Game"
    saved = read_settings(data_dir)
    assert saved["sliders"][0]["label"] == "Game" and saved["master_volume"] == 70
    # The file had no sliders yet (a first start): the key is named whole.
    daemon.wait_log("changed by api: master_volume, sliders")


def test_a_bad_patch_names_the_key_and_changes_nothing(daemon_factory, data_dir):
    daemon = daemon_factory()
    before = settled_settings(daemon, data_dir)
    cases = [
        ({"master_volume": 150}, "master_volume must be an integer from 0 to 100"),
        ({"smarthome": {"url": 5}}, "smarthome.url "),
        ({"sliders": [{"label": "x\u0001"}]}, "sliders[0].label must not contain control characters"),
        ({"no_such_setting": 1}, "no_such_setting is no setting of this mixerd"),
    ]
    for body, error in cases:
        status, answer = patch(daemon, {**body, "log_level": "debug"})
        assert status == 400, (body, answer)
        assert answer["error"].startswith(error), answer
    status, answer = http("PATCH", daemon.url("/api/settings"), b"[1]")[:2]
    assert status == 400 and "JSON object" in answer["error"]
    # Nothing of a refused patch was kept, the good key beside the bad one included.
    assert read_settings(data_dir) == before
    assert get_json(daemon, "/api/settings").get("log_level", "info") == "info"


def test_the_mask_written_back_keeps_a_secret_and_null_clears_one(daemon_factory, data_dir):
    write_settings(data_dir, {"smarthome": {"url": "http://127.0.0.1:1", "token": "t" * 20}})
    daemon = daemon_factory()
    shown = get_json(daemon, "/api/settings")
    shown["smarthome"]["url"] = "http://127.0.0.1:2"
    status, body = patch(daemon, {"smarthome": shown["smarthome"]})
    assert status == 200, body
    saved = read_settings(data_dir)
    assert saved["smarthome"] == {"url": "http://127.0.0.1:2", "token": "t" * 20}
    status, body = patch(daemon, {"smarthome": None})
    assert status == 200, body
    assert "smarthome" not in body["settings"]
    # Null in the file: a later reload clears it too instead of keeping the running value.
    assert read_settings(data_dir)["smarthome"] is None


def test_secrets_and_access_rules_need_login_or_a_local_client(daemon_factory, data_dir):
    address = other_address()
    daemon = daemon_factory("--bind", "0.0.0.0")
    remote = f"http://{address}:{daemon.ports['controller']}"
    before = settled_settings(daemon, data_dir)
    for body in ({"mqtt": {"url": "mqtt://example.org"}}, {"auth_enabled": True},
                 {"smarthome": {"url": "http://attacker.example"}}, {"plugins": {}},
                 {"http_macro_allow": ["127.0.0.1"]}, {"bind_address": "127.0.0.1"}):
        status, answer = patch(daemon, body, base=remote)
        assert status == 403, (body, answer)
        key = next(iter(body))
        assert answer["error"].startswith(key + " holds a secret or an access rule"), answer
        assert "needs login" in answer["error"]
    assert read_settings(data_dir) == before
    # The live controls' settings stay open to the network while login is off.
    status, body = patch(daemon, {"master_volume": 30}, base=remote)
    assert status == 200, body
    # The same secret change from this machine is taken.
    status, body = patch(daemon, {"mqtt": {"url": "mqtt://127.0.0.1:1"}})
    assert status == 200, body
    # Another web page cannot make it even from this machine (the browser is local).
    status, body = patch(daemon, {"mqtt": None}, headers={"Origin": "http://evil.example"})
    assert status == 403, body


def test_with_login_on_every_change_needs_a_session_and_a_session_may_change_secrets(
        daemon_factory, data_dir):
    os.makedirs(data_dir, exist_ok=True)
    r = subprocess.run([MIXERD_BIN, "set-password", "admin", "--data-dir", data_dir],
                       input="correct horse\n", capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    address = other_address()
    daemon = daemon_factory("--bind", "0.0.0.0")
    remote = f"http://{address}:{daemon.ports['controller']}"
    # Even this machine gets no change (and no settings) without a session.
    assert patch(daemon, {"master_volume": 30})[0] == 401
    assert http("GET", daemon.url("/api/settings"))[0] == 401
    status, _, headers = http("POST", remote + "/api/auth/login",
                              {"username": "admin", "password": "correct horse"})
    assert status == 200
    cookie = {"Cookie": headers["Set-Cookie"].split(";")[0]}
    status, body = patch(daemon, {"mqtt": {"url": "mqtt://127.0.0.1:1"}}, headers=cookie,
                         base=remote)
    assert status == 200, body
    assert read_settings(data_dir)["mqtt"] == {"url": "mqtt://127.0.0.1:1"}
    assert body["settings"]["auth_password_hash"] == "********"


def history(daemon):
    return get_json(daemon, "/api/config/history")["history"]


def test_history_names_each_change_and_a_rollback_goes_back_live(daemon_factory, device, data_dir):
    daemon = daemon_factory("--serial", device.path)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="connected")
    sliders = slider_settings(daemon)
    sliders[0]["label"] = "Game"
    assert patch(daemon, {"sliders": sliders})[0] == 200
    device.expect("VOL,0,Game,50")
    sliders[0]["label"] = "Oops"
    assert patch(daemon, {"sliders": sliders}, headers={"X-Mixerd-Source": "web"})[0] == 200
    device.expect("VOL,0,Oops,50")
    # Live state is no configuration: a volume change keeps no version.
    assert patch(daemon, {"master_volume": 20})[0] == 200
    entries = history(daemon)
    assert [(e["source"], e["summary"]) for e in entries[:2]] == [
        ("web", "sliders[0].label"), ("api", "sliders")]
    assert all(set(e) == {"id", "time", "source", "summary"} for e in entries)

    status, body = http("POST", daemon.url("/api/config/rollback"), {"id": entries[0]["id"]})[:2]
    assert status == 200, body
    assert body["settings"]["sliders"][0]["label"] == "Game"
    device.expect("VOL,0,Game,50")
    assert read_settings(data_dir)["sliders"][0]["label"] == "Game"
    # Going back restores configuration, not live state: the volume set since stays.
    assert get_json(daemon, "/api/volume/master") == {"volume": 20}
    assert read_settings(data_dir)["master_volume"] == 20
    newest = history(daemon)[0]
    assert (newest["source"], newest["summary"]) == ("rollback", "sliders[0].label")
    # The rollback is undone like any change.
    assert http("POST", daemon.url("/api/config/rollback"), {"id": newest["id"]})[0] == 200
    device.expect("VOL,0,Oops,50")

    assert http("POST", daemon.url("/api/config/rollback"), {"id": "99999"})[:2] == (
        404, {"error": "There is no history entry 99999"})
    assert http("POST", daemon.url("/api/config/rollback"), {})[:2] == (
        400, {"error": "Missing field: id"})


def test_history_keeps_the_last_50_and_survives_kill_9_in_the_middle_of_writes(
        daemon_factory, data_dir):
    daemon = daemon_factory()
    # socketio_max_sessions: configuration that a test's daemon does not feel (the log level
    # would hide the lines the harness waits for).
    for i in range(55):
        assert patch(daemon, {"socketio_max_sessions": 100 + i % 2})[0] == 200
    entries = history(daemon)
    assert len(entries) == 50
    ids = [int(e["id"]) for e in entries]
    assert ids == sorted(ids, reverse=True) and ids[0] - ids[-1] == 49
    folder = os.path.join(data_dir, "history")
    assert len([n for n in os.listdir(folder) if n.endswith(".json")]) == 50

    # Killed while it writes, again and again: every start finds a valid file and history.
    for delay in (0.01, 0.03, 0.05, 0.08, 0.13):
        stop = threading.Event()

        def hammer(d=daemon):
            i = 0
            while not stop.is_set():
                try:
                    patch(d, {"socketio_max_sessions": 100 + i % 2})
                except OSError:
                    return
                i += 1

        worker = threading.Thread(target=hammer)
        worker.start()
        time.sleep(delay)
        daemon.stop(signal.SIGKILL)
        stop.set()
        worker.join()
        daemon = daemon_factory()
        entries = history(daemon)
        assert 1 <= len(entries) <= 50
        assert len([n for n in os.listdir(folder) if n.endswith(".json")]) == len(entries)
        assert not [n for n in os.listdir(folder) if n.startswith(".")]
    assert read_settings(data_dir)["socketio_max_sessions"] in (100, 101)


def test_the_command_line_keeps_its_own_entry_and_the_reload_after_it_adds_none(
        daemon_factory, data_dir):
    daemon = daemon_factory()
    assert patch(daemon, {"socketio_max_sessions": 99})[0] == 200
    r = subprocess.run([MIXERD_BIN, "set-password", "admin", "--data-dir", data_dir],
                       input="correct horse\n", capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    # The login turns on once the auth actor has the reloaded settings.
    wait_until(lambda: get_json(daemon, "/api/auth/status")["auth_enabled"], what="login on")
    status, _, headers = http("POST", daemon.url("/api/auth/login"),
                              {"username": "admin", "password": "correct horse"})
    assert status == 200
    cookie = {"Cookie": headers["Set-Cookie"].split(";")[0]}
    status, body, _ = http("GET", daemon.url("/api/config/history"), headers=cookie)
    assert status == 200
    assert [(e["source"], e["summary"]) for e in body["history"][:2]] == [
        ("cli", "auth_enabled, auth_password_hash, auth_username"),
        ("api", "socketio_max_sessions")]


def test_an_export_holds_settings_macros_and_profiles_but_no_secret(daemon_factory, data_dir):
    write_settings(data_dir, {"mqtt": {"url": "mqtt://127.0.0.1:1", "username": "mixer",
                                       "password": "broker-pw"},
                              "smarthome": {"url": "http://127.0.0.1:1", "token": "t" * 20}})
    daemon = daemon_factory()
    assert http("POST", daemon.url("/api/profiles"), {"name": "Night", "icon": "moon"})[0] == 201
    status, body, headers = http("GET", daemon.url("/api/config/export"))
    assert status == 200
    assert headers["Content-Disposition"].startswith('attachment; filename="mixerd-config-')
    assert body["mixerd_config"] == 1 and body["secrets"] is False
    settings = body["settings"]
    assert settings["mqtt"] == {"url": "mqtt://127.0.0.1:1", "username": "mixer"}
    assert settings["smarthome"] == {"url": "http://127.0.0.1:1"}
    for secret in ("toast_api_key", "plant_store_token"):
        assert secret not in settings
    text = json.dumps(body)
    saved = read_settings(data_dir)
    for value in (saved["toast_api_key"], saved["plant_store_token"], "broker-pw", "t" * 20):
        assert value not in text
    names = [p["name"] for p in body["profiles"]]
    assert names == ["Default", "Night"]
    assert body["profiles"][1]["icon"] == "moon"


def export(daemon, headers=None):
    status, body, _ = http("GET", daemon.url("/api/config/export"), headers=headers)
    assert status == 200, body
    return body


def profile_names(daemon):
    return [p["name"] for p in get_json(daemon, "/api/profiles")["profiles"]]


def test_an_import_brings_back_an_export_with_profiles_and_keeps_the_secrets(
        daemon_factory, device, data_dir):
    daemon = daemon_factory("--serial", device.path)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="connected")
    sliders = slider_settings(daemon)
    sliders[0]["label"] = "Game"
    assert patch(daemon, {"sliders": sliders,
                          "mqtt": {"url": "mqtt://127.0.0.1:1", "username": "mixer",
                                   "password": "broker-pw"}})[0] == 200
    device.expect("VOL,0,Game,50")
    backup = export(daemon)
    key = read_settings(data_dir)["toast_api_key"]

    # Changed since the backup: a label and a new profile.
    sliders[0]["label"] = "Oops"
    assert patch(daemon, {"sliders": sliders})[0] == 200
    device.expect("VOL,0,Oops,50")
    assert http("POST", daemon.url("/api/profiles"), {"name": "Later"})[0] == 201

    status, body = http("POST", daemon.url("/api/config/import"), backup)[:2]
    assert status == 200, body
    assert body["settings"]["sliders"][0]["label"] == "Game"
    device.expect("VOL,0,Game,50")
    assert profile_names(daemon) == ["Default"]
    saved = read_settings(data_dir)
    # The export had no secrets: the running ones stayed, the broker's password with its broker.
    assert saved["toast_api_key"] == key
    assert saved["mqtt"]["password"] == "broker-pw"
    assert history(daemon)[0]["summary"] == "sliders[0].label"


def test_a_bad_import_names_the_first_bad_key_and_changes_nothing(daemon_factory, data_dir):
    daemon = daemon_factory()
    assert http("POST", daemon.url("/api/profiles"), {"name": "Night"})[0] == 201
    backup = export(daemon)
    before = settled_settings(daemon, data_dir)
    broken = json.loads(json.dumps(backup))
    broken["settings"]["master_volume"] = 500
    broken["profiles"] = []
    assert http("POST", daemon.url("/api/config/import"), broken)[:2] == (
        400, {"error": "settings.master_volume must be an integer from 0 to 100"})
    broken = json.loads(json.dumps(backup))
    broken["profiles"][1]["sliders"] = []
    status, body = http("POST", daemon.url("/api/config/import"), broken)[:2]
    assert status == 400 and body["error"].startswith("profiles[1].sliders "), body
    assert http("POST", daemon.url("/api/config/import"), {"settings": {}})[:2] == (
        400, {"error": "mixerd_config must be 1 (a file of GET /api/config/export)"})
    assert read_settings(data_dir) == before
    assert profile_names(daemon) == ["Default", "Night"]


def test_an_import_needs_login_or_a_local_client_and_takes_a_large_file(daemon_factory, data_dir):
    address = other_address()
    daemon = daemon_factory("--bind", "0.0.0.0")
    remote = f"http://{address}:{daemon.ports['controller']}"
    backup = export(daemon)
    status, body = http("POST", remote + "/api/config/import", backup)[:2]
    assert status == 403 and "needs login" in body["error"], body
    # Many profiles: far past the 64 KiB other requests may carry.
    backup["profiles"] += [dict(backup["profiles"][0], name=f"Copy {i}") for i in range(40)]
    assert len(json.dumps(backup)) > 64 * 1024
    status, body = http("POST", daemon.url("/api/config/import"), backup)[:2]
    assert status == 200, body
    assert len(profile_names(daemon)) == 41
    # Other requests keep their limit.
    status, body = http("PATCH", daemon.url("/api/settings"), b"{" + b" " * 70000 + b"}")[:2]
    assert status == 413, body
    # The import's own limit holds too: a declared length past 8 MiB is refused before its body.
    with socket.create_connection(("127.0.0.1", daemon.ports["controller"]), timeout=5) as s:
        s.sendall(b"POST /api/config/import HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Content-Type: application/json\r\nContent-Length: 9000000\r\n\r\n{")
        answer = s.recv(4096).decode()
    assert answer.startswith("HTTP/1.1 413 "), answer
    assert "limit 8388608 bytes" in answer


def test_the_display_brightness_reaches_the_device_on_connect_and_on_change(
        daemon_factory, device, data_dir):
    # Absent: mixerd sends none (the device keeps its own).
    write_settings(data_dir, {"device_brightness": 40})
    daemon = daemon_factory("--serial", device.path)
    device.expect("BRIGHTNESS,40")
    status, body = patch(daemon, {"device_brightness": 75})
    assert status == 200, body
    device.expect("BRIGHTNESS,75")
    status, body = patch(daemon, {"device_brightness": 101})
    assert (status, body) == (400, {"error": "device_brightness must be an integer from 0 to 100"})
    assert read_settings(data_dir)["device_brightness"] == 75


def test_no_brightness_is_sent_while_the_setting_is_absent(daemon_factory, device, data_dir):
    daemon = daemon_factory("--serial", device.path)
    device.expect("MASTER,50")
    status, body = patch(daemon, {"master_volume": 60})
    assert status == 200, body
    line = device.expect(lambda line: line.startswith(("BRIGHTNESS", "MASTER,60")), what="MASTER,60")
    assert line == "MASTER,60"
