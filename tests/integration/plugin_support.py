"""Plugins for the integration tests: real plugin folders in the daemon's DATA_DIR, run by the real
bridge in real /usr/bin/python3 processes with the real SDK (protocol/README.md, "Plugins").

The test plugin (RECORDER) overrides every hook. Each hook it gets is appended, with its
arguments, the process id and the time (CLOCK_MONOTONIC, the same clock as the test's
time.monotonic()), to `hooks.jsonl` in its folder, so a test reads exactly what arrived. What it
does in a hook is set by `test_config.json` in its folder ("act", see Behaviour below). A test
calls the plugin's methods through a control socket the plugin serves from a thread of its own
(an abstract Unix socket, so no path length limit): PluginFolder.call("send_serial", "X") runs
self.send_serial("X") in the plugin and returns its result or raises PluginError with the
exception's type name, as the SDK raised it.
"""
import json
import os
import socket
import time
import uuid

from conftest import get_json, http, wait_until, write_settings

PLUGINS_DIR = os.path.join("plugins", "executable")

HOOKS = ["on_load", "on_unload", "on_enable", "on_disable", "on_device_connect",
         "on_device_disconnect", "on_slider_change", "on_macro_button", "on_mute_button",
         "on_encoder_turn", "on_encoder_press", "on_serial_receive", "on_page_change",
         "on_macro_page_change", "on_music_track_change", "on_macro_execute",
         "on_profile_change", "on_settings_change"]

# The test plugin. Its configuration, "act", maps a hook to what it does there:
#   "raise"                      raise ValueError
#   "exit"                       end the process at once (exit status 3)
#   "hang"                       never return (sleep for an hour)
#   "flood"                      call log() 5000 times as fast as it can
#   {"return": v, "sleep": s}    sleep s seconds (optional), then return v
# For on_serial_receive the action applies only when the line starts with "act_on" (default
# "BOOM"), so the test picks the moment; for on_macro_execute "act" holds {macro name: action}.
# "crash_at_import": true ends the process while its module is imported (a plugin that crashes
# at once); the import is still recorded as {"hook": "import"}.
RECORDER = r'''
import json
import os
import socket
import threading
import time

from mixerd import Plugin

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "test_config.json")) as f:
    CONFIG = json.load(f)
_record_lock = threading.Lock()


def record(hook, args, **extra):
    entry = {"hook": hook, "args": args, "pid": os.getpid(), "t": time.monotonic(), **extra}
    with _record_lock, open(os.path.join(HERE, "hooks.jsonl"), "a") as f:
        f.write(json.dumps(entry) + "\n")


record("import", [])
if CONFIG.get("crash_at_import"):
    os._exit(1)


class Recorder(Plugin):
    def _act(self, hook, args):
        action = CONFIG.get("act", {}).get(hook)
        if hook == "on_serial_receive" and not str(args[0]).startswith(CONFIG.get("act_on", "BOOM")):
            action = None
        if hook == "on_macro_execute":
            action = (action or {}).get(args[0].get("name"))
        if action is None:
            return False if hook == "on_macro_execute" else None
        if action == "raise":
            raise ValueError("test plugin raised in " + hook)
        if action == "exit":
            os._exit(3)
        if action == "hang":
            time.sleep(3600)
        if action == "flood":
            for i in range(5000):
                self.log("flood %d" % i)
            return None
        if "sleep" in action:
            time.sleep(action["sleep"])
        return action.get("return")

    def _serve(self, server):
        while True:
            conn, _ = server.accept()
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn):
        with conn, conn.makefile("rw") as f:
            request = json.loads(f.readline())
            args = request.get("args", [])
            if request["method"] == "register_macro_type":
                args = [args[0], self._handler(args[0], request.get("handler_returns", True))]
            try:
                reply = {"result": getattr(self, request["method"])(*args, **request.get("kwargs", {}))}
            except Exception as e:  # the test asserts on the kind
                reply = {"error": {"kind": type(e).__name__, "message": str(e)}}
            f.write(json.dumps(reply) + "\n")
            f.flush()

    def _handler(self, type_name, returns):
        def handle(macro):
            record("macro_type", [type_name, macro])
            return returns
        return handle


def _make_hook(name):
    def hook(self, *args):
        record(name, list(args))
        if name == "on_load" and CONFIG.get("control"):
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind("\0" + CONFIG["control"])
            server.listen(16)
            threading.Thread(target=self._serve, args=(server,), daemon=True).start()
        return self._act(name, args)
    hook.__name__ = name
    return hook


for _name in %HOOKS%:
    setattr(Recorder, _name, _make_hook(_name))
'''.replace("%HOOKS%", repr(HOOKS))


class PluginError(Exception):
    """A method the plugin called raised; `kind` is the exception's type name."""

    def __init__(self, kind, message):
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message


def manifest(plugin_id, **fields):
    """A valid manifest for the test plugin; `fields` override or add (None removes)."""
    m = {"id": plugin_id, "name": plugin_id.split(".")[-1].title(), "version": "1.0.0",
         "api_version": "1.0", "type": "executable", "entry_point": "main.py",
         "main_class": "Recorder", "description": "integration test plugin", "author": "tests"}
    m.update(fields)
    return {k: v for k, v in m.items() if v is not None}


class PluginFolder:
    """One plugin folder under DATA_DIR/plugins/executable/."""

    def __init__(self, data_dir, folder, plugin_id):
        self.path = os.path.join(data_dir, PLUGINS_DIR, folder)
        self.id = plugin_id
        self.control = None

    def hooks(self, name=None):
        """Every recorded hook entry in order (of every process of this plugin)."""
        try:
            with open(os.path.join(self.path, "hooks.jsonl")) as f:
                entries = [json.loads(line) for line in f if line.endswith("\n")]
        except FileNotFoundError:
            return []
        return [e for e in entries if name is None or e["hook"] == name]

    def names(self):
        return [e["hook"] for e in self.hooks()]

    def wait_hook(self, name, args=None, timeout=10, after=0):
        """The first entry of hook `name` (with exactly `args` when given) among the entries from
        index `after` on."""
        def probe():
            for e in self.hooks()[after:]:
                if e["hook"] == name and (args is None or e["args"] == args):
                    return e
            return None
        try:
            return wait_until(probe, timeout=timeout, what=f"{self.id} {name}{args or ''}")
        except AssertionError:
            raise AssertionError(f"{self.id} never got {name}{args or ''}; got "
                                 f"{[(e['hook'], e['args']) for e in self.hooks()]}") from None

    def mark(self):
        """The number of entries so far (for wait_hook's `after`)."""
        return len(self.hooks())

    def call(self, method, *args, handler_returns=None, timeout=15, **kwargs):
        """Runs self.<method>(*args, **kwargs) in the plugin, on its control thread."""
        assert self.control, "plugin installed without a control socket"
        request = {"method": method, "args": list(args), "kwargs": kwargs}
        if handler_returns is not None:
            request["handler_returns"] = handler_returns
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect("\0" + self.control)
            s.sendall(json.dumps(request).encode() + b"\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    raise AssertionError(f"the plugin closed the control socket during {method}")
                data += chunk
        reply = json.loads(data)
        if "error" in reply:
            raise PluginError(reply["error"]["kind"], reply["error"]["message"])
        return reply["result"]


def install(data_dir, plugin_id, folder=None, act=None, control=True, source=RECORDER,
            manifest_text=None, **config):
    """Writes a plugin folder (manifest.json, main.py, test_config.json) into DATA_DIR; returns
    its PluginFolder. `manifest_text` replaces the manifest with raw text (broken ones)."""
    plugin = PluginFolder(data_dir, folder or plugin_id, plugin_id)
    os.makedirs(plugin.path, exist_ok=True)
    if manifest_text is None:
        manifest_text = json.dumps(manifest(plugin_id, **config.pop("manifest", {})), indent=2)
    with open(os.path.join(plugin.path, "manifest.json"), "w") as f:
        f.write(manifest_text)
    with open(os.path.join(plugin.path, "main.py"), "w") as f:
        f.write(source)
    if control:
        plugin.control = "mixerd-test-" + uuid.uuid4().hex
    with open(os.path.join(plugin.path, "test_config.json"), "w") as f:
        json.dump({"control": plugin.control, "act": act or {}, **config}, f)
    return plugin


# ---- the daemon's side ---------------------------------------------------------------------------

def plugin_list(daemon):
    return get_json(daemon, "/api/plugins")["plugins"]


def plugin_info(daemon, plugin_id):
    for p in plugin_list(daemon):
        if p["id"] == plugin_id:
            return p
    return None


def wait_state(daemon, plugin_id, state, timeout=15, predicate=lambda p: True):
    """Polls GET /api/plugins until the plugin is in `state` (and `predicate` holds); returns it."""
    last = []

    def probe():
        info = plugin_info(daemon, plugin_id)
        last[:] = [info]
        return info if info and info["state"] == state and predicate(info) else None
    try:
        return wait_until(probe, timeout=timeout, what=f"{plugin_id} {state}")
    except AssertionError:
        raise AssertionError(f"{plugin_id} never became {state}; last {last}") from None


def switch(daemon, plugin_id, enabled):
    return http("POST", daemon.url(f"/api/plugins/{plugin_id}"), {"enabled": enabled})[:2]


def read_settings(data_dir):
    with open(os.path.join(data_dir, "settings.json")) as f:
        return json.load(f)


def plugin_processes(data_dir):
    """Pids of the live processes whose working folder is inside DATA_DIR/plugins (the
    plugins')."""
    root = os.path.realpath(os.path.join(data_dir, PLUGINS_DIR))
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cwd = os.readlink(f"/proc/{entry}/cwd")
            except OSError:  # gone, or a zombie
                continue
            if cwd == root or cwd.startswith(root + os.sep):
                pids.append(int(entry))
    return pids


def zombie_children(pid):
    """Pids of the unreaped children of `pid`."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] == "Z" and int(fields[1]) == pid:
                out.append(int(entry))
    return out


def slider_latency(daemon, client, value):
    """Seconds from a REST slider set to its slider_change at `client` (a stock client)."""
    began = time.monotonic()
    status, body = http("POST", daemon.url("/api/sliders/1"), {"value": value})[:2]
    assert status == 200, (status, body)
    client.event("slider_change", lambda e: e["index"] == 1 and e["value"] == value, timeout=10)
    return time.monotonic() - began


def latencies(daemon, client, count, start_value):
    """`count` slider latencies in a row (values cycle so each change is a real change)."""
    return [slider_latency(daemon, client, (start_value + i) % 101) for i in range(count)]


def figures(samples):
    ms = sorted(x * 1000 for x in samples)
    return f"median {ms[len(ms) // 2]:.1f} ms, max {ms[-1]:.1f} ms over {len(ms)}"


def start_connected(daemon_factory, device, *plugins, settings=None, data_dir=None):
    """A daemon linked to the fake device with `plugins` running (on_enable done)."""
    if settings is not None:
        write_settings(data_dir, settings)
    daemon = daemon_factory("--serial", device.path)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="connected")
    for p in plugins:
        wait_state(daemon, p.id, "running")
        p.wait_hook("on_enable")
    return daemon
