"""Socket.IO clients for the integration tests: Debian's python-socketio and the stock
socket.io-client 4 (node, tests/integration/node/client.js), with one way to wait for events.
Also raw Engine.IO polling helpers for wire-level checks.
"""
import json
import os
import subprocess
import threading
import time
import urllib.error
import urllib.request

import pytest
import socketio

NODE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node")
TRANSPORTS = ("polling", "websocket", "default")
STATE_KEYS = {"sliders", "mutes", "volume", "macros", "profiles", "status", "connected",
              "smarthome", "stream", "music"}
RS = "\x1e"  # Engine.IO polling payload separator


class _Events:
    """An ordered record of received items. expect() takes the first matching item not taken
    yet, so items that arrive before anyone waits for them are never lost."""

    def __init__(self):
        self._cond = threading.Condition()
        self.seen = []
        self._taken = set()

    def put(self, item):
        with self._cond:
            self.seen.append(item)
            self._cond.notify_all()

    def expect(self, predicate, timeout, what):
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for i, item in enumerate(self.seen):
                    if i not in self._taken and predicate(item):
                        self._taken.add(i)
                        return item
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"never got {what}; got {self.seen[-20:]}")
                self._cond.wait(left)


class PyClient:
    """python-socketio 5 client; every event lands in `events` as (name, first argument)."""

    def __init__(self, url, transport="default", headers=None, auth=None, wait_timeout=10):
        self.sio = socketio.Client(reconnection=False)
        self.events = _Events()
        self.disconnected = threading.Event()
        self.sio.on("*", lambda name, *args: self.events.put((name, args[0] if args else None)))
        self.sio.on("disconnect", self.disconnected.set)
        transports = None if transport == "default" else [transport]
        self.sio.connect(url, headers=headers or {}, auth=auth, transports=transports,
                         wait_timeout=wait_timeout)

    def event(self, name, predicate=lambda payload: True, timeout=10):
        return self.events.expect(lambda e: e[0] == name and predicate(e[1]), timeout, name)[1]

    def transport(self):
        return self.sio.transport()

    def event_names(self):
        return {name for name, _ in self.events.seen}

    def call(self, name, *args):
        # python-socketio sends bytes (also inside lists and dicts) as binary attachments.
        data = None if not args else args[0] if len(args) == 1 else args
        return self.sio.call(name, data, timeout=10)

    def emit(self, name):
        self.sio.emit(name)

    def close(self):
        if self.sio.connected:
            self.sio.disconnect()


class NodeClient:
    """socket.io-client 4 in a node process; see node/client.js for the line protocol."""

    def __init__(self, url, transport="default", token=None, cookie=None, origin=None,
                 insecure=None):
        if not os.path.isdir(os.path.join(NODE_DIR, "node_modules", "socket.io-client")):
            raise AssertionError(f"socket.io-client missing: run `npm ci` in {NODE_DIR}")
        args = ["node", os.path.join(NODE_DIR, "client.js"), url, "--transport", transport]
        for flag, value in (("--token", token), ("--cookie", cookie), ("--origin", origin),
                            ("--insecure", insecure)):
            if value is not None:
                args += [flag, value]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.messages = _Events()
        self._tags = 0
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.messages.put(json.loads(line))

    def command(self, **cmd):
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()

    def expect(self, type_, predicate=lambda m: True, timeout=10):
        return self.messages.expect(lambda m: m["type"] == type_ and predicate(m), timeout, type_)

    def event(self, name, predicate=lambda payload: True, timeout=10):
        msg = self.expect("event", lambda m: m["name"] == name and predicate(m["args"][0]),
                          timeout)
        return msg["args"][0]

    def connected(self, timeout=10):
        return self.expect("connect", timeout=timeout)

    def call(self, name, *args):
        self._tags += 1
        tag = self._tags
        self.command(cmd="call", name=name, tag=tag, args=[_to_node(a) for a in args])
        args = self.expect("ack", lambda m: m["tag"] == tag)["args"]
        return args[0] if args else None

    def emit(self, name):
        self.command(cmd="emit", name=name)

    def event_names(self):
        return {m["name"] for m in self.messages.seen if m["type"] == "event"}

    def transport(self):
        self.command(cmd="transport")
        return self.expect("transport")["name"]

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except (subprocess.TimeoutExpired, BrokenPipeError):
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


def _to_node(value):
    """bytes, also inside lists and dicts, as client.js's {"$bytes": [...]} (a Buffer there)."""
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": list(value)}
    if isinstance(value, (list, tuple)):
        return [_to_node(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_node(v) for k, v in value.items()}
    return value


def connect(kind, url, transport, **credentials):
    """A connected client of `kind` ("python" or "node"); node waits for its connect line."""
    if kind == "python":
        headers = {"Cookie": credentials["cookie"]} if "cookie" in credentials else None
        auth = {"token": credentials["token"]} if "token" in credentials else None
        return PyClient(url, transport, headers=headers, auth=auth)
    client = NodeClient(url, transport, **credentials)
    client.connected()
    return client


@pytest.fixture
def clients():
    """Makes connected clients (see connect()) and closes them after the test."""
    made = []

    def make(kind, url, transport, **credentials):
        client = connect(kind, url, transport, **credentials)
        made.append(client)
        return client

    yield make
    for c in made:
        c.close()


# ---- raw Engine.IO over HTTP polling -------------------------------------------------------------

def raw(method, url, body=None, headers=None, timeout=10):
    """Returns (status, body text, headers) without raising on 4xx."""
    data = body.encode() if isinstance(body, str) else body
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        req.add_header("Content-Type", "text/plain;charset=UTF-8")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read().decode(), resp.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), e.headers


class PollingSession:
    """An Engine.IO session driven by hand over HTTP long-polling."""

    def __init__(self, daemon, headers=None):
        self.base = daemon.url("/socket.io/?EIO=4&transport=polling")
        status, body, self.open_headers = raw("GET", self.base, headers=headers)
        assert status == 200 and body.startswith("0"), (status, body)
        self.open = json.loads(body[1:])
        self.sid = self.open["sid"]
        self.url = f"{self.base}&sid={self.sid}"

    def post(self, *packets):
        return raw("POST", self.url, RS.join(packets))

    def get(self, timeout=10):
        return raw("GET", self.url, timeout=timeout)

    def packets(self, timeout=10):
        status, body, _ = self.get(timeout)
        assert status == 200, (status, body)
        return body.split(RS)

    def until(self, predicate, timeout=10):
        """Polls until a packet matches; returns (that packet, every packet seen)."""
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            for p in self.packets(timeout=max(0.1, deadline - time.monotonic())):
                seen.append(p)
                if predicate(p):
                    return p, seen
        raise AssertionError(f"no matching packet; got {seen}")


def event_packet(packet):
    """`42["name",payload]` -> (name, payload); anything else -> (None, None)."""
    if not packet.startswith("42["):
        return None, None
    data = json.loads(packet[2:])
    return data[0], data[1] if len(data) > 1 else None
