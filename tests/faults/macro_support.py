"""What the fault tests of macros share: scripted HTTP servers on loopback that an http macro
calls (a server that answers without end, one that never answers, a relay that triggers another
macro through mixerd's API), and the macro routes as a client uses them.

Every server runs on its own threads, counts its connections (how many were open at once, how
long each lasted) and stops with the test (`with` blocks)."""
import json
import socket
import threading
import time
import urllib.request

import fault_support  # noqa: F401 (loads the harness as integration_harness)
from integration_harness import http, macro_set, write_settings

# What a server sends a single connection at most: a failing (old) daemon that reads without a
# limit must not take the test machine's memory with it.
SEND_CAP = 256 * 1024 * 1024


class ScriptedServer:
    """A TCP server on 127.0.0.1 that reads each request's header block and hands the socket to
    `script(sock, request_text)`; the connection is closed when the script returns."""

    def __init__(self, script):
        self.script = script
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(256)
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.open = 0
        self.most_open = 0
        self.accepted = 0
        self.durations = []  # seconds each finished connection lasted
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)

    def url(self, path="/"):
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.listener.close()
        self.thread.join(timeout=5)

    def _accept(self):
        while not self.stopping.is_set():
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.accepted += 1
                self.open += 1
                self.most_open = max(self.most_open, self.open)
            threading.Thread(target=self._serve, args=(sock,), daemon=True).start()

    def _serve(self, sock):
        started = time.monotonic()
        try:
            sock.settimeout(30)
            request = b""
            while b"\r\n\r\n" not in request and len(request) < 65536:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                request += chunk
            self.script(sock, request.decode(errors="replace"), self.stopping)
        except OSError:
            pass
        finally:
            sock.close()
            with self.lock:
                self.open -= 1
                self.durations.append(time.monotonic() - started)


def endless_body(sock, request, stopping):
    """200 with a chunked body that never ends (until the client closes or the cap)."""
    sock.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"4000\r\n" + b"x" * 0x4000 + b"\r\n"
    sent = 0
    while sent < SEND_CAP and not stopping.is_set():
        sock.sendall(chunk)
        sent += len(chunk)


def endless_headers(sock, request, stopping):
    """A status line, then header lines that never end."""
    sock.sendall(b"HTTP/1.1 200 OK\r\n")
    line = b"X-Padding: " + b"p" * 1000 + b"\r\n"
    sent = 0
    while sent < SEND_CAP and not stopping.is_set():
        sock.sendall(line * 16)
        sent += 16 * len(line)


def silent(sock, request, stopping):
    """Takes the request and never answers, until the client goes or the test ends."""
    sock.settimeout(0.2)
    while not stopping.is_set():
        try:
            if not sock.recv(4096):
                return
        except socket.timeout:
            continue


def http_macro(name, url, method="GET"):
    return {"type": "http", "name": name, "icon": "", "url": url, "method": method}


def start_with_macros(daemon_factory, data_dir, slots, allow=("127.0.0.1",), args=(), **settings):
    """A daemon without a device whose settings.json holds `slots` (see macro_set) and allows
    http macros to reach `allow` (the test servers are on loopback)."""
    write_settings(data_dir, {"macros": macro_set(slots), "http_macro_allow": list(allow),
                              **settings})
    return daemon_factory("--serial", "none", *args)


def trigger(daemon, index, page=0, headers=None):
    return http("POST", daemon.url("/api/macros/trigger"), {"index": index, "page": page},
                headers=headers)[:2]


def outcomes(daemon, name):
    """The outcome of every finished run of macro `name`, from the log: "" for done, else the
    error."""
    out = []
    for line in list(daemon.log):
        marker = f"macro '{name}' ("
        if marker not in line:
            continue
        if line.endswith(") done"):
            out.append("")
        elif ") failed: " in line:
            out.append(line.split(") failed: ", 1)[1])
    return out


def wait_outcomes(daemon, name, count, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = outcomes(daemon, name)
        if len(found) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError(f"macro {name!r} finished {len(outcomes(daemon, name))} of {count} runs "
                         f"within {timeout} s")


class Relay(ScriptedServer):
    """An HTTP server that, for a request to /trigger/<index>, triggers that slot of mixerd's page
    0 through its API, just after answering 200: two sequences whose http steps call it trigger each other.
    With `forward_depth` it passes on the request's X-Mixerd-Macro-Depth, as a proxy passes
    headers on."""

    def __init__(self, daemon_port, forward_depth):
        super().__init__(self._relay)
        self.daemon_port = daemon_port
        self.forward_depth = forward_depth

    def _relay(self, sock, request, stopping):
        lines = request.split("\r\n")
        target = lines[0].split(" ")[1] if lines and " " in lines[0] else ""
        headers = {"Content-Type": "application/json"}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if self.forward_depth and name.strip().lower() == "x-mixerd-macro-depth":
                headers["X-Mixerd-Macro-Depth"] = value.strip()
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        if target.startswith("/trigger/"):
            # After the answer, once the calling run has ended (a run still running is 409).
            time.sleep(0.03)
            body = json.dumps({"index": int(target.rsplit("/", 1)[1]), "page": 0}).encode()
            req = urllib.request.Request(
                f"http://127.0.0.1:{self.daemon_port}/api/macros/trigger", data=body,
                method="POST", headers=headers)
            try:
                urllib.request.urlopen(req, timeout=5).read()
            except OSError:
                pass  # 409, 429, 508: this link of the loop is refused
