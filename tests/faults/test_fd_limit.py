"""Hardening 4. File descriptors: one client holding more keep-alive connections than the
open-files limit allows must neither shut other clients out of the listeners nor take the
descriptors the daemon needs for its own files.

mixerd starts under `prlimit --nofile=N:N` (N = 256 short, 1024 full, the soft limit a systemd
service gets). A client at 127.0.0.1 opens N + 10 connections to the controller, sends one
request on each (keep-alive) and keeps all of them open. While it holds them, a client at
127.0.0.2 asks the controller and one at 127.0.0.3 the notification API: each must be answered
within a few seconds, and an assignment change from 127.0.0.2 must be answered and reach
settings.json. The daemon must not have run out of descriptors anywhere ("Too many open files").
"""
import http.client as http_client
import json
import os
import resource
import selectors
import socket
import subprocess
import threading
import time

from fault_support import figures, scaled, stop_cleanly
import integration_harness
from integration_harness import Daemon, data_dir  # noqa: F401 (fixture)

FD_LIMIT = scaled(1024, 256)
HELD = FD_LIMIT + 10
ANSWER_WITHIN_S = 3.0
PERSIST_WITHIN_S = 5.0
ATTACKER, FRESH_CONTROLLER, FRESH_NOTIFICATION = "127.0.0.1", "127.0.0.2", "127.0.0.3"


class LimitedDaemon(Daemon):
    """The harness's daemon, started under `prlimit --nofile=N:N`."""

    def __init__(self, data, limit, args=()):
        super().__init__(data, args)
        self.limit = limit

    def start(self, wait_ready=True):
        command = ["prlimit", f"--nofile={self.limit}:{self.limit}", integration_harness.MIXERD_BIN,
                   *self.args]
        self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env=self.env, text=True, errors="replace")
        threading.Thread(target=self._pump, daemon=True).start()
        if wait_ready:
            self.wait_log("ready", timeout=15)
        return self


def allow_own_descriptors(needed):
    """This test process holds HELD sockets too: raise its soft limit when it is too low."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, needed), hard))


def hold_connections(port, count):
    """Opens `count` connections from ATTACKER, sends one keep-alive request on each, and
    returns (sockets, how many were answered within a few seconds)."""
    request = b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    sockets = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(ATTACKER, 0))
        try:
            s.sendall(request)
        except OSError:
            pass  # closed by mixerd already (it made room); still held here
        sockets.append(s)
    answered = set()
    selector = selectors.DefaultSelector()
    for s in sockets:
        s.setblocking(False)
        selector.register(s, selectors.EVENT_READ)
    deadline = time.monotonic() + 5
    while len(answered) < count and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.2):
            try:
                data = key.fileobj.recv(65536)
            except OSError:
                data = b""
            if data.startswith(b"HTTP/1.1 200"):
                answered.add(key.fileobj)
            selector.unregister(key.fileobj)
    selector.close()
    return sockets, len(answered)


def timed(call):
    """(result, ms) of call(), or (the exception's text, ms) when it failed."""
    started = time.monotonic()
    try:
        result = call()
    except (OSError, http_client.HTTPException) as e:
        result = f"{type(e).__name__}: {e}"
    return result, round((time.monotonic() - started) * 1000)


def ask(port, source, method, path, body=None, headers=None):
    connection = http_client.HTTPConnection("127.0.0.1", port, timeout=ANSWER_WITHIN_S,
                                            source_address=(source, 0))
    try:
        payload = None if body is None else json.dumps(body)
        connection.request(method, path, body=payload,
                           headers={"Content-Type": "application/json", **(headers or {})})
        response = connection.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        connection.close()


def persisted(data, label):
    try:
        with open(os.path.join(data, "settings.json")) as f:
            sliders = json.load(f).get("sliders", [])
    except (OSError, ValueError):
        return False
    return any(s.get("label") == label for s in sliders)


def test_new_clients_are_served_while_one_client_holds_more_connections_than_the_fd_limit(data_dir):
    allow_own_descriptors(HELD + 256)
    daemon = LimitedDaemon(data_dir, FD_LIMIT, ["--serial", "none"]).start()
    sockets = []
    checked = False
    try:
        controller = daemon.ports["controller"]
        notification = daemon.ports["notification API"]
        with open(os.path.join(data_dir, "settings.json")) as f:
            api_key = json.load(f)["toast_api_key"]
        started = time.monotonic()
        sockets, attacker_answered = hold_connections(controller, HELD)
        held_s = round(time.monotonic() - started, 1)
        daemon_fds = len(os.listdir(f"/proc/{daemon.proc.pid}/fd"))

        status_answer, status_ms = timed(lambda: ask(controller, FRESH_CONTROLLER, "GET", "/api/status"))
        health_answer, health_ms = timed(lambda: ask(notification, FRESH_NOTIFICATION, "GET",
                                                     "/api/toast/health", headers={"X-API-Key": api_key}))
        label = "fd test %d" % os.getpid()
        write_answer, write_ms = timed(lambda: ask(
            controller, FRESH_CONTROLLER, "POST", "/api/sliders/1/assignment",
            {"type": "app", "names": ["fd-test"], "label": label}))
        deadline = time.monotonic() + PERSIST_WITHIN_S
        while not persisted(data_dir, label) and time.monotonic() < deadline:
            time.sleep(0.05)
        saved = persisted(data_dir, label)
        out_of_fds = [line for line in daemon.log if "Too many open files" in line]
        figures("fd limit", fd_limit=FD_LIMIT, held=HELD, held_in_s=held_s,
                attacker_answered=attacker_answered, daemon_fds=daemon_fds,
                controller=status_answer if isinstance(status_answer, str) else status_answer[0],
                controller_ms=status_ms,
                notification=health_answer if isinstance(health_answer, str) else health_answer[0],
                notification_ms=health_ms,
                write=write_answer if isinstance(write_answer, str) else write_answer[0],
                write_ms=write_ms, persisted=saved, too_many_open_files_lines=len(out_of_fds))

        assert not isinstance(status_answer, str) and status_answer[0] == 200, \
            f"controller did not answer a new client: {status_answer}"
        assert not isinstance(health_answer, str) and health_answer[0] == 200, \
            f"notification API did not answer a new client: {health_answer}"
        assert not isinstance(write_answer, str) and write_answer[0] == 200, \
            f"assignment change not answered: {write_answer}"
        assert saved, "the assignment change never reached settings.json"
        assert not out_of_fds, "mixerd ran out of descriptors:\n" + "\n".join(out_of_fds[:5])
        checked = True
    finally:
        for s in sockets:
            s.close()
        if not checked:
            daemon.stop()
    stop_cleanly(daemon)
