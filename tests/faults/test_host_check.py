"""Hardening 8. DNS rebinding: only Host values that name this machine are served (IP literals,
localhost, the host name and <host>.local, the overlay's name, the setting allowed_hosts); any
other gets 421 {"error": "Misdirected request"} on all three listeners, Socket.IO polling and
WebSocket upgrades included. allowed_hosts changes on SIGHUP.

The overlay is a fake `tailscale` on PATH whose status names this machine
mixer-pi.tail1234.ts.net; nothing asks for the network info before that name is used, so the
first request by that name is the one that makes mixerd look.
"""
import base64
import json
import os
import signal
import socket
import stat

from fault_support import figures, stop_cleanly
from http_garbage import STATUS_RE
from integration_harness import daemon_factory, data_dir  # noqa: F401 (fixtures)

OVERLAY_NAME = "mixer-pi.tail1234.ts.net"
MISDIRECTED = {"error": "Misdirected request"}
PATHS = {"controller": "/api/status", "notification API": "/api/toast/health", "plant store": "/plants/1"}


def fake_tailscale(folder):
    os.makedirs(folder, exist_ok=True)
    status = {"BackendState": "Running",
              "Self": {"HostName": "mixer-pi", "DNSName": OVERLAY_NAME + ".",
                       "TailscaleIPs": ["100.101.102.103"]}}
    script = os.path.join(folder, "tailscale")
    with open(script, "w") as f:
        f.write("#!/bin/sh\nif [ \"$1\" = status ] && [ \"$2\" = --json ]; then\ncat <<'EOF'\n" +
                json.dumps(status) + "\nEOF\nexit 0\nfi\nexit 1\n")
    os.chmod(script, os.stat(script).st_mode | stat.S_IXUSR)


def ask(port, host, path, extra=b""):
    """One request with this Host (`extra`: more header lines, else Connection: close); (status,
    parsed body or raw text). A 101 is returned as soon as its header is in."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    raw = b""
    try:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n".encode() +
                  (extra or b"Connection: close\r\n") + b"\r\n")
        while not (raw.startswith(b"HTTP/1.1 101") and b"\r\n\r\n" in raw):
            chunk = s.recv(65536)
            if not chunk:
                break
            raw += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    finally:
        s.close()
    statuses = [int(m) for m in STATUS_RE.findall(raw)]
    body = raw.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in raw else b""
    try:
        body = json.loads(body)
    except ValueError:
        body = body.decode(errors="replace")
    return (statuses[0] if statuses else None), body


def websocket_upgrade():
    key = base64.b64encode(os.urandom(16))
    return (b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
            b"\r\nSec-WebSocket-Version: 13\r\n")


def write_settings(data, **keys):
    path = os.path.join(data, "settings.json")
    settings = {}
    if os.path.exists(path):
        with open(path) as f:
            settings = json.load(f)
    settings.update(keys)
    with open(path, "w") as f:
        json.dump(settings, f)


def test_only_host_names_of_this_machine_are_served(daemon_factory, data_dir, tmp_path):
    os.makedirs(data_dir, exist_ok=True)
    write_settings(data_dir, allowed_hosts=["studio.example", "*.lan.example"])
    fake = str(tmp_path / "bin")
    fake_tailscale(fake)
    daemon = daemon_factory("--serial", "none", env={"PATH": fake + ":" + os.environ["PATH"]})
    host_name = socket.gethostname()
    refused, served, wrong = 0, 0, []

    def expect(listener, host, should_serve, path=None, extra=b""):
        nonlocal refused, served
        port = daemon.ports[listener]
        status, body = ask(port, host.replace("{port}", str(port)), path or PATHS[listener], extra)
        if should_serve:
            ok = status is not None and status != 421
            served += ok
        else:
            ok = status == 421 and body == MISDIRECTED
            refused += ok
        if not ok:
            wrong.append(f"{listener} Host {host!r}: status {status} body {body!r}")

    # The overlay's name first: nothing has asked for it yet.
    for listener in PATHS:
        expect(listener, OVERLAY_NAME, True)
    for listener in PATHS:
        for host in ["evil.example", "evil.example:{port}", "localhost.evil.example", "studio.example.evil",
                     "lan.example", "tail1234.ts.net", host_name + ".evil.example"]:
            expect(listener, host, False)
        for host in ["127.0.0.1:{port}", "127.0.0.1", "localhost:{port}", "LOCALHOST.", "[::1]:{port}",
                     "192.168.1.20", host_name, host_name + ".local:{port}", "studio.example",
                     "desk.lan.example:{port}", OVERLAY_NAME.upper() + ":{port}"]:
            expect(listener, host, True)
    # Socket.IO: the polling handshake and the WebSocket upgrade.
    polling = "/socket.io/?EIO=4&transport=polling"
    expect("controller", "evil.example", False, polling)
    expect("controller", "evil.example", False, polling.replace("polling", "websocket"), websocket_upgrade())
    expect("controller", "127.0.0.1:{port}", True, polling)
    status, _ = ask(daemon.ports["controller"], "localhost", polling.replace("polling", "websocket"),
                    websocket_upgrade())
    upgraded = status == 101
    if not upgraded:
        wrong.append(f"a websocket upgrade with Host localhost got {status}")

    # allowed_hosts follows SIGHUP.
    write_settings(data_dir, allowed_hosts=["other.example"])
    daemon.proc.send_signal(signal.SIGHUP)
    try:
        daemon.wait_log("network: allowed_hosts now other.example")
    except AssertionError:
        wrong.append("the new allowed_hosts were never applied")
    for listener in PATHS:
        expect(listener, "other.example", True)
        expect(listener, "studio.example", False)

    figures("host check", hosts_refused=refused, hosts_served=served, websocket_upgraded=upgraded,
            wrong=len(wrong))
    assert not wrong, "\n".join(wrong)
    stop_cleanly(daemon)
