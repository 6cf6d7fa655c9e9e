"""A scripted host for the SDK's unit tests: runs `python3 -m mixerd.runner` in a plugin folder,
exactly as the daemon starts it (protocol/README.md, "Plugins"), and speaks the line protocol
with it through pipes."""
import json
import os
import pathlib
import queue
import subprocess
import sys
import textwrap
import threading

import pytest

SDK_DIR = pathlib.Path(__file__).resolve().parents[4] / "plugins" / "python"
# The tests that use the SDK in-process (mixerd.connection, mixerd.testing) import it from here.
sys.path.insert(0, str(SDK_DIR))
PYTHON = "/usr/bin/python3"
# Generous for 2 busy cores; a passing test never waits this long.
WAIT = 10.0


class ScriptedHost:
    """One plugin process; the test plays the daemon's side of the protocol."""

    def __init__(self, folder):
        self.folder = folder
        env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
        env.update(PYTHONPATH=str(SDK_DIR), PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
        self.process = subprocess.Popen(
            [PYTHON, "-s", "-B", "-m", "mixerd.runner"], cwd=folder, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True)
        self.lines = queue.Queue()
        self.raw_lines = []
        self.stderr_lines = queue.Queue()
        self.stderr_text = []
        self._next_hook_id = 1
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self):
        for line in self.process.stdout:
            self.raw_lines.append(line)
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def _read_stderr(self):
        for line in self.process.stderr:
            text = line.decode("utf-8", "replace").rstrip("\n")
            self.stderr_text.append(text)
            self.stderr_lines.put(text)

    def send(self, message):
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def next_line(self, timeout=WAIT):
        """The plugin's next protocol line (a dict); None once its standard output closed."""
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no line from the plugin within {timeout} s; stderr: "
                                 + "\n".join(self.stderr_text)) from None

    def expect(self, kind):
        line = self.next_line()
        assert line is not None, "the plugin closed its output; stderr: " + "\n".join(self.stderr_text)
        assert line["type"] == kind, line
        return line

    def init(self, entry_point="main.py", main_class="TestPlugin", plugin_id="org.example.test"):
        self.send({"type": "init", "entry_point": entry_point, "main_class": main_class,
                   "plugin": {"id": plugin_id, "name": "Test plugin", "version": "1.2.3",
                              "folder": str(self.folder)}})
        return self.next_line()

    def hook(self, name, *args):
        """Sends a hook; returns its id."""
        hook_id = self._next_hook_id
        self._next_hook_id += 1
        self.send({"type": "hook", "id": hook_id, "hook": name, "args": list(args)})
        return hook_id

    def run_hook(self, name, *args, replies=None):
        """Sends a hook and answers the plugin's calls with `replies(call)` (a dict of `result`
        or `error`) until its hook_done, which it returns. Log lines are kept in self.logs."""
        hook_id = self.hook(name, *args)
        while True:
            line = self.expect_any()
            if line["type"] == "hook_done":
                assert line["id"] == hook_id, line
                return line
            assert line["type"] == "call", line
            if "id" not in line:
                self.logs.append(line["args"])
                continue
            assert replies is not None, f"unexpected call {line}"
            self.send({"type": "reply", "id": line["id"], **replies(line)})

    def expect_any(self):
        line = self.next_line()
        assert line is not None, "the plugin closed its output; stderr: " + "\n".join(self.stderr_text)
        return line

    logs = None

    def wait_stderr(self, fragment, timeout=WAIT):
        for text in self.stderr_text:
            if fragment in text:
                return text
        while True:
            try:
                text = self.stderr_lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"{fragment!r} not on stderr: " + "\n".join(self.stderr_text)) from None
            if fragment in text:
                return text

    def close_input(self):
        self.process.stdin.close()

    def wait_exit(self, timeout=WAIT):
        return self.process.wait(timeout=timeout)

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass


@pytest.fixture
def plugin_host(tmp_path):
    """plugin_host(source, **files) writes main.py (and any other files) into a plugin folder
    and starts the runner there."""
    hosts = []

    def start(source, **files):
        folder = tmp_path / f"plugin{len(hosts)}"
        folder.mkdir()
        (folder / "main.py").write_text(textwrap.dedent(source))
        for name, text in files.items():
            (folder / name).write_text(textwrap.dedent(text))
        host = ScriptedHost(folder)
        host.logs = []
        hosts.append(host)
        return host

    yield start
    for host in hosts:
        host.stop()


EXAMPLES_DIR = SDK_DIR.parent / "examples"


@pytest.fixture
def example_host():
    """example_host(folder) starts the runner in plugins/examples/<folder>; returns the host and
    the example's manifest."""
    hosts = []

    def start(name):
        folder = EXAMPLES_DIR / name
        manifest = json.loads((folder / "manifest.json").read_text())
        host = ScriptedHost(folder)
        host.logs = []
        hosts.append(host)
        ready = host.init(entry_point=manifest["entry_point"], main_class=manifest["main_class"],
                          plugin_id=manifest["id"])
        assert ready["type"] == "ready", ready
        return host, manifest, ready

    yield start
    for host in hosts:
        host.stop()


def fake_daemon(manifest, **options):
    """A `replies` function for ScriptedHost.run_hook answering as mixerd would, from
    mixerd.testing.FakeMixerd(manifest, **options) (returned too, for its records)."""
    from mixerd.testing import FakeMixerd

    fake = FakeMixerd(manifest, **options)

    def replies(call):
        try:
            return {"result": fake.handle(call["method"], call["args"])}
        except (ValueError, TypeError, KeyError, RuntimeError) as error:
            return {"error": {"kind": type(error).__name__, "message": str(error)}}

    return replies, fake
