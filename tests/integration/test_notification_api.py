"""The notification interface (docs/api.md, section 4) against the real daemon and a pty device.

Every call goes over real loopback HTTP; the source address is chosen per call so that the per-address
rate limit can be exercised (127.0.0.2 is a second loopback address on Linux).
"""
import http.client
import json
import os
import re
import socket
import ssl
import stat
import subprocess
import threading
import time

from conftest import MIXERD_BIN, get_json, make_cert_pair, reply_of, wait_until

TOAST = "notification API"
HEX64 = re.compile(r"^[0-9a-f]{64}$")
KEYED = [("POST", "/api/toast/send"), ("GET", "/api/toast/handlers"), ("GET", "/api/toast/status"),
         ("GET", "/api/toast/network"), ("POST", "/api/toast/regenerate"),
         ("POST", "/api/toast/handlers/api")]

# Recorded from `tailscale status --json` (1.58) and shortened; DNSName keeps its trailing dot.
TAILSCALE_STATUS = {
    "Version": "1.58.2-t0e7b9b1b2-g8c7e9a1b5",
    "TUN": True,
    "BackendState": "Running",
    "AuthURL": "",
    "TailscaleIPs": ["100.101.102.103", "fd7a:115c:a1e0::1f01:6667"],
    "Self": {
        "ID": "nKx8f3CNTRL",
        "PublicKey": "nodekey:3f1c0d2e5a",
        "HostName": "mixer-pi",
        "DNSName": "mixer-pi.tail1234.ts.net.",
        "OS": "linux",
        "UserID": 123456789,
        "TailscaleIPs": ["100.101.102.103", "fd7a:115c:a1e0::1f01:6667"],
        "Addrs": ["192.0.2.10:41641"],
        "Online": True,
    },
    "MagicDNSSuffix": "tail1234.ts.net",
    "CurrentTailnet": {"Name": "someone@example.com", "MagicDNSSuffix": "tail1234.ts.net",
                       "MagicDNSEnabled": True},
    "Peer": {},
}


def call(daemon, method, path, body=None, key=None, headers=None, source="127.0.0.1", tls_ca=None):
    """One request to the notification port from `source`; returns (status, JSON or text, headers)."""
    port = daemon.ports[TOAST]
    if tls_ca:
        ctx = ssl.create_default_context(cafile=tls_ca)
        ctx.check_hostname = False
        conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=10, source_address=(source, 0),
                                           context=ctx)
    else:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    hdrs = dict(headers or {})
    if key is not None:
        hdrs["X-API-Key"] = key
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        hdrs.setdefault("Content-Type", "application/json")
    try:
        conn.request(method, path, body=data, headers=hdrs)
        return reply_of(conn.getresponse())
    finally:
        conn.close()


def settings_of(data_dir):
    with open(os.path.join(data_dir, "settings.json")) as f:
        return json.load(f)


def key_of(data_dir):
    return settings_of(data_dir)["toast_api_key"]


def api_key_command(data_dir):
    r = subprocess.run([MIXERD_BIN, "api-key", "--data-dir", data_dir], capture_output=True, text=True,
                       timeout=20, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def next_toast(device, timeout=5.0):
    """The next TOAST line the device got, skipping the system handler's link toasts."""
    return device.expect(lambda l: l.startswith("TOAST,") and ",Mixer " not in l, timeout=timeout,
                         what="a TOAST line")


def fake_tailscale(folder, status=TAILSCALE_STATUS, hang=False):
    """An executable `tailscale` in `folder` that answers `status --json`; returns the calls log path."""
    os.makedirs(folder, exist_ok=True)
    calls = os.path.join(folder, "calls")
    script = os.path.join(folder, "tailscale")
    body = "exec sleep 30\n" if hang else f"cat <<'EOF'\n{json.dumps(status, indent=2)}\nEOF\n"
    with open(script, "w") as f:
        f.write("#!/bin/sh\n"
                f"echo \"$@\" >> '{calls}'\n"
                "if [ \"$1\" = status ] && [ \"$2\" = --json ]; then\n" + body + "exit 0\nfi\nexit 1\n")
    os.chmod(script, os.stat(script).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return calls


def with_path(folder):
    return {"PATH": folder + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")}


# ---- health, keys, routing ------------------------------------------------------------------------

def test_health_needs_no_key_and_reports_the_port(daemon_factory):
    d = daemon_factory("--serial", "none")
    port = d.ports[TOAST]
    status, body, _ = call(d, "GET", "/api/toast/health")
    assert (status, body) == (200, {"status": "ok", "version": "1.0", "port": port})
    status, body, hdrs = call(d, "POST", "/api/toast/health", key=key_of(d.data_dir))
    assert status == 405 and hdrs["Allow"] == "GET" and body["error"] == "Method not allowed"
    status, body, _ = call(d, "GET", "/api/toast/nothing")
    assert status == 404 and body == {"error": "Not found", "message": "No such endpoint: /api/toast/nothing"}


def test_every_keyed_endpoint_refuses_a_missing_or_wrong_key(daemon_factory):
    d = daemon_factory("--serial", "none")
    key = key_of(d.data_dir)
    for method, path in KEYED:
        status, body, _ = call(d, method, path, body={"message": "x", "enabled": True})
        assert status == 401, (path, body)
        assert body["error"] == "Unauthorized" and "X-API-Key" in body["message"]
        status, body, _ = call(d, method, path, key=key[:-1] + ("0" if key[-1] != "0" else "1"),
                               body={"message": "x", "enabled": True})
        assert (status, body) == (401, {"error": "Unauthorized", "message": "Invalid API key"}), path
    # Header names are case-insensitive; the query parameter works as well.
    assert call(d, "GET", "/api/toast/handlers", headers={"x-api-key": key})[0] == 200
    assert call(d, "GET", f"/api/toast/handlers?api_key={key}")[0] == 200
    assert call(d, "GET", "/api/toast/handlers?api_key=wrong")[0] == 401


def test_api_key_command_prints_the_key_in_settings(daemon_factory):
    d = daemon_factory("--serial", "none")
    key = key_of(d.data_dir)
    assert HEX64.match(key)
    assert api_key_command(d.data_dir) == key
    assert call(d, "GET", "/api/toast/status", key=key)[0] == 200


def test_status_reports_device_and_rate_limit(connected):
    daemon, device = connected
    status, body, _ = call(daemon, "GET", "/api/toast/status", key=key_of(daemon.data_dir))
    assert status == 200
    assert body == {"status": "success", "server_running": True, "device_connected": True,
                    "port": daemon.ports[TOAST], "rate_limit": {"window_seconds": 60, "max_requests": 30}}


# ---- send ---------------------------------------------------------------------------------------

def test_toast_reaches_the_device_as_an_escaped_line(connected):
    daemon, device = connected
    key = key_of(daemon.data_dir)
    status, body, _ = call(daemon, "POST", "/api/toast/send", key=key, body={
        "message": "Build, done \u2713", "icon": "checkmark", "subtitle": "C:\\out \u00e9t\u00e9",
        "duration_ms": 5000, "color": "#0f0"})
    assert status == 200 and body["status"] == "success" and body["message"]
    assert next_toast(device) == "TOAST,5000,checkmark,00FF00,Build\\, done \u2713,C:\\\\out \u00e9t\u00e9"
    # Defaults: bell, 3000 ms, the api handler's colour; text limits count characters.
    status, _, _ = call(daemon, "POST", "/api/toast/send", key=key, body={"message": "\u00e9" * 30})
    assert status == 200
    assert next_toast(device) == "TOAST,3000,bell,3B82F6," + "\u00e9" * 30 + ","
    # A typical body, key in the query.
    status, _, _ = call(daemon, "POST", f"/api/toast/send?api_key={key}", body={
        "message": "Build Complete!", "icon": "checkmark", "subtitle": "webpack compiled successfully",
        "duration_ms": 5000, "color": "00FF00"})
    assert status == 200
    assert next_toast(device) == "TOAST,5000,checkmark,00FF00,Build Complete!,webpack compiled successfully"


def test_a_toast_too_long_for_the_line_loses_subtitle_characters(connected):
    daemon, device = connected
    note = "\U0001F3B5"  # four bytes in UTF-8
    status, _, _ = call(daemon, "POST", "/api/toast/send", key=key_of(daemon.data_dir),
                        body={"message": note * 30, "subtitle": note * 40})
    assert status == 200
    line = next_toast(device)
    head = "TOAST,3000,bell,3B82F6," + note * 30 + ","
    assert line.startswith(head) and len(line.encode()) <= 255
    subtitle = line[len(head):]
    assert 0 < len(subtitle) < 40 and subtitle == note * len(subtitle)
    daemon.wait_log("shortened")


def test_bad_toasts_get_400_naming_the_field_and_reach_nothing(connected):
    daemon, device = connected
    key = key_of(daemon.data_dir)
    cases = [
        ({}, "message field is required"),
        ({"icon": "bell"}, "message field is required"),
        ({"message": 7}, "message must be a string"),
        ({"message": ""}, "message must not be empty"),
        ({"message": "x" * 31}, "message must be at most 30 characters (got 31)"),
        ({"message": "m", "subtitle": "\u00e9" * 41}, "subtitle must be at most 40 characters (got 41)"),
        ({"message": "m", "duration_ms": 999}, "duration_ms must be an integer from 1000 to 30000"),
        ({"message": "m", "duration_ms": 30001}, "duration_ms must be an integer from 1000 to 30000"),
        ({"message": "m", "duration_ms": 5000.0}, "duration_ms must be an integer from 1000 to 30000"),
        ({"message": "m", "duration_ms": "5000"}, "duration_ms must be an integer from 1000 to 30000"),
        ({"message": "m", "color": "#12"}, "color must be 3 or 6 hex digits, with or without a leading #"),
        ({"message": "m", "color": "GGGGGG"}, "color must be 3 or 6 hex digits, with or without a leading #"),
        (b"{not json", "Malformed JSON in request body"),
        ([1, 2], "Request body must be a JSON object"),
    ]
    for body, message in cases:
        status, answer, _ = call(daemon, "POST", "/api/toast/send", key=key, body=body)
        assert (status, answer) == (400, {"error": "Bad request", "message": message}), body
    status, answer, _ = call(daemon, "POST", "/api/toast/send", key=key, body={"message": "m", "icon": "rocket"})
    assert status == 400 and answer["message"].startswith("icon must be one of bell, checkmark")
    assert call(daemon, "POST", "/api/toast/send", key=key, body={"message": "probe"})[0] == 200
    assert next_toast(device) == "TOAST,3000,bell,3B82F6,probe,"


def test_toast_without_device_is_503(connected):
    daemon, device = connected
    key = key_of(daemon.data_dir)
    device.unplug()
    wait_until(lambda: not get_json(daemon, "/api/status")["connected"], what="unplugged")
    status, body, _ = call(daemon, "POST", "/api/toast/send", key=key, body={"message": "Hello"})
    assert (status, body) == (503, {"error": "Service unavailable", "message": "Device not connected"})
    assert call(daemon, "GET", "/api/toast/status", key=key)[1]["device_connected"] is False
    device.plug()
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="replugged")
    assert call(daemon, "POST", "/api/toast/send", key=key, body={"message": "Back"})[0] == 200
    assert next_toast(device) == "TOAST,3000,bell,3B82F6,Back,"


def test_the_system_handler_announces_the_link(connected):
    daemon, device = connected
    device.expect(lambda l: l.startswith("TOAST,") and l.endswith(",Mixer connected,"),
                  what="the connect toast")


# ---- rate limit ---------------------------------------------------------------------------------

def test_31st_request_in_a_minute_is_429_while_another_address_passes(daemon_factory):
    d = daemon_factory("--serial", "none")
    key = key_of(d.data_dir)
    # Everything but a 429 counts: health, 401s, 404s and good requests alike.
    kinds = [("GET", "/api/toast/health", None), ("GET", "/api/toast/status", "wrong"),
             ("GET", "/api/toast/nothing", None), ("GET", "/api/toast/status", key)]
    for i in range(30):
        method, path, k = kinds[i % len(kinds)]
        status, _, _ = call(d, method, path, key=k)
        assert status != 429, f"request {i + 1} was refused"
    status, body, hdrs = call(d, "GET", "/api/toast/health")
    assert (status, body) == (429, {"error": "Rate limited", "message": "Too many requests"})
    assert 50 <= int(hdrs["Retry-After"]) <= 60
    status, _, _ = call(d, "GET", "/api/toast/status", key=key)
    assert status == 429
    status, body, _ = call(d, "GET", "/api/toast/health", source="127.0.0.2")
    assert status == 200 and body["status"] == "ok"
    assert call(d, "GET", "/api/toast/status", key=key, source="127.0.0.2")[0] == 200


# ---- regenerate ---------------------------------------------------------------------------------

def test_regenerate_replaces_the_key_at_once(daemon_factory):
    d = daemon_factory("--serial", "none")
    old = key_of(d.data_dir)
    status, body, _ = call(d, "POST", "/api/toast/regenerate", key=old)
    assert status == 200
    new = body["api_key"]
    assert body == {"status": "success", "api_key": new, "message": "API key regenerated"}
    assert HEX64.match(new) and new != old
    # Answered after the save: the file and the command agree at once.
    assert key_of(d.data_dir) == new
    assert oct(os.stat(os.path.join(d.data_dir, "settings.json")).st_mode & 0o777) == "0o600"
    assert api_key_command(d.data_dir) == new
    assert call(d, "GET", "/api/toast/handlers", key=old)[0] == 401
    assert call(d, "GET", "/api/toast/handlers", key=new)[0] == 200
    assert call(d, "POST", "/api/toast/regenerate", key=old)[0] == 401


# ---- handlers -----------------------------------------------------------------------------------

def test_handlers_list(daemon_factory):
    d = daemon_factory("--serial", "none")
    status, body, _ = call(d, "GET", "/api/toast/handlers", key=key_of(d.data_dir))
    assert status == 200 and body["status"] == "success"
    handlers = {h["id"]: h for h in body["handlers"]}
    assert list(handlers) == ["api", "system", "stream", "smarthome", "music", "plugins"]
    for h in handlers.values():
        assert set(h) == {"id", "name", "enabled", "loaded", "color"}
        assert h["enabled"] is True and re.match(r"^#[0-9A-F]{6}$", h["color"])
        assert h["loaded"] is (h["id"] != "plugins")


def test_handler_switch_persists_across_a_restart(daemon_factory, data_dir):
    d = daemon_factory("--serial", "none")
    key = key_of(data_dir)
    status, body, _ = call(d, "POST", "/api/toast/handlers/system", key=key, body={"enabled": False})
    assert status == 200
    assert body == {"status": "success", "handler": {"id": "system", "name": "System", "enabled": False,
                                                      "loaded": True, "color": "#6B7280"}}
    status, body, _ = call(d, "POST", "/api/toast/handlers/calendar", key=key, body={"enabled": False})
    assert status == 404 and body["error"] == "Not found" and "calendar" in body["message"]
    for bad, message in (({}, "enabled field is required"), ({"enabled": "no"}, "enabled must be true or false"),
                         (b"[", "Malformed JSON in request body")):
        status, body, _ = call(d, "POST", "/api/toast/handlers/system", key=key, body=bad)
        assert (status, body) == (400, {"error": "Bad request", "message": message})
    status, _, hdrs = call(d, "GET", "/api/toast/handlers/system", key=key)
    assert status == 405 and hdrs["Allow"] == "POST"
    assert d.stop() == 0
    assert settings_of(data_dir)["toast_handlers"]["system"] is False
    d2 = daemon_factory("--serial", "none")
    handlers = call(d2, "GET", "/api/toast/handlers", key=key)[1]["handlers"]
    assert [h["enabled"] for h in handlers] == [True, False, True, True, True, True]


def test_a_disabled_handler_shows_nothing(connected):
    daemon, device = connected
    key = key_of(daemon.data_dir)
    assert call(daemon, "POST", "/api/toast/handlers/api", key=key, body={"enabled": False})[0] == 200
    status, body, _ = call(daemon, "POST", "/api/toast/send", key=key, body={"message": "hidden"})
    assert (status, body) == (503, {"error": "Service unavailable", "message": "The api handler is disabled"})
    assert call(daemon, "POST", "/api/toast/handlers/api", key=key, body={"enabled": True})[0] == 200
    assert call(daemon, "POST", "/api/toast/send", key=key, body={"message": "shown"})[0] == 200
    assert next_toast(device) == "TOAST,3000,bell,3B82F6,shown,"


# ---- network ------------------------------------------------------------------------------------

def has_overlay_interface():
    return any(name.startswith("tailscale") for _, name in socket.if_nameindex())


def test_network_with_a_specific_bind_address_lists_only_it(daemon_factory, tmp_path):
    empty = tmp_path / "nobin"
    empty.mkdir()
    d = daemon_factory("--serial", "none", env={"PATH": str(empty)})
    status, body, _ = call(d, "GET", "/api/toast/network", key=key_of(d.data_dir))
    port = d.ports[TOAST]
    assert status == 200
    assert body["status"] == "success"
    assert body["addresses"] == [{"ip": "127.0.0.1", "url": f"http://127.0.0.1:{port}", "type": "This computer"}]
    assert body["recommended"] == "localhost"
    if not has_overlay_interface():
        assert body["overlay"] == {"installed": False, "running": False, "ip": "", "hostname": ""}


def test_network_reads_the_overlay_from_tailscale(daemon_factory, tmp_path):
    fake = str(tmp_path / "bin")
    calls = fake_tailscale(fake)
    d = daemon_factory("--serial", "none", "--bind", "0.0.0.0", env=with_path(fake))
    port = d.ports[TOAST]
    status, body, _ = call(d, "GET", "/api/toast/network", key=key_of(d.data_dir))
    assert status == 200
    assert body["overlay"] == {"installed": True, "running": True, "ip": "100.101.102.103",
                               "hostname": "mixer-pi.tail1234.ts.net"}
    assert body["recommended"] == "overlay"
    addresses = body["addresses"]
    assert addresses[0] == {"ip": "localhost", "url": f"http://localhost:{port}", "type": "This computer"}
    overlay = [a for a in addresses if a.get("overlay")]
    assert {"ip": "100.101.102.103", "url": f"http://100.101.102.103:{port}", "type": "Overlay network",
            "overlay": True} in overlay
    for a in addresses:
        assert "https" not in a
        assert a["type"] in ("This computer", "Local network", "Overlay network")
        assert a["url"] == f"http://{a['ip']}:{port}"
    with open(calls) as f:
        assert f.read().split("\n")[0] == "status --json"


def test_network_over_https_names_the_overlay_host(daemon_factory, data_dir, tmp_path):
    crt, _ = make_cert_pair(os.path.join(data_dir, "certs"))
    fake = str(tmp_path / "bin")
    fake_tailscale(fake)
    d = daemon_factory("--serial", "none", "--bind", "0.0.0.0", env=with_path(fake))
    assert any("notification API listening on" in l and "(https://" in l for l in d.log)
    port = d.ports[TOAST]
    status, body, _ = call(d, "GET", "/api/toast/network", key=key_of(data_dir), tls_ca=crt)
    assert status == 200
    assert all(a["https"] is True and a["url"].startswith("https://") for a in body["addresses"])
    overlay = [a for a in body["addresses"] if a.get("overlay")]
    assert overlay and overlay[-1]["url"] == f"https://mixer-pi.tail1234.ts.net:{port}"
    assert body["addresses"][0]["url"] == f"https://localhost:{port}"
    status, body, _ = call(d, "POST", "/api/toast/send", key=key_of(data_dir), body={"message": "m"},
                           tls_ca=crt)
    assert (status, body["message"]) == (503, "Device not connected")


def test_network_with_a_stopped_overlay(daemon_factory, tmp_path):
    fake = str(tmp_path / "bin")
    stopped = dict(TAILSCALE_STATUS, BackendState="Stopped")
    fake_tailscale(fake, stopped)
    d = daemon_factory("--serial", "none", "--bind", "0.0.0.0", env=with_path(fake))
    body = call(d, "GET", "/api/toast/network", key=key_of(d.data_dir))[1]
    assert body["overlay"] == {"installed": True, "running": False, "ip": "",
                               "hostname": "mixer-pi.tail1234.ts.net"}
    assert body["recommended"] in ("local", "localhost")
    assert all(a["ip"] != "100.101.102.103" for a in body["addresses"])


def test_a_hanging_tailscale_costs_at_most_its_time_limit(daemon_factory, tmp_path):
    fake = str(tmp_path / "bin")
    fake_tailscale(fake, hang=True)
    d = daemon_factory("--serial", "none", "--bind", "0.0.0.0", env=with_path(fake))
    key = key_of(d.data_dir)
    result = {}

    def slow():
        started = time.monotonic()
        result["answer"] = call(d, "GET", "/api/toast/network", key=key)
        result["took"] = time.monotonic() - started

    worker = threading.Thread(target=slow)
    worker.start()
    # While the command hangs, the interface (and the actors behind it) keep answering.
    wait_until(lambda: os.path.exists(os.path.join(fake, "calls")), what="tailscale started")
    started = time.monotonic()
    assert call(d, "GET", "/api/toast/status", key=key)[0] == 200
    assert time.monotonic() - started < 0.5
    worker.join(timeout=10)
    status, body, _ = result["answer"]
    assert status == 200 and body["overlay"]["installed"] is True
    assert 1.5 <= result["took"] <= 4, result["took"]
    # The answer is kept for a while: no second wait.
    started = time.monotonic()
    assert call(d, "GET", "/api/toast/network", key=key)[0] == 200
    assert time.monotonic() - started < 1
