"""A private headless X server (Xvfb) and a client that records the keys it receives.

The hotkey tests point the daemon's $DISPLAY at the Xvfb; the daemon then presses keys through
XTest (uinput is absent on test machines). KeyRecorder sees them through the RECORD extension
(python3-xlib), as the core KeyPress and KeyRelease events the server delivers, in order. Both are
installed by tools/install-deps.sh --with-tests; a machine without them fails these tests loudly.
"""
import ctypes
import os
import select
import shutil
import subprocess
import threading
import time

import pytest
from Xlib import X, display
from Xlib.ext import record
from Xlib.protocol import rq

XVFB = shutil.which("Xvfb") or "/usr/bin/Xvfb"
_libx11 = ctypes.CDLL("libX11.so.6")
_libx11.XKeysymToString.restype = ctypes.c_char_p
_libx11.XKeysymToString.argtypes = [ctypes.c_ulong]


def keysym_name(keysym):
    """The X name of a keysym ("Control_L", "m", "XF86AudioPlay"), as xev prints it."""
    name = _libx11.XKeysymToString(keysym)
    return name.decode() if name else hex(keysym)


class XServer:
    """Xvfb on a display number it picks itself (-displayfd): free of clashes with other servers
    and other test runs. `display` (":N") is known once the server accepts connections.
    `wrap` turns the command into the one to run (e.g. inside a network namespace)."""

    def __init__(self, screen="320x240x24", wrap=lambda argv: argv):
        assert os.path.exists(XVFB), "Xvfb is missing: run tools/install-deps.sh --with-tests"
        ready_read, ready_write = os.pipe()
        # -noreset: the server keeps its state when its last client leaves (the daemon connects
        # per key press).
        self.proc = subprocess.Popen(
            wrap([XVFB, "-displayfd", str(ready_write), "-screen", "0", screen, "-nolisten", "tcp",
                  "-noreset"]),
            pass_fds=(ready_write,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE)
        os.close(ready_write)
        number = b""
        deadline = time.monotonic() + 15
        try:
            while not number.endswith(b"\n"):
                left = deadline - time.monotonic()
                ready, _, _ = select.select([ready_read], [], [], max(left, 0))
                chunk = os.read(ready_read, 16) if ready else b""
                if not chunk:
                    self.stop()
                    raise AssertionError("Xvfb did not start: " +
                                         self.proc.stderr.read().decode(errors="replace")[-2000:])
                number += chunk
        finally:
            os.close(ready_read)
        self.display = ":" + number.decode().strip()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class KeyRecorder:
    """Every key press and release the X server receives from any client, as
    ("down" | "up", keysym name of the key's first level) in order: Shift+m is Shift_L then m."""

    def __init__(self, display_name):
        self._control = display.Display(display_name)
        self._recording = display.Display(display_name)
        assert self._recording.has_extension("RECORD"), "the X server has no RECORD extension"
        self._context = self._recording.record_create_context(
            0, [record.AllClients],
            [{"core_requests": (0, 0), "core_replies": (0, 0), "ext_requests": (0, 0, 0, 0),
              "ext_replies": (0, 0, 0, 0), "delivered_events": (0, 0),
              "device_events": (X.KeyPress, X.KeyRelease), "errors": (0, 0),
              "client_started": False, "client_died": False}])
        self._cond = threading.Condition()
        self.keys = []
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        # The server answers StartOfData once recording is on: keys after that are all seen.
        assert self._started.wait(10), "the X server never started recording"

    def _run(self):
        # Returns when the context is disabled (stop()).
        self._recording.record_enable_context(self._context, self._on_reply)
        self._recording.record_free_context(self._context)

    def _on_reply(self, reply):
        if reply.category == record.StartOfData:
            self._started.set()
            return
        if reply.category != record.FromServer or reply.client_swapped:
            return
        data = reply.data
        while len(data):
            event, data = rq.EventField(None).parse_binary_value(
                data, self._recording.display, None, None)
            if event.type in (X.KeyPress, X.KeyRelease):
                keysym = self._control.keycode_to_keysym(event.detail, 0)
                with self._cond:
                    self.keys.append(("down" if event.type == X.KeyPress else "up",
                                      keysym_name(keysym)))
                    self._cond.notify_all()

    def wait_for(self, count, timeout=10):
        """The first `count` keys recorded, once there are that many."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.keys) >= count, timeout):
                raise AssertionError(f"the X server saw {self.keys}, fewer than {count} keys")
            return list(self.keys[:count])

    def take(self, count, timeout=10):
        """Like wait_for, and forgets them: the next call sees only later keys."""
        keys = self.wait_for(count, timeout)
        with self._cond:
            del self.keys[:count]
        return keys

    def stop(self):
        self._control.record_disable_context(self._context)
        self._control.sync()
        self._thread.join(timeout=10)
        self._control.close()


@pytest.fixture
def xserver():
    server = XServer()
    yield server
    server.stop()


@pytest.fixture
def key_recorder(xserver):
    recorder = KeyRecorder(xserver.display)
    yield recorder
    recorder.stop()
