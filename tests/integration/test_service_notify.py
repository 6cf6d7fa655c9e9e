"""systemd's notify protocol against a fake NOTIFY_SOCKET (docs/api.md section 7, protocol/README.md
"systemd"): READY=1 once every listener accepts connections, WATCHDOG=1 at half of WATCHDOG_USEC
while the actors answer and not while one is stuck, STOPPING=1 on SIGTERM.
"""
import os
import queue
import re
import shutil
import signal
import socket
import statistics
import tempfile
import threading
import time

import pytest

from conftest import http

WATCHDOG_USEC = 1_000_000  # pings every 0.5 s
INTERVAL = WATCHDOG_USEC / 2e6


class NotifySocket:
    """What systemd listens on: a datagram socket; each message is queued with its arrival time."""

    def __init__(self):
        # A short path: sun_path holds 108 bytes.
        self.dir = tempfile.mkdtemp(prefix="mixerd-notify-", dir="/tmp")
        self.path = os.path.join(self.dir, "notify")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.2)
        self.messages = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._receive, daemon=True)
        self._thread.start()

    def _receive(self):
        while not self._stop.is_set():
            try:
                data = self.sock.recv(4096)
            except socket.timeout:
                continue
            now = time.monotonic()
            fields = dict(line.split("=", 1) for line in data.decode().splitlines() if "=" in line)
            self.messages.put((now, fields))

    def expect(self, key, timeout=10.0):
        """The next message carrying `key`; messages without it before that are dropped."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {key} within {timeout} s")
            try:
                at, fields = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if key in fields:
                return at, fields

    def drain(self):
        got = []
        while True:
            try:
                got.append(self.messages.get_nowait())
            except queue.Empty:
                return got

    def close(self):
        self._stop.set()
        self._thread.join(timeout=2)
        self.sock.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def notify_socket():
    s = NotifySocket()
    yield s
    s.close()


def systemd_env(notify_socket, **extra):
    return {"NOTIFY_SOCKET": notify_socket.path, "WATCHDOG_USEC": str(WATCHDOG_USEC), **extra}


def test_ready_once_every_listener_accepts_then_watchdog_at_half_the_period_then_stopping(
        daemon_factory, notify_socket):
    daemon = daemon_factory("--serial", "none", env=systemd_env(notify_socket), wait_ready=False)
    _, ready = notify_socket.expect("READY")
    assert ready["READY"] == "1"
    # STATUS names the three listeners with their bound ports; each accepts at once.
    ports = dict(re.findall(r"(controller|notification API|plant store) on 127\.0\.0\.1:(\d+)",
                            ready["STATUS"]))
    assert set(ports) == {"controller", "notification API", "plant store"}, ready["STATUS"]
    status, _, _ = http("GET", f"http://127.0.0.1:{ports['controller']}/api/status")
    assert status == 200
    for name in ("notification API", "plant store"):
        socket.create_connection(("127.0.0.1", int(ports[name])), timeout=2).close()

    pings = [notify_socket.expect("WATCHDOG")[0] for _ in range(6)]
    gaps = [b - a for a, b in zip(pings, pings[1:])]
    print(f"[figures] watchdog gaps (s): {[round(g, 3) for g in gaps]}")
    assert 0.7 * INTERVAL <= statistics.median(gaps) <= 1.5 * INTERVAL, gaps
    assert max(gaps) < 2 * INTERVAL, gaps  # systemd would kill it at 2 intervals

    daemon.proc.send_signal(signal.SIGTERM)
    _, stopping = notify_socket.expect("STOPPING")
    assert stopping["STOPPING"] == "1"
    assert daemon.proc.wait(timeout=10) == 0


def test_no_watchdog_while_an_actor_is_stuck_and_again_once_it_goes_on(daemon_factory, notify_socket):
    daemon = daemon_factory("--serial", "none",
                            env=systemd_env(notify_socket, MIXERD_TEST_WEDGE_ON_SIGNAL="1"),
                            wait_ready=False)
    notify_socket.expect("READY")
    notify_socket.expect("WATCHDOG")

    daemon.proc.send_signal(signal.SIGUSR2)  # a cooperative actor now blocks the worker
    daemon.wait_log("did not answer", timeout=5 * INTERVAL + 5)
    wedged_at = time.monotonic()
    # A ping sent before the daemon noticed may still be on its way; none after that for four
    # intervals, twice what systemd would wait before it kills the daemon.
    time.sleep(4 * INTERVAL)  # waiting for nothing to happen: there is no event to await
    late = [at for at, fields in notify_socket.drain()
            if "WATCHDOG" in fields and at > wedged_at + 0.25 * INTERVAL]
    print(f"[figures] WATCHDOG=1 while wedged: {len(late)} in {4 * INTERVAL} s")
    assert late == []

    daemon.proc.send_signal(signal.SIGUSR2)  # let it go
    notify_socket.expect("WATCHDOG", timeout=5 * INTERVAL + 5)
    daemon.wait_log("every actor answers again")
    daemon.proc.send_signal(signal.SIGTERM)
    notify_socket.expect("STOPPING")
    assert daemon.proc.wait(timeout=10) == 0


def test_without_notify_socket_nothing_is_sent_and_no_watchdog_runs(daemon_factory, notify_socket):
    # WATCHDOG_USEC alone (no NOTIFY_SOCKET) must not start anything.
    daemon = daemon_factory("--serial", "none", env={"WATCHDOG_USEC": str(WATCHDOG_USEC)})
    status, _, _ = http("GET", daemon.url("/api/status"))
    assert status == 200
    assert daemon.stop() == 0
    assert not [line for line in daemon.log if "systemd" in line], daemon.log
    assert notify_socket.drain() == []
