"""Drivers for the handshake flood test: a keep-alive HTTP connection from a chosen 127.x.y.z
source address, threads that flood Engine.IO handshakes from many addresses, the count of
sessions an address may still open, a raw websocket client that joins from its own address, and
wrk for the single-address flood of the issue."""
import json
import re
import socket
import subprocess
import threading
import time

import websocket

import fault_support  # noqa: F401 (puts tests/integration on the path)
from socketio_support import _Events

HANDSHAKE = "/socket.io/?EIO=4&transport=polling"
WRK = "/usr/bin/wrk"


class Refused(Exception):
    """The server closed a keep-alive connection or did not answer."""


class Connection:
    """One keep-alive HTTP/1.1 connection to the daemon from `source`."""

    def __init__(self, port, source, timeout=10):
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                             source_address=(source, 0))
        self.pending = b""

    def request(self, method, target, body=b"", headers=()):
        """(status, {lower-case header: value}, body bytes)."""
        head = [f"{method} {target} HTTP/1.1", f"Host: 127.0.0.1:{self.port}"]
        head += [f"{k}: {v}" for k, v in headers]
        if body or method == "POST":
            head.append(f"Content-Length: {len(body)}")
        self.sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        while b"\r\n\r\n" not in self.pending:
            self._read()
        raw_head, self.pending = self.pending.split(b"\r\n\r\n", 1)
        lines = raw_head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        fields = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip()
        length = int(fields.get("content-length", "0"))
        while len(self.pending) < length:
            self._read()
        answer, self.pending = self.pending[:length], self.pending[length:]
        return status, fields, answer

    def _read(self):
        try:
            chunk = self.sock.recv(65536)
        except OSError as e:
            raise Refused(str(e)) from e
        if not chunk:
            raise Refused("connection closed")
        self.pending += chunk

    def handshake(self):
        """(status, sid or None, headers, body) of one polling handshake."""
        status, fields, body = self.request("GET", HANDSHAKE)
        sid = json.loads(body[1:])["sid"] if status == 200 else None
        return status, sid, fields, body

    def close_session(self, sid):
        """Sends the Engine.IO close packet: the server ends the session at once."""
        status, _, body = self.request("POST", f"{HANDSHAKE}&sid={sid}", b"1",
                                       [("Content-Type", "text/plain;charset=UTF-8")])
        assert (status, body) == (200, b"ok"), (status, body)

    def close(self):
        self.sock.close()


def places_left(port, source, limit):
    """How many sessions `source` can still open (at most limit + 1 are tried), and the body of
    the refusal that ended the count (None if none came). The sessions opened here are closed
    again before it returns, so asking leaves the count as it was."""
    conn = Connection(port, source)
    opened, refusal = [], None
    try:
        while len(opened) <= limit:
            status, sid, fields, body = conn.handshake()
            if status != 200:
                refusal = (status, fields.get("content-type"), json.loads(body))
                break
            opened.append(sid)
        for sid in opened:
            conn.close_session(sid)
    finally:
        conn.close()
    return len(opened), refusal


class Flood:
    """Threads that send polling handshakes as fast as they can, each over one keep-alive
    connection per source address, until stop(). Counts answers by status."""

    def __init__(self, port, sources, threads=4):
        self.port = port
        self.counts = {}
        self.errors = 0
        self.refusals = set()  # distinct 403 bodies
        self._lock = threading.Lock()
        self._stop = threading.Event()
        groups = [sources[i::threads] for i in range(threads)]
        self._threads = [threading.Thread(target=self._run, args=(g,), daemon=True)
                         for g in groups if g]

    def __enter__(self):
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        self._stop.set()
        for t in self._threads:
            t.join(timeout=20)

    def _run(self, sources):
        conns = {}
        counts = {}
        try:
            while not self._stop.is_set():
                for source in sources:
                    try:
                        if source not in conns:
                            conns[source] = Connection(self.port, source, timeout=5)
                        status, _, _, body = conns[source].handshake()
                    except (OSError, Refused):
                        # The server may end a keep-alive connection (or refuse one): start over.
                        conn = conns.pop(source, None)
                        if conn:
                            conn.close()
                        with self._lock:
                            self.errors += 1
                        continue
                    counts[status] = counts.get(status, 0) + 1
                    if status == 403 and len(self.refusals) < 4:
                        with self._lock:
                            self.refusals.add(body)
        finally:
            for conn in conns.values():
                conn.close()
            with self._lock:
                for status, n in counts.items():
                    self.counts[status] = self.counts.get(status, 0) + n

    def created(self):
        return self.counts.get(200, 0)

    def refused(self):
        return self.counts.get(403, 0)


class Wrk:
    """wrk on the polling handshake, as the issue ran it; reports requests and non-2xx answers
    (the refusals: a handshake is answered 200 or 403)."""

    def __init__(self, port, seconds, connections=32, threads=2):
        self.proc = subprocess.Popen(
            [WRK, f"-t{threads}", f"-c{connections}", f"-d{seconds}s",
             f"http://127.0.0.1:{port}{HANDSHAKE}"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.seconds = seconds

    def result(self):
        """(requests, non-2xx answers, wrk's output) once wrk has ended."""
        out, _ = self.proc.communicate(timeout=self.seconds + 30)
        assert self.proc.returncode == 0, out
        requests = int(re.search(r"(\d+) requests in", out).group(1))
        non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        return requests, int(non_2xx.group(1)) if non_2xx else 0, out

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def websocket_handshake(port, source):
    """(status, content type, body) of a websocket-only Engine.IO handshake from `source`; an
    accepted one is closed again at once."""
    conn = Connection(port, source)
    try:
        status, fields, body = conn.request("GET", "/socket.io/?EIO=4&transport=websocket", b"", [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13")])
    finally:
        conn.close()
    return status, fields.get("content-type"), body


class WsClient:
    """A websocket-only Socket.IO client from its own source address: joins the namespace,
    answers pings, and records every event in order as (name, payload)."""

    def __init__(self, port, source, timeout=10):
        sock = socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                        source_address=(source, 0))
        self.ws = websocket.create_connection(
            f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket", socket=sock,
            timeout=timeout)
        opened = self.ws.recv()
        assert opened.startswith("0{"), opened
        self.ws.send("40")
        joined = self.ws.recv()
        assert joined.startswith("40{"), joined
        self.events = _Events()
        self.closed = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        try:
            while True:
                packet = self.ws.recv()
                if packet == "":
                    break
                if packet == "2":
                    self.ws.send("3")
                elif packet.startswith("42["):
                    data = json.loads(packet[2:])
                    self.events.put((data[0], data[1] if len(data) > 1 else None))
        except (OSError, websocket.WebSocketException):
            pass
        self.closed.set()

    def event(self, name, predicate=lambda payload: True, timeout=10):
        return self.events.expect(lambda e: e[0] == name and predicate(e[1]), timeout, name)[1]

    def values(self, name):
        return [payload for n, payload in self.events.seen if n == name]

    def close(self):
        try:
            self.ws.close()
        except (OSError, websocket.WebSocketException):
            pass
        self._thread.join(timeout=5)


def wait_for(probe, timeout, interval=0.1, what="condition"):
    """Polls `probe` until it returns truthy; returns (value, seconds waited)."""
    started = time.monotonic()
    last = None
    while time.monotonic() - started < timeout:
        last = probe()
        if last:
            return last, time.monotonic() - started
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}; last {last!r}")
