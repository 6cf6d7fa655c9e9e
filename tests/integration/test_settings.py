"""settings.json: validation at start, generated secrets, persistence, SIGHUP, the lock."""
import json
import os
import signal
import stat
import subprocess

from conftest import MIXERD_BIN, get_json, http, wait_until, write_settings


def read_settings(data_dir):
    with open(os.path.join(data_dir, "settings.json")) as f:
        return json.load(f)


def run(*args, stdin=None, timeout=20):
    return subprocess.run([MIXERD_BIN, *args], input=stdin, capture_output=True, text=True, timeout=timeout)


def test_first_start_generates_secrets_with_mode_0600(daemon_factory, data_dir):
    daemon_factory("--serial", "none")
    path = os.path.join(data_dir, "settings.json")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    s = read_settings(data_dir)
    for key in ("toast_api_key", "plant_store_token"):
        assert len(s[key]) == 64 and int(s[key], 16) >= 0
    assert s["toast_api_key"] != s["plant_store_token"]


def test_broken_json_exits_2_and_leaves_file_untouched(data_dir):
    path = write_settings(data_dir, '{\n  "controller_port": 5000,\n  "auth_enabled": tru\n}\n')
    before = open(path, "rb").read()
    mtime = os.stat(path).st_mtime_ns
    r = run("--data-dir", data_dir, "--serial", "none", "--controller-port", "0")
    assert r.returncode == 2
    assert path in r.stderr and ":3:" in r.stderr and "not valid JSON" in r.stderr
    assert open(path, "rb").read() == before and os.stat(path).st_mtime_ns == mtime


def test_bad_value_names_key_and_line(data_dir):
    path = write_settings(data_dir, '{\n  "toast_port": 8889,\n  "controller_port": "five"\n}\n')
    before = open(path, "rb").read()
    r = run("--data-dir", data_dir, "--serial", "none")
    assert r.returncode == 2
    assert f"{path}:3: key 'controller_port' must be an integer from 0 to 65535" in r.stderr
    assert open(path, "rb").read() == before


def test_bad_nested_assignment_is_named(data_dir):
    write_settings(data_dir, {"sliders": [{"label": "A"}, {"assignment": {"type": "speakers"}}]})
    r = run("--data-dir", data_dir, "--serial", "none")
    assert r.returncode == 2
    assert "sliders[1].assignment.type" in r.stderr


def test_labels_assignments_and_mutes_survive_restart(daemon_factory, device, data_dir):
    write_settings(data_dir, {
        "sliders": [
            {"label": "Music", "assignment": {"type": "app", "names": ["Spotify", "spotify"]}},
            {"label": "Mic", "assignment": {"type": "system_default_input"}},
        ],
        "custom_key_from_a_newer_version": {"kept": True},
    })
    daemon = daemon_factory("--serial", device.path)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="connected")
    device.expect("VOL,0,Music,50")
    device.expect("VOL,1,Mic,50")
    device.send("MUTE,2,PRESS")
    device.expect("MUTE,2,1")
    # Saved on its own shortly after the change, and the daemon keeps saving afterwards.
    wait_until(lambda: read_settings(data_dir).get("mutes", {}).get("individual") == [False, False, True, False],
               what="mutes saved")
    device.send("ENCODER,-5")
    device.expect("MASTER,40")
    assert daemon.stop() == 0
    saved = read_settings(data_dir)
    assert saved["custom_key_from_a_newer_version"] == {"kept": True}

    daemon2 = daemon_factory("--serial", device.path)
    sliders = get_json(daemon2, "/api/sliders")["sliders"]
    assert sliders[0]["label"] == "Music"
    assert sliders[0]["assignment"] == {"type": "app", "names": ["Spotify", "spotify"]}
    assert sliders[1]["label"] == "Mic" and sliders[1]["assignment"] == {"type": "system_default_input"}
    assert sliders[2]["label"] == "Slider 3" and sliders[2]["assignment"] == {"type": "unassigned"}
    assert get_json(daemon2, "/api/mutes")["individual"] == [False, False, True, False]
    assert get_json(daemon2, "/api/volume/master") == {"volume": 40}


def test_sighup_reloads_and_broken_file_is_ignored(daemon_factory, device, data_dir):
    daemon = daemon_factory("--serial", device.path)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="connected")
    device.expect("MASTER,50")
    s = read_settings(data_dir)
    s["sliders"] = [{"label": "Game", "assignment": {"type": "app", "names": ["game"]}}]
    s["master_volume"] = 70
    write_settings(data_dir, s)
    daemon.proc.send_signal(signal.SIGHUP)
    device.expect("VOL,0,Game,50")
    device.expect("MASTER,70")
    assert get_json(daemon, "/api/volume/master") == {"volume": 70}
    assert get_json(daemon, "/api/sliders")["sliders"][0]["label"] == "Game"

    path = write_settings(data_dir, "{ broken")
    daemon.proc.send_signal(signal.SIGHUP)
    daemon.wait_log("reload ignored")
    assert get_json(daemon, "/api/sliders")["sliders"][0]["label"] == "Game"
    assert open(path).read() == "{ broken"
    assert daemon.proc.poll() is None


def test_api_key_command_with_and_without_daemon(daemon_factory, data_dir):
    r = run("api-key", "--data-dir", data_dir)
    assert r.returncode == 0
    key = r.stdout.strip()
    assert len(key) == 64
    daemon_factory("--serial", "none")
    assert run("api-key", "--data-dir", data_dir).stdout.strip() == key
    assert read_settings(data_dir)["toast_api_key"] == key


def test_set_password_stores_salted_hash_and_signals_daemon(daemon_factory, data_dir):
    daemon = daemon_factory("--serial", "none")
    r = run("set-password", "admin", "--data-dir", data_dir, stdin="s3cret word\n")
    assert r.returncode == 0, r.stderr
    s = read_settings(data_dir)
    assert s["auth_enabled"] is True and s["auth_username"] == "admin"
    scheme, iterations, salt, digest = s["auth_password_hash"].split("$")
    assert scheme == "pbkdf2_sha256" and int(iterations) >= 200000 and len(salt) == 32 and len(digest) == 64
    assert "s3cret" not in json.dumps(s)
    daemon.wait_log("SIGHUP")
    daemon.wait_log("reloaded")
    r2 = run("set-password", "admin", "--data-dir", data_dir, stdin="s3cret word\n")
    assert read_settings(data_dir)["auth_password_hash"] != s["auth_password_hash"]  # new salt
    assert r2.returncode == 0


def test_set_password_refuses_empty_password(data_dir):
    r = run("set-password", "admin", "--data-dir", data_dir, stdin="\n")
    assert r.returncode == 2 and "must not be empty" in r.stderr


def test_second_daemon_on_same_data_dir_exits_1(daemon_factory, data_dir):
    daemon_factory("--serial", "none")
    r = run("--data-dir", data_dir, "--serial", "none", "--controller-port", "0", "--toast-port", "0",
            "--plants-port", "0")
    assert r.returncode == 1
    assert "another mixerd" in r.stderr and data_dir in r.stderr


def test_empty_file_exits_2_and_leaves_file_untouched(data_dir):
    for text in ("", " \n\t\n"):
        path = write_settings(data_dir, text)
        mtime = os.stat(path).st_mtime_ns
        r = run("--data-dir", data_dir, "--serial", "none", "--controller-port", "0")
        assert r.returncode == 2, r.stderr
        assert f"{path}: is empty" in r.stderr
        assert open(path).read() == text and os.stat(path).st_mtime_ns == mtime
        # The subcommands refuse it the same way.
        r = run("api-key", "--data-dir", data_dir)
        assert r.returncode == 2 and "is empty" in r.stderr
        assert open(path).read() == text


def test_sighup_clears_only_what_the_file_names(daemon_factory, data_dir):
    """A key set to null or to its off value is cleared; a key left out keeps its value."""
    assert run("set-password", "admin", "--data-dir", data_dir, stdin="pw one\n").returncode == 0
    daemon = daemon_factory("--serial", "none")
    s = read_settings(data_dir)
    old_key = s["toast_api_key"]
    assert http("GET", daemon.url("/api/sliders"))[0] == 401

    # Left out: kept (and written back); the login stays on.
    write_settings(data_dir, {"master_volume": 30})
    daemon.proc.send_signal(signal.SIGHUP)
    daemon.wait_log("leaves out")
    daemon.wait_log("reloaded")
    assert http("GET", daemon.url("/api/sliders"))[0] == 401
    wait_until(lambda: read_settings(data_dir).get("auth_password_hash") == s["auth_password_hash"],
               what="the hash written back")
    assert read_settings(data_dir)["toast_api_key"] == old_key

    # Named: auth_enabled false turns the login off, null makes a new API key.
    kept = read_settings(data_dir)
    write_settings(data_dir, {**kept, "auth_enabled": False, "toast_api_key": None})
    mark = len(daemon.log)
    daemon.proc.send_signal(signal.SIGHUP)
    wait_until(lambda: any("reloaded" in line for line in daemon.log[mark:]), what="reloaded")
    wait_until(lambda: http("GET", daemon.url("/api/sliders"))[0] == 200, what="login off")
    new_key = wait_until(lambda: read_settings(data_dir).get("toast_api_key"), what="a new key")
    assert new_key != old_key and len(new_key) == 64
    status = lambda key: http("GET", daemon.url("/api/toast/status", "notification API"),
                              headers={"X-API-Key": key})[0]
    assert status(new_key) == 200 and status(old_key) == 401
