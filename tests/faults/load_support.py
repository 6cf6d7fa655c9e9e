"""Drivers for the fan-out load test: the pty line sender, the node client processes
(node/load_clients.js) and the client that stops reading."""
import array
import json
import os
import queue
import socket
import subprocess
import threading
import time

import websocket

import fault_support  # noqa: F401 (puts tests/integration on the path)
from socketio_support import NODE_DIR

HERE = os.path.dirname(os.path.abspath(__file__))
LOAD_CLIENTS_JS = os.path.join(HERE, "node", "load_clients.js")


def slider_line(n):
    """The n-th line the sender writes (load_clients.js expects exactly this sequence): four
    sliders in turn, each value differing from that slider's previous one (the mixer drops a
    report of the value it already has) by more than the deadband (steps of +3, and -98 at each
    wrap: a step of 1 back would be taken for a noisy potentiometer)."""
    return f"SLIDER,{n % 4},{(n // 4) * 3 % 101}"


class PacedSender:
    """Writes slider_line(n) to the device at `rate` lines/s on an absolute schedule (a late line
    goes out at once, so the rate holds on average) and keeps each line's send time. run() may
    be called again after a pause: the numbering goes on."""

    def __init__(self, device, rate):
        self.device = device
        self.rate = rate
        self.send_times = []
        self.stop_at = None  # monotonic time to stop; the test may move it while running
        self._thread = None

    def start(self, stop_at):
        self.stop_at = stop_at
        self._thread = threading.Thread(target=self._run, args=(time.monotonic(),), daemon=True)
        self._thread.start()

    def sent(self):
        return len(self.send_times)

    def _run(self, started):
        first = n = len(self.send_times)
        while True:
            due = started + (n - first) / self.rate
            now = time.monotonic()
            if due >= self.stop_at:
                return
            if due > now:
                time.sleep(due - now)
            stamp = time.monotonic()
            self.device.send(slider_line(n))
            self.send_times.append(stamp)
            n += 1

    def join(self):
        self._thread.join()

    def write_times(self, path):
        with open(path, "wb") as f:
            array.array("d", self.send_times).tofile(f)


class NodeLoad:
    """`count` socket.io-client connections (websocket transport) in one node process."""

    def __init__(self, url, count, capacity):
        if not os.path.isdir(os.path.join(NODE_DIR, "node_modules", "socket.io-client")):
            raise AssertionError(f"socket.io-client missing: run `npm ci` in {NODE_DIR}")
        env = {**os.environ, "NODE_PATH": os.path.join(NODE_DIR, "node_modules")}
        self.count = count
        self.proc = subprocess.Popen(["node", LOAD_CLIENTS_JS, url, str(count), str(capacity)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1, env=env)
        self.messages = queue.Queue()
        self.errors = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            msg = json.loads(line)
            if msg["type"] == "error":
                self.errors.append(msg["message"])
            else:
                self.messages.put(msg)
        self.messages.put(None)

    def expect(self, type_, timeout):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"node clients: no {type_} within {timeout} s; errors {self.errors[:5]}")
            try:
                msg = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if msg is None:
                raise AssertionError(f"node clients exited: {self.proc.stderr.read()[-2000:]}")
            if msg["type"] == type_:
                return msg

    def command(self, **cmd):
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()

    def fewest_received(self):
        """The smallest slider_change count among this process's clients."""
        self.command(cmd="progress")
        return self.expect("progress", timeout=30)["min"]

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (subprocess.TimeoutExpired, BrokenPipeError):
                self.proc.kill()
                self.proc.wait()


class StalledClient:
    """A raw Engine.IO websocket that completes the Socket.IO handshake and then never reads.
    Its receive buffer is made small, so what the server sends piles up on the server side."""

    def __init__(self, daemon):
        url = daemon.url("/socket.io/?EIO=4&transport=websocket").replace("http://", "ws://")
        self.ws = websocket.create_connection(
            url, timeout=10, sockopt=((socket.SOL_SOCKET, socket.SO_RCVBUF, 4096),))
        assert self.ws.recv().startswith("0{")
        self.ws.send("40")
        while not self.ws.recv().startswith("40"):
            pass  # the namespace connect answer; from here on nothing is read
        self.local_port = self.ws.sock.getsockname()[1]

    def send(self, text):
        self.ws.send(text)

    def close(self):
        try:
            self.ws.sock.close()
        except OSError:
            pass
