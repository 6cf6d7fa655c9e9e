"""Hardening round two, 7. A settings.json that is empty, blank or leaves keys out must never cost
a secret or an access rule. An empty or blank file is broken like any other: refused at start
(exit 2) and on SIGHUP (running state kept), never written over by a save. A valid file that
leaves a guarded key out (the login, the notification API key, the plant store token, the
metrics token, allowed_hosts, the session limits, the stream, smarthome and mqtt objects with
their passwords and tokens) keeps the running value, and the file gets it back.

The daemon runs with a login (set-password), every secret set, and a fake device whose mute
presses make the daemon save. Each round writes a bad file, sends SIGHUP, presses a mute (a
save), then reads what a user would notice: whether the login is still asked for, whether the
old API key and plant store token still open their listeners, what the file holds and its size.
Then the good file is put back for the next round. At the end the daemon restarts on the file
the rounds left: the old API key must still work.
"""
import json
import os
import signal
import subprocess

from fault_support import figures, scaled, stop_cleanly
from integration_harness import MIXERD_BIN, Daemon, FakeDevice, http, wait_until, write_settings

BLANKS = scaled(["", " ", "\n", " \n\t\r\n", "\n" * 4096, " " * 65536], ["", " \n\t\r\n"])
SECRETS = {
    "metrics_token": "metrics-token-0123456789",
    "allowed_hosts": ["mixer.example.com"],
    "session_timeout": 600,
    "stream": {"url": "ws://127.0.0.1:9", "password": "obs-secret"},
    "smarthome": {"url": "http://127.0.0.1:9", "token": "ha-long-lived-token"},
    "mqtt": {"url": "mqtt://127.0.0.1:9", "username": "mixerd", "password": "broker-secret"},
}
# Keys the set-password and first-start steps add.
GENERATED = ("toast_api_key", "plant_store_token", "auth_enabled", "auth_username",
             "auth_password_hash")


def read_text(path):
    with open(path, newline="") as f:  # as written: "\r\n" stays two bytes
        return f.read()


def partial_files(good):
    """Valid files that leave guarded keys out: none at all, only an ordinary key, and (full
    scale) the good file without each guarded key in turn."""
    files = [{}, {"master_volume": 30}]
    for key in scaled(list(SECRETS) + list(GENERATED), ["auth_enabled", "toast_api_key"]):
        files.append({k: v for k, v in good.items() if k != key})
    return files


class Probe:
    """What a user notices about the running daemon and its file."""

    def __init__(self, daemon, device, path, good):
        self.daemon, self.device, self.path, self.good = daemon, device, path, good

    def save(self, mark):
        """A mute press: the daemon saves 250 ms later, or logs that the file is broken."""
        before = os.stat(self.path).st_mtime_ns
        self.device.send("MUTE,1,PRESS")
        # A reload may have set the mute too: any answer will do, the save is what counts.
        self.device.expect(lambda line: line.startswith("MUTE,1,"), what="MUTE,1,<state>")
        wait_until(lambda: os.stat(self.path).st_mtime_ns != before or any(
            "not saving, the file is broken" in line for line in self.daemon.log[mark:]),
            timeout=5, what="a save or its refusal")

    def read(self):
        api_key, token = self.good["toast_api_key"], self.good["plant_store_token"]
        toast = http("GET", self.daemon.url("/api/toast/status", "notification API"),
                     headers={"X-API-Key": api_key})[0]
        plants = http("DELETE", self.daemon.url("/plants/999999999", "plant store"),
                      headers={"Authorization": f"Bearer {token}"})[0]
        text = read_text(self.path)
        try:
            on_disk = json.loads(text)
        except ValueError:
            on_disk = None
        kept = [k for k in (*GENERATED, *SECRETS)
                if isinstance(on_disk, dict) and on_disk.get(k) == self.good[k]]
        return {"login_required": http("GET", self.daemon.url("/api/sliders"))[0] == 401,
                "old_api_key_works": toast == 200, "old_plant_token_works": plants == 400,
                "file_bytes": len(text.encode()),
                "secrets_in_file": f"{len(kept)}/{len(GENERATED) + len(SECRETS)}"}


def sighup(daemon, word):
    """SIGHUP; waits for the settings actor's answer (`word`: reloaded or reload ignored)."""
    mark = len(daemon.log)
    daemon.proc.send_signal(signal.SIGHUP)
    wait_until(lambda: any(f"settings: {word}" in line or "reload ignored" in line
                           for line in daemon.log[mark:]), what=f"settings: {word}")
    return mark


def put_back(daemon, path, good):
    write_settings(os.path.dirname(path), good)
    sighup(daemon, "reloaded")


def test_empty_or_partial_settings_never_cost_a_secret(tmp_path):
    data = str(tmp_path / "data")
    os.makedirs(data)
    for args, stdin in ((["api-key"], None), (["set-password", "admin"], "correct horse\n")):
        r = subprocess.run([MIXERD_BIN, *args, "--data-dir", data], input=stdin,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
    path = os.path.join(data, "settings.json")
    good = {**json.loads(read_text(path)), **SECRETS}
    write_settings(data, good)
    device = FakeDevice(str(tmp_path))
    daemon = Daemon(data, ("--serial", device.path)).start()
    try:
        probe = Probe(daemon, device, path, good)
        device.expect("MASTER,50", timeout=10)
        first = probe.read()
        assert first["login_required"] and first["old_api_key_works"], first

        blank_rounds = []
        for text in BLANKS:
            write_settings(data, text)
            mark = sighup(daemon, "reloaded")
            refused = any("reload ignored" in line for line in daemon.log[mark:])
            probe.save(mark)
            blank_rounds.append({"refused": refused, **probe.read()})
            untouched = read_text(path) == text
            blank_rounds[-1]["file_untouched"] = untouched
            put_back(daemon, path, good)
        figures("empty settings.json + SIGHUP + a save", rounds=len(blank_rounds),
                **blank_rounds[0])

        partial_rounds = []
        for content in partial_files(good):
            write_settings(data, content)
            mark = sighup(daemon, "reloaded")
            probe.save(mark)
            partial_rounds.append({"left_out": len([k for k in (*GENERATED, *SECRETS)
                                                    if k not in content]), **probe.read()})
            put_back(daemon, path, good)
        figures("settings.json without guarded keys + SIGHUP + a save",
                rounds=len(partial_rounds), **partial_rounds[0])

        # The last round again, and the daemon restarted on what it leaves.
        write_settings(data, {})
        probe.save(sighup(daemon, "reloaded"))
        stop_cleanly(daemon)
        daemon = Daemon(data, ("--serial", device.path)).start()
        probe.daemon = daemon
        after_restart = probe.read()
        figures("restarted after the {} reload", **after_restart)
    finally:
        daemon.stop()
        device.close()

    # A user notices none of it: every round kept the login, the keys and the file.
    for r in blank_rounds:
        assert r["refused"] and r["file_untouched"], r
        assert r["login_required"] and r["old_api_key_works"] and r["old_plant_token_works"], r
    for r in partial_rounds:
        assert r["login_required"] and r["old_api_key_works"] and r["old_plant_token_works"], r
        assert r["secrets_in_file"] == f"{len(GENERATED) + len(SECRETS)}/" \
                                       f"{len(GENERATED) + len(SECRETS)}", r
    assert after_restart["login_required"] and after_restart["old_api_key_works"], after_restart


def test_start_with_an_empty_file_exits_2_and_leaves_it(tmp_path):
    outcomes = []
    for i, text in enumerate(BLANKS):
        data = str(tmp_path / f"data{i}")
        path = write_settings(data, text)
        proc = subprocess.Popen([MIXERD_BIN, "--data-dir", data, "--serial", "none", "--bind",
                                 "127.0.0.1", "--controller-port", "0", "--toast-port", "0",
                                 "--plants-port", "0"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        try:
            out, _ = proc.communicate(timeout=5)
            code = proc.returncode
        except subprocess.TimeoutExpired:  # it started: stop it
            proc.send_signal(signal.SIGTERM)
            out, _ = proc.communicate(timeout=10)
            code = "started"
        outcomes.append({"exit": code, "file_bytes_before": len(text.encode()),
                         "file_bytes_after": len(read_text(path).encode()),
                         "says_empty": f"{path}: is empty" in out})
    figures("start with an empty settings.json", rounds=len(outcomes), **outcomes[0])
    for o in outcomes:
        assert o["exit"] == 2 and o["says_empty"], o
        assert o["file_bytes_after"] == o["file_bytes_before"], o
