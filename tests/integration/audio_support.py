"""A private, real PulseAudio daemon for the audio tests, and pactl to read what it really has.

The server runs in its own runtime folder with a null sink ("testsink"), a null source
("testmic", the default microphone) and an anonymous native socket; nothing reaches the
machine's own audio. Streams are real pacat clients playing /dev/zero with the application
properties a test chooses.
"""
import json
import os
import shutil
import subprocess
import tempfile
import time

import pytest

PULSEAUDIO = shutil.which("pulseaudio") or "/usr/bin/pulseaudio"


class PulseServer:
    def __init__(self, runtime_dir):
        self.runtime_dir = str(runtime_dir)
        os.makedirs(self.runtime_dir, exist_ok=True)
        self.socket = os.path.join(self.runtime_dir, "pulse", "native")
        self.env = dict(os.environ, XDG_RUNTIME_DIR=self.runtime_dir,
                        PULSE_SERVER="unix:" + self.socket, HOME=self.runtime_dir)
        self.proc = None
        self.streams = []

    def start(self):
        self.proc = subprocess.Popen(
            [PULSEAUDIO, "--daemonize=no", "--system=false", "--exit-idle-time=-1", "-n",
             "--log-target=stderr", "--log-level=error",
             "-L", "module-null-sink sink_name=testsink",
             "-L", "module-null-source source_name=testmic",
             "-L", "module-native-protocol-unix auth-anonymous=1"],
            env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while subprocess.run(["pactl", "info"], env=self.env, capture_output=True).returncode != 0:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("pulseaudio did not start")
            time.sleep(0.02)
        self.pactl("set-default-sink", "testsink")
        self.pactl("set-default-source", "testmic")
        return self

    def kill(self):
        """SIGKILL, as a crashing server; its streams die with it."""
        for s in self.streams:
            s.kill()
            s.wait()
        self.streams = []
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def pactl(self, *args):
        out = subprocess.run(["pactl", *args], env=self.env, capture_output=True, text=True)
        assert out.returncode == 0, (args, out.stderr)
        return out.stdout

    def query(self, what):
        return json.loads(self.pactl("-f", "json", "list", what))

    def play(self, app_name, binary=None, props=None):
        """Starts a stream with these application properties (`props`: any others, e.g. a
        Flatpak app id); returns its sink-input index once the server lists it."""
        extra = props or {}
        props = [f"--property=application.name={app_name}"]
        if binary:
            props.append(f"--property=application.process.binary={binary}")
        props += [f"--property={key}={value}" for key, value in extra.items()]
        before = {s["index"] for s in self.query("sink-inputs")}
        proc = subprocess.Popen(["pacat", "--playback", "--raw", "--format=s16le", "--rate=44100",
                                 "--channels=2", f"--client-name={app_name}", *props, "/dev/zero"],
                                env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.streams.append(proc)
        deadline = time.monotonic() + 10
        while True:
            new = [s["index"] for s in self.query("sink-inputs") if s["index"] not in before]
            if new:
                return new[0]
            assert time.monotonic() < deadline, f"stream {app_name} never appeared"
            time.sleep(0.02)

    def stream(self, index):
        return next(s for s in self.query("sink-inputs") if s["index"] == index)

    def device(self, kind, name):
        return next(d for d in self.query(kind) if d["name"] == name)


def percents(obj):
    """Every channel's volume in percent, e.g. [30, 30]."""
    return [round(ch["value"] * 100 / 65536) for ch in obj["volume"].values()]


def volume_of(obj):
    """The volume when all channels agree (mixerd sets them all alike), else None."""
    values = set(percents(obj))
    return values.pop() if len(values) == 1 else None


@pytest.fixture
def pulse():
    """A private PulseAudio for one test (tests import this fixture by name)."""
    runtime = tempfile.mkdtemp(prefix="mixerd-pa-", dir="/tmp")  # short: unix socket paths
    server = PulseServer(runtime).start()
    yield server
    server.kill()
    shutil.rmtree(runtime, ignore_errors=True)
