"""A private session D-Bus and real mpv players with the mpv-mpris plugin, for the music tests.

The bus is a dbus-daemon of type session in a temporary folder, with an allow-all policy and no
service folders (nothing is activated on it, so playerctld and friends stay away). The tracks
are short tones that sox writes with their own TITLE and ARTIST tags. mpv plays them without
audio output and takes commands on its JSON IPC socket, which the tests also use to read what
mpv itself says (pause state, playlist position).
"""
import json
import os
import shutil
import socket
import subprocess
import time

import pytest

MPRIS_PLUGIN = "/usr/lib/mpv-mpris/mpris.so"

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
    <allow user="*"/>
  </policy>
</busconfig>
"""

# (file name, TITLE, ARTIST): two tracks so that `next` changes the title.
TRACKS = [("first.flac", "First Tone", "Alice Example"),
          ("second.flac", "Second Tone", "Bob Example")]


def missing_tools():
    """The programs the music tests need that this machine lacks (empty: all there)."""
    wanted = ["dbus-daemon", "mpv", "sox", "busctl"]
    out = [t for t in wanted if shutil.which(t) is None]
    if not os.path.exists(MPRIS_PLUGIN):
        out.append(MPRIS_PLUGIN)
    return out


def wait_for(probe, timeout, what):
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


class SessionBus:
    def __init__(self, folder):
        self.folder = str(folder)
        os.makedirs(self.folder, exist_ok=True)
        self.socket = os.path.join(self.folder, "bus")
        self.address = "unix:path=" + self.socket
        self.proc = None

    def start(self):
        config = os.path.join(self.folder, "bus.conf")
        with open(config, "w") as f:
            f.write(BUS_CONFIG.format(socket=self.socket))
        self.proc = subprocess.Popen(["dbus-daemon", "--config-file=" + config, "--nofork",
                                      "--nopidfile"], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: self.busctl("status").returncode == 0 or self.proc.poll() is not None,
                 10, "the session bus")
        assert self.proc.poll() is None, "dbus-daemon exited"
        return self

    def busctl(self, *args):
        return subprocess.run(["busctl", "--address=" + self.address, *args],
                              capture_output=True, text=True, timeout=10)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if os.path.exists(self.socket):
            os.unlink(self.socket)


def make_tracks(folder):
    """Writes the TRACKS as 10-minute tones (quiet sine waves) and returns their paths."""
    paths = []
    for i, (name, title, artist) in enumerate(TRACKS):
        path = os.path.join(str(folder), name)
        if not os.path.exists(path):
            subprocess.run(["sox", "-n", "--comment", "TITLE=" + title, "--add-comment",
                            "ARTIST=" + artist, "--add-comment", "ALBUM=Test Tones", "-r", "8000",
                            "-c", "1", path, "synth", "600", "sine", str(440 + 110 * i), "vol",
                            "0.1"], check=True, capture_output=True)
        paths.append(path)
    return paths


class Mpv:
    """One mpv with the MPRIS plugin on `bus`, playing `files` as a playlist (each file looped,
    so the track only changes when told to)."""

    def __init__(self, bus, folder, files, pause=False):
        self.bus = bus
        self.ipc = os.path.join(str(folder), "mpv.sock")
        args = ["mpv", "--no-config", "--script=" + MPRIS_PLUGIN, "--no-video", "--ao=null",
                "--no-terminal", "--loop-file=inf", "--idle=no", "--input-ipc-server=" + self.ipc]
        if pause:
            args.append("--pause")
        env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=bus.address)
        self.proc = subprocess.Popen(args + list(files), env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._request_id = 0

    def wait_on_bus(self, timeout=10):
        wait_for(lambda: self.bus.busctl("status", "org.mpris.MediaPlayer2.mpv").returncode == 0,
                 timeout, "mpv on the bus")
        return self

    def get(self, prop):
        """A property as mpv itself reports it (JSON IPC); None while it is unavailable."""
        self._request_id += 1
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(self.ipc)
            s.sendall(json.dumps({"command": ["get_property", prop],
                                  "request_id": self._request_id}).encode() + b"\n")
            buf = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    raise AssertionError("mpv closed its IPC socket")
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    msg = json.loads(line)
                    if msg.get("request_id") == self._request_id:
                        if msg.get("error") == "property unavailable":
                            return None  # e.g. media-title before the file is open
                        assert msg.get("error") == "success", msg
                        return msg.get("data")

    def command(self, *args):
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(self.ipc)
            s.sendall(json.dumps({"command": list(args)}).encode() + b"\n")

    def quit(self):
        if self.proc.poll() is None:
            self.command("quit")
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def session_bus(tmp_path):
    if missing_tools():
        pytest.skip("music tests need " + ", ".join(missing_tools()) +
                    " (tools/install-deps.sh installs them)")
    bus = SessionBus(tmp_path / "dbus").start()
    yield bus
    bus.stop()


@pytest.fixture
def mpv_factory(session_bus, tmp_path):
    """mpv_factory(pause=False) -> an mpv playing the two tracks on the private bus, present on it."""
    players = []
    tracks = make_tracks(tmp_path)

    def make(pause=False):
        folder = tmp_path / f"mpv{len(players)}"
        folder.mkdir()
        player = Mpv(session_bus, folder, tracks, pause=pause)
        players.append(player)
        return player.wait_on_bus()

    yield make
    for p in players:
        p.kill()
