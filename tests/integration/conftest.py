"""Black-box harness: the real mixerd binary, a real pseudo-terminal as the device, real HTTP.

MIXERD_BIN names the binary under test (the test script runs the suite once per build type).
"""
import json
import os
import pty
import queue
import re
import select
import signal
import socket
import subprocess
import tempfile
import threading
import time
import tty
import urllib.error
import urllib.request

import jsonschema
import pytest

MIXERD_BIN = os.environ.get("MIXERD_BIN", os.path.join(os.path.dirname(__file__), "../../build/release/tools/mixerd"))
# No daemon under test may reach the user's own audio server: tests that want one start a
# private PulseAudio (audio_support.py) and pass its PULSE_SERVER.
NO_AUDIO_SERVER = "unix:/nonexistent/mixerd-tests/pulse/native"
# Nor type into the user's desktop: hotkey macros get no uinput and no $DISPLAY unless a test
# passes its own (xserver_support.py).
NO_UINPUT = "/nonexistent/mixerd-tests/uinput"
# Nor command the user's music players: tests that want a session bus start a private one
# (mpris_support.py) and pass its DBUS_SESSION_BUS_ADDRESS.
NO_SESSION_BUS = "unix:path=/nonexistent/mixerd-tests/dbus/bus"
# Nor advertise itself on the machine's network (mDNS through the system bus's Avahi):
# test_mdns.py gives it a private bus in a network namespace of its own.
NO_SYSTEM_BUS = "unix:path=/nonexistent/mixerd-tests/dbus/system_bus_socket"
_SCHEMA = {}


def settings_schema(binary=None):
    """The JSON Schema of settings.json that `binary` serves (GET /api/settings/schema), read once
    per binary from a daemon of its own; None for a binary without the settings API (an old
    build kept for before-figures)."""
    binary = binary or MIXERD_BIN
    if binary not in _SCHEMA:
        with tempfile.TemporaryDirectory() as folder:
            d = Daemon(folder, ("--serial", "none"), binary=binary, check_schema=False).start()
            try:
                status, body, _ = http("GET", d.url("/api/settings/schema"))
            finally:
                d.stop()
        _SCHEMA[binary] = body if status == 200 else None
    return _SCHEMA[binary]


def schema_problems(settings, binary=None):
    """What the settings schema finds wrong with `settings` (a parsed settings.json)."""
    schema = settings_schema(binary)
    if schema is None:
        return []
    validator = jsonschema.Draft202012Validator(schema)
    return [f"{'.'.join(map(str, e.absolute_path)) or '(top level)'}: {e.message}"
            for e in validator.iter_errors(settings)]


LISTEN_RE = re.compile(r"(controller|notification API|plant store) listening on \S+:(\d+)")


class FakeDevice:
    """The device end of a pty, answering like the open firmware (protocol/README.md, "Simulator").

    The daemon opens `path`, a symlink to the pty, so a test can replace the pty behind it
    ("unplug" and "replug"). Every host line is queued in `received`.
    """

    def __init__(self, link_dir, firmware="2.0.0", answer=True):
        self.path = os.path.join(link_dir, "ttyMIX")
        self.firmware = firmware
        self.answer = answer
        self.received = queue.Queue()
        self.timeline = []  # (monotonic time, line) of every host line
        self.last_sent = 0.0  # monotonic time of the device's last line
        self.master = None
        self._stop = threading.Event()
        self._thread = None
        self.plug()

    def plug(self):
        master, slave = pty.openpty()
        tty.setraw(slave)
        slave_name = os.ttyname(slave)
        os.close(slave)
        tmp = self.path + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(slave_name, tmp)
        os.rename(tmp, self.path)
        self.master = master
        self._first = True
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(master, self._stop), daemon=True)
        self._thread.start()

    def unplug(self):
        self._stop.set()
        self._thread.join(timeout=2)
        os.close(self.master)
        self.master = None

    def close(self):
        if self.master is not None:
            self.unplug()

    def send(self, line):
        data = line if isinstance(line, bytes) else line.encode()
        os.write(self.master, data + b"\n")
        self.last_sent = time.monotonic()

    def _serve(self, master, stop):
        pending = b""
        while not stop.is_set():
            ready, _, _ = select.select([master], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO while the daemon has the slave closed
                time.sleep(0.02)
                continue
            pending += chunk
            while b"\n" in pending:
                raw, pending = pending.split(b"\n", 1)
                line = raw.decode(errors="replace").rstrip("\r")
                if line:
                    self.timeline.append((time.monotonic(), line))
                    self.received.put(line)
                    if self.answer:
                        self._reply(line)

    def _reply(self, line):
        out = []
        if self._first:
            out.append("STATE,CONNECTED")
            self._first = False
        if line == "READY":
            out += ["ACK,READY", "DEV_TYPE,Mixlar Mix", "FW_VER," + self.firmware]
        elif line == "PING":
            out.append("PONG")
        elif line == "VER":
            out.append("VER," + self.firmware)
        elif line.split(",")[0] in ("VOL", "MACRO", "MUTE", "MASTER", "MPAGE", "TOAST"):
            out.append("ACK," + line)
        for o in out:
            self.send(o)

    def expect(self, predicate, timeout=5.0, what="a matching line"):
        """Returns the first received line matching predicate (a string means equality)."""
        if isinstance(predicate, str):
            wanted = predicate
            predicate = lambda l: l == wanted  # noqa: E731
            what = repr(wanted)
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"device never received {what}; got {seen}")
            try:
                line = self.received.get(timeout=left)
            except queue.Empty:
                continue
            seen.append(line)
            if predicate(line):
                return line


class Daemon:
    def __init__(self, data_dir, args=(), env=None, binary=None, check_schema=True):
        self.data_dir = data_dir
        self.check_schema = check_schema
        self.binary = binary or MIXERD_BIN
        self.args = ["--data-dir", data_dir, "--bind", "127.0.0.1", "--controller-port", "0",
                     "--toast-port", "0", "--plants-port", "0", *args]
        inherited = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
        self.env = {**inherited, "PULSE_SERVER": NO_AUDIO_SERVER, "MIXERD_UINPUT": NO_UINPUT,
                    "DBUS_SESSION_BUS_ADDRESS": NO_SESSION_BUS,
                    "DBUS_SYSTEM_BUS_ADDRESS": NO_SYSTEM_BUS,
                    **(env or {})}
        self.proc = None
        self.ports = {}
        self.log = []
        self._lines = queue.Queue()

    def start(self, wait_ready=True):
        settings = None
        try:
            with open(self.settings_file()) as f:
                settings = json.load(f)
        except (OSError, ValueError):
            pass  # a first start, or a file the test broke on purpose
        # errors="replace": mixerd logs unrecognised device lines byte for byte; invalid UTF-8
        # must not end the pump (a full pipe would then block the daemon's logging).
        self.proc = subprocess.Popen([self.binary, *self.args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     env=self.env, text=True, errors="replace")
        threading.Thread(target=self._pump, daemon=True).start()
        if wait_ready:
            self.wait_log("ready", timeout=15)
            # The daemon took its settings file: the schema that describes it takes it too
            # (docs/api/settings.md), or the two have drifted apart.
            if self.check_schema and settings is not None:
                problems = schema_problems(settings, self.binary)
                assert not problems, f"mixerd took settings the schema refuses: {problems}"
        return self

    def settings_file(self):
        args = list(self.args)
        for i, arg in enumerate(args[:-1]):
            if arg == "--config":
                return args[i + 1]
        return os.path.join(self.data_dir, "settings.json")

    def _pump(self):
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            self.log.append(line)
            m = LISTEN_RE.search(line)
            if m:
                self.ports[m.group(1)] = int(m.group(2))
            self._lines.put(line)
        self._lines.put(None)

    def wait_log(self, text, timeout=10):
        deadline = time.monotonic() + timeout
        for line in list(self.log):
            if text in line:
                return line
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"log never said {text!r}:\n" + "\n".join(self.log))
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"mixerd exited before saying {text!r}:\n" + "\n".join(self.log))
            if text in line:
                return line

    def url(self, path, listener="controller"):
        return f"http://127.0.0.1:{self.ports[listener]}{path}"

    def stop(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


EMPTY_MACRO = {"type": "none", "name": "", "icon": ""}


def macro_set(slots, current=0, names=None):
    """settings.json's "macros": `slots` maps (page, index), or an index of page 0, to a Macro."""
    pages = {str(p): [EMPTY_MACRO] * 9 for p in range(4)}
    for key, m in slots.items():
        page, index = key if isinstance(key, tuple) else (0, key)
        pages[str(page)] = list(pages[str(page)])
        pages[str(page)][index] = m
    return {"current_page": current,
            "page_names": names or {str(p): f"Page {p + 1}" for p in range(4)},
            "pages": pages}


def write_settings(data_dir, content):
    """Writes DATA_DIR/settings.json: `content` as given when it is text, else as JSON."""
    os.makedirs(data_dir, exist_ok=True)
    path = os.path.join(data_dir, "settings.json")
    with open(path, "w") as f:
        f.write(content if isinstance(content, str) else json.dumps(content, indent=2))
    return path


def make_cert_pair(certs_dir, name="controller"):
    """A self-signed certificate and key for localhost in certs_dir; returns their paths."""
    os.makedirs(certs_dir, exist_ok=True)
    crt, key = os.path.join(certs_dir, name + ".crt"), os.path.join(certs_dir, name + ".key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-keyout", key, "-out", crt],
                   check=True, capture_output=True)
    return crt, key


def http(method, url, body=None, headers=None, timeout=5):
    """Returns (status, parsed JSON or raw text, headers)."""
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None and "Content-Type" not in (headers or {}):
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, raw, hdrs = resp.status, resp.read(), resp.headers
    except urllib.error.HTTPError as e:
        status, raw, hdrs = e.code, e.read(), e.headers
    text = raw.decode(errors="replace")
    try:
        return status, json.loads(text), hdrs
    except ValueError:
        return status, text, hdrs


def reply_of(resp):
    """(status, parsed JSON or raw text, headers) of an http.client response."""
    text = resp.read().decode(errors="replace")
    try:
        return resp.status, json.loads(text), resp.headers
    except ValueError:
        return resp.status, text, resp.headers


def get_json(daemon, path, listener="controller"):
    status, body, _ = http("GET", daemon.url(path, listener))
    assert status == 200, (status, body)
    return body


def other_address():
    """An address of this machine that is not loopback (a client from there is not local)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))  # no packet is sent: the kernel picks the outgoing address
        address = s.getsockname()[0]
    finally:
        s.close()
    assert not address.startswith("127."), "this machine has no address but loopback"
    return address


def wait_until(probe, timeout=5.0, interval=0.02, what="condition"):
    """Polls `probe` (state read over HTTP has no push channel yet) until it returns truthy."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what}; last value {last!r}")


@pytest.fixture
def data_dir(tmp_path):
    d = tmp_path / "data"
    return str(d)


@pytest.fixture
def device(tmp_path):
    dev = FakeDevice(str(tmp_path))
    yield dev
    dev.close()


@pytest.fixture
def daemon_factory(data_dir):
    started = []

    def make(*args, env=None, wait_ready=True, data=None, binary=None):
        d = Daemon(data or data_dir, args, env, binary)
        started.append(d)
        return d.start(wait_ready=wait_ready)

    yield make
    for d in started:
        d.stop()


@pytest.fixture
def connected(daemon_factory, device):
    """A daemon linked to the fake device, with the handshake done."""
    daemon = daemon_factory("--serial", device.path)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="connected")
    return daemon, device
