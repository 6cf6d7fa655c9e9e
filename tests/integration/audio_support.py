"""Private, real audio servers for the audio tests, and pactl to read what they really have.

Two servers with one interface, so that every audio test runs on both (the `pulse` fixture is
parametrized, ids "pulseaudio" and "pipewire"):
- PulseServer: PulseAudio itself.
- PipeWireServer: PipeWire as Raspberry Pi OS and most desktops run it: pipewire, the session
  manager wireplumber and pipewire-pulse (the PulseAudio protocol mixerd speaks), on a private
  session bus.
Each runs in its own runtime folder (also its HOME) with a null sink ("testsink", the default
output) and a null source ("testmic", the default microphone); nothing reaches the machine's own
audio or its session. Streams are real clients playing silence with the application properties
a test chooses: pacat (`play`) or PipeWire's own pw-play (`play_pw`).

A server that cannot start (e.g. its packages are missing: tools/install-deps.sh --with-tests)
fails the test; it is never skipped.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

PULSEAUDIO = shutil.which("pulseaudio") or "/usr/bin/pulseaudio"
START_TIMEOUT = 10


def _wait_for(probe, what, procs=(), logs=(), timeout=START_TIMEOUT):
    """Polls `probe` until truthy; fails early when one of `procs` has exited."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        dead = [p.args[0] for p in procs if p.poll() is not None]
        if dead or time.monotonic() > deadline:
            tails = []
            for log in logs:
                try:
                    with open(log, errors="replace") as f:
                        tail = "".join(f.readlines()[-15:])
                    tails.append(f"--- {os.path.basename(log)}:\n{tail}")
                except OSError:
                    pass
            raise AssertionError(f"{what}: " + (f"{dead} exited" if dead else "timed out") +
                                 ("\n" + "\n".join(tails) if tails else ""))
        time.sleep(0.02)


class AudioServer:
    """What both servers share: pactl over PULSE_SERVER, and streams played into them."""

    kind = None  # "pulseaudio" or "pipewire"

    def __init__(self, runtime_dir):
        self.runtime_dir = str(runtime_dir)
        os.makedirs(self.runtime_dir, mode=0o700, exist_ok=True)
        self.socket = os.path.join(self.runtime_dir, "pulse", "native")
        env = dict(os.environ, XDG_RUNTIME_DIR=self.runtime_dir,
                   PULSE_SERVER="unix:" + self.socket, HOME=self.runtime_dir)
        # Nothing of the user's own session may leak in (their config, state or PipeWire).
        for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
                     "PIPEWIRE_REMOTE", "PIPEWIRE_RUNTIME_DIR", "PULSE_COOKIE",
                     "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY"):
            env.pop(name, None)
        self.env = env
        self.streams = []
        self.players = {}  # sink-input index -> its client process

    def stop(self):
        """Ends the server for good (the fixture's teardown)."""
        self.kill()

    def _kill_streams(self):
        for s in self.streams:
            if s.poll() is None:
                s.kill()
            s.wait()
        self.streams = []
        self.players = {}

    def pactl(self, *args):
        out = subprocess.run(["pactl", *args], env=self.env, capture_output=True, text=True)
        assert out.returncode == 0, (args, out.stderr)
        return out.stdout

    def query(self, what):
        return json.loads(self.pactl("-f", "json", "list", what))

    def play(self, app_name, binary=None, props=None):
        """Starts a pacat stream; returns its sink-input index once the server lists it.

        `props` adds stream properties, e.g.
        {"pipewire.access.portal.app_id": "com.discordapp.Discord"}.
        """
        props = {**_app_props(app_name, binary), **(props or {})}
        return self._start_stream(
            ["pacat", "--playback", "--raw", "--format=s16le", "--rate=44100", "--channels=2",
             f"--client-name={app_name}", *(f"--property={k}={v}" for k, v in props.items()),
             "/dev/zero"], app_name)

    def play_pw(self, app_name, binary=None, props=None):
        """Starts a stream with PipeWire's native pw-play (its properties through --properties)
        on PipeWire; PulseAudio has no native PipeWire client, so there the same properties go
        through pacat (as `play`). Returns the sink-input index."""
        return self.play(app_name, binary, props)

    def _start_stream(self, argv, what, **popen):
        before = {s["index"] for s in self.query("sink-inputs")}
        proc = subprocess.Popen(argv, env=self.env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, **popen)
        self.streams.append(proc)

        def new_index():
            new = [s["index"] for s in self.query("sink-inputs") if s["index"] not in before]
            return new[0] + 1 if new else None  # + 1: index 0 is a valid, falsy index

        index = _wait_for(new_index, f"stream {what} never appeared", procs=[proc]) - 1
        self.players[index] = proc
        return index

    def end_stream(self, index):
        """Ends the client playing stream `index` (the app closes it) and waits until the
        server no longer lists it."""
        proc = self.players.pop(index)
        proc.terminate()
        proc.wait()
        _wait_for(lambda: all(s["index"] != index for s in self.query("sink-inputs")),
                  f"stream {index} still listed after its client ended")

    def stream(self, index):
        return next(s for s in self.query("sink-inputs") if s["index"] == index)

    def device(self, kind, name):
        return next(d for d in self.query(kind) if d["name"] == name)


def _app_props(app_name, binary):
    props = {"application.name": app_name}
    if binary:
        props["application.process.binary"] = binary
    return props


class PulseServer(AudioServer):
    kind = "pulseaudio"

    def __init__(self, runtime_dir):
        super().__init__(runtime_dir)
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            [PULSEAUDIO, "--daemonize=no", "--system=false", "--exit-idle-time=-1", "-n",
             "--log-target=stderr", "--log-level=error",
             # Remembers each app's volume for its next stream, as a default install does
             # (on PipeWire, wireplumber does).
             "-L", "module-stream-restore",
             "-L", "module-null-sink sink_name=testsink",
             "-L", "module-null-source source_name=testmic",
             "-L", "module-native-protocol-unix auth-anonymous=1"],
            env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        _wait_for(lambda: subprocess.run(["pactl", "info"], env=self.env,
                                         capture_output=True).returncode == 0,
                  "pulseaudio did not start", procs=[self.proc])
        self.pactl("set-default-sink", "testsink")
        self.pactl("set-default-source", "testmic")
        return self

    def kill(self):
        """SIGKILL, as a crashing server; its streams die with it."""
        self._kill_streams()
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


# The private session bus: no service activation (no service folders), so nothing of the
# desktop is started on it; wireplumber needs a session bus, or it exits and streams stay unlinked.
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={path}</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""

# wireplumber must not take the machine's sound cards, cameras or Bluetooth devices: the test
# server has only its null sink and source. Sorted between the packaged 50-*-config.lua files
# and 90-enable-all.lua, which reads these switches.
WIREPLUMBER_MAIN = """alsa_monitor.enabled = false
v4l2_monitor.enabled = false
libcamera_monitor.enabled = false
"""
WIREPLUMBER_BLUETOOTH = "bluez_monitor.enabled = false\n"


class PipeWireServer(AudioServer):
    kind = "pipewire"
    # Started in this order, stopped in the reverse one.
    DAEMONS = ("pipewire", "wireplumber", "pipewire-pulse")

    def __init__(self, runtime_dir):
        super().__init__(runtime_dir)
        self.bus_path = os.path.join(self.runtime_dir, "bus")
        self.env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=" + self.bus_path
        # Nor the system bus (RTKit, logind, BlueZ): a private server asks no one there.
        self.env["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/mixerd-tests/system_bus"
        self.bus = None
        self.procs = {}
        for folder, text in (("main.lua.d", WIREPLUMBER_MAIN),
                             ("bluetooth.lua.d", WIREPLUMBER_BLUETOOTH)):
            path = os.path.join(self.runtime_dir, ".config", "wireplumber", folder)
            os.makedirs(path, exist_ok=True)
            with open(os.path.join(path, "51-mixerd-tests.lua"), "w") as f:
                f.write(text)

    def _log(self, name):
        return os.path.join(self.runtime_dir, f"{name}.log")

    def _spawn(self, name, argv, **popen):
        exe = shutil.which(argv[0])
        assert exe, (f"{argv[0]} is not installed (tools/install-deps.sh --with-tests installs "
                     "pipewire, wireplumber, pipewire-pulse and pipewire-bin)")
        with open(self._log(name), "ab") as log:
            return subprocess.Popen([exe, *argv[1:]], env=self.env, stdin=subprocess.DEVNULL,
                                    stderr=log, **popen)

    def _start_bus(self):
        if self.bus and self.bus.poll() is None:
            return  # a server crash leaves the session bus running, as on a desktop
        if os.path.exists(self.bus_path):
            os.unlink(self.bus_path)
        conf = os.path.join(self.runtime_dir, "bus.conf")
        with open(conf, "w") as f:
            f.write(BUS_CONFIG.format(path=self.bus_path))
        self.bus = self._spawn("dbus", ["dbus-daemon", f"--config-file={conf}", "--nofork",
                                        "--nopidfile", "--print-address=1"],
                               stdout=subprocess.PIPE)
        # The address is printed once the bus listens.
        address = self.bus.stdout.readline().decode().strip()
        assert address, f"the private session bus did not start (see {self._log('dbus')})"

    def start(self):
        self._start_bus()
        logs = [self._log(n) for n in self.DAEMONS]
        self.procs["pipewire"] = self._spawn("pipewire", ["pipewire"], stdout=subprocess.DEVNULL)
        core = os.path.join(self.runtime_dir, "pipewire-0")
        _wait_for(lambda: os.path.exists(core), "pipewire did not start",
                  procs=self.procs.values(), logs=logs)
        for name in self.DAEMONS[1:]:
            self.procs[name] = self._spawn(name, [name], stdout=subprocess.DEVNULL)
        _wait_for(lambda: subprocess.run(["pactl", "info"], env=self.env,
                                         capture_output=True).returncode == 0,
                  "pipewire-pulse did not answer", procs=self.procs.values(), logs=logs)
        # module-null-source is not among pipewire-pulse's modules: a null sink of the class of a
        # virtual source is its null source.
        self.pactl("load-module", "module-null-sink", "sink_name=testsink")
        self.pactl("load-module", "module-null-sink", "media.class=Audio/Source/Virtual",
                   "sink_name=testmic", "channel_map=front-left,front-right")
        # The defaults live in wireplumber's "default" metadata (setting one fails with "Not
        # supported" until it exists), and wireplumber chooses the server's defaults from the
        # configured ones: once they are ours, the session manager is up and links streams.
        def defaults_set():
            for what, name in (("sink", "testsink"), ("source", "testmic")):
                if subprocess.run(["pactl", f"set-default-{what}", name], env=self.env,
                                  capture_output=True).returncode != 0:
                    return False
            info = self.pactl("info")
            return "Default Sink: testsink\n" in info and "Default Source: testmic\n" in info
        _wait_for(defaults_set, "wireplumber did not make testsink and testmic the defaults",
                  procs=self.procs.values(), logs=logs)
        return self

    def _end(self, sig, names):
        for name in names:
            proc = self.procs.pop(name, None)
            if proc and proc.poll() is None:
                proc.send_signal(sig)
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()

    def kill(self):
        """SIGKILL to the audio server's processes, as a crash; its streams die with it. The
        session bus stays, as on a desktop; start() brings the server back."""
        self._kill_streams()
        self._end(signal.SIGKILL, reversed(self.DAEMONS))

    def stop(self):
        self._kill_streams()
        self._end(signal.SIGTERM, reversed(self.DAEMONS))
        if self.bus and self.bus.poll() is None:
            self.bus.terminate()
            self.bus.wait()
        if self.bus:
            self.bus.stdout.close()
        self.bus = None

    def play_pw(self, app_name, binary=None, props=None):
        props = {**_app_props(app_name, binary), **(props or {})}
        # SPA JSON takes JSON strings for keys and values.
        spa = "{ " + " ".join(f"{json.dumps(k)} = {json.dumps(str(v))}"
                              for k, v in props.items()) + " }"
        with open("/dev/zero", "rb") as zero:
            return self._start_stream(["pw-play", "--format=s16", "--rate=44100", "--channels=2",
                                       f"--properties={spa}", "-"], app_name, stdin=zero)


def percents(obj):
    """Every channel's volume in percent, e.g. [30, 30]."""
    return [round(ch["value"] * 100 / 65536) for ch in obj["volume"].values()]


def volume_of(obj):
    """The volume when all channels agree (mixerd sets them all alike), else None."""
    values = set(percents(obj))
    return values.pop() if len(values) == 1 else None


SERVERS = {"pulseaudio": PulseServer, "pipewire": PipeWireServer}


@pytest.fixture(params=list(SERVERS))
def pulse(request):
    """A private audio server for one test, once PulseAudio and once PipeWire (tests import this
    fixture by name; `pulse.kind` says which)."""
    runtime = tempfile.mkdtemp(prefix="mixerd-pa-", dir="/tmp")  # short: unix socket paths
    server = SERVERS[request.param](runtime)
    try:
        yield server.start()
    finally:
        server.stop()
        shutil.rmtree(runtime, ignore_errors=True)
