"""Hardening 25.9. What a plugin starts ends with it, and a plugin runs only its own files.

1. A plugin starts, in on_enable, children that try to outlive it: one that leaves its session
   (subprocess with start_new_session) and one double-forked the way a daemon detaches (fork,
   setsid, fork again, the middle process exits: the grandchild loses its parent and its
   session). Each is a python3 sleeping an hour with a tag in its argv. The plugin is then
   stopped every way it can end: switched off (on_disable, on_unload, its input closed), a crash
   (it exits by itself: the daemon asked nothing first) and the daemon's stop. After each, no
   tagged process of that plugin process may still run (within 5 s: SIGTERM, SIGKILL after 1 s),
   and the daemon must not keep zombies of the orphans it adopts (those it ended, and those that
   end by themselves while the plugin runs: a shell's `sleep 0.2 &`). Short scale: one round of
   each with one child of each kind; full: three rounds with three of each.
2. A plugin whose entry_point is a symbolic link to a file outside its folder, and one whose
   manifest.json is, are listed invalid and their code never runs (it would write a file);
   a link inside the folder, and a plugin folder that is itself a link, still work.

Printed: the tagged processes running before each stop and left after it; the plugins whose code
ran from outside their folder.
"""
import json
import os
import signal
import time

import pytest

from fault_support import figures, scaled, stop_cleanly
from integration_harness import daemon_factory, data_dir, device  # noqa: F401 (fixtures)
from integration_harness import get_json, wait_until
from plugin_support import PLUGINS_DIR, install, manifest, plugin_info, switch, wait_state, \
    zombie_children

ROUNDS = scaled(3, 1)
EACH = scaled(3, 1)
GONE_WITHIN_S = 5.0

ESCAPER = r'''
import json
import os
import subprocess
import sys

from mixerd import Plugin

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "test_config.json")) as f:
    CONFIG = json.load(f)


def sleeper(tag):
    return [sys.executable, "-c", "import time; time.sleep(3600)", tag]


def detach(tag):
    """The classic daemon: fork, setsid, fork, the middle one exits at once."""
    middle = os.fork()
    if middle == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, sleeper(tag))
        finally:
            os._exit(0)
    os.waitpid(middle, 0)


class Escaper(Plugin):
    def on_enable(self):
        tag = "%s-%d" % (CONFIG["tag"], os.getpid())
        short = []
        for i in range(CONFIG["each"]):
            subprocess.Popen(sleeper("%s-setsid-%d" % (tag, i)), start_new_session=True,
                             stdin=subprocess.DEVNULL)
            detach("%s-double-%d" % (tag, i))
            # An orphan that ends by itself while the plugin runs (`cmd &` in a shell).
            out = subprocess.run(["/bin/sh", "-c", "sleep 0.2 >/dev/null 2>&1 & echo $!"],
                                 capture_output=True, text=True, check=True)
            short.append(int(out.stdout))
        with open(os.path.join(HERE, "started.jsonl"), "a") as f:
            f.write(json.dumps({"pid": os.getpid(), "tag": tag, "short": short}) + "\n")

    def on_serial_receive(self, data):
        if data.startswith("EXIT"):
            os._exit(3)
'''


def tagged(prefix):
    """Pids of the running processes with an argv entry starting with `prefix`."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if any(a.startswith(prefix.encode()) for a in argv):
            pids.append(int(entry))
    return pids


def kill_tagged(prefix):
    for pid in tagged(prefix):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class Escaper:
    def __init__(self, data, tag):
        self.tag = tag
        self.plugin = install(data, "test.escape.children", source=ESCAPER, control=False,
                              manifest={"main_class": "Escaper"}, tag=tag, each=EACH)

    def generations(self):
        try:
            with open(os.path.join(self.plugin.path, "started.jsonl")) as f:
                return [json.loads(line) for line in f if line.endswith("\n")]
        except FileNotFoundError:
            return []

    def wait_generation(self, count):
        """The count-th plugin process once its children all run; returns its tag."""
        wait_until(lambda: len(self.generations()) >= count, timeout=20,
                   what=f"plugin process {count} started its children")
        tag = self.generations()[count - 1]["tag"]
        wait_until(lambda: len(tagged(tag + "-")) == 2 * EACH, timeout=10,
                   what=f"the {2 * EACH} children of {tag}")
        return tag


def left_after(tag):
    """The tagged processes of one plugin process still running GONE_WITHIN_S after its stop."""
    try:
        wait_until(lambda: not tagged(tag + "-"), timeout=GONE_WITHIN_S, what=f"{tag}'s children")
    except AssertionError:
        pass
    return tagged(tag + "-")


def test_what_a_plugin_starts_ends_with_it(daemon_factory, device, data_dir):  # noqa: F811
    tag = f"mixerd-escape-{os.getpid()}"
    escaper = Escaper(data_dir, tag)
    try:
        daemon = daemon_factory("--serial", device.path)
        wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="connected")
        plugin_id = escaper.plugin.id
        results = {"switched off": [], "crash": [], "daemon stop": []}
        generation = 0
        for _ in range(ROUNDS):
            generation += 1
            current = escaper.wait_generation(generation)
            if generation == 1:
                # The daemon adopts the plugin's orphans (a subreaper): those that end by
                # themselves must be reaped, not kept as zombies.
                short = escaper.generations()[0]["short"]
                began = time.monotonic()
                wait_until(lambda: not any(os.path.exists(f"/proc/{p}") for p in short),
                           timeout=5, what=f"the plugin's ended orphans {short} reaped")
                figures("orphans that ended by themselves", count=len(short),
                        reaped_within_s=round(time.monotonic() - began, 2))
            before = len(tagged(current + "-"))
            status, body = switch(daemon, plugin_id, False)
            assert status == 200, body
            wait_state(daemon, plugin_id, "stopped")
            results["switched off"].append((before, left_after(current)))
            assert switch(daemon, plugin_id, True)[0] == 200

            generation += 1
            current = escaper.wait_generation(generation)
            before = len(tagged(current + "-"))
            restarts = plugin_info(daemon, plugin_id)["restarts"]
            device.send("EXIT now")
            wait_state(daemon, plugin_id, "running", timeout=20,
                       predicate=lambda p: p["restarts"] > restarts and "status 3" in p["last_error"])
            results["crash"].append((before, left_after(current)))
            # The orphans the daemon adopted and ended are reaped, not kept as zombies.
            wait_until(lambda: not zombie_children(daemon.proc.pid), timeout=5,
                       what="no zombie child of the daemon")
            # The crash counts towards `failed`; a switch off and on starts afresh.
            assert switch(daemon, plugin_id, False)[0] == 200
            wait_state(daemon, plugin_id, "stopped")
            kill_tagged(tag)  # the restarted process's children, ended or not, are not this round's
            generation += 1
            assert switch(daemon, plugin_id, True)[0] == 200

        current = escaper.wait_generation(generation + 1)
        before = len(tagged(current + "-"))
        stop_cleanly(daemon)
        results["daemon stop"].append((before, left_after(current)))

        for way, rounds in results.items():
            figures(f"plugin children after {way}",
                    running_before=sum(b for b, _ in rounds),
                    left_after=sum(len(left) for _, left in rounds), rounds=len(rounds))
        for way, rounds in results.items():
            for before, left in rounds:
                assert before == 2 * EACH
                assert not left, f"after {way}, {len(left)} of {before} children still run: {left}"
    finally:
        kill_tagged(tag)


def write_plugin(folder, plugin_id, mark, entry_target=None, manifest_target=None):
    """A plugin that writes `mark` when its code runs; its main.py (or manifest.json) a link
    to `entry_target` (`manifest_target`) when given."""
    os.makedirs(folder, exist_ok=True)
    code = ("from mixerd import Plugin\n"
            f"open({mark!r}, 'w').close()\n\n\n"
            "class Marker(Plugin):\n    pass\n")
    if manifest_target:
        os.symlink(manifest_target, os.path.join(folder, "manifest.json"))
    else:
        with open(os.path.join(folder, "manifest.json"), "w") as f:
            json.dump(manifest(plugin_id, main_class="Marker"), f)
    if entry_target:
        os.symlink(entry_target, os.path.join(folder, "main.py"))
    else:
        with open(os.path.join(folder, "main.py"), "w") as f:
            f.write(code)
    return code


def test_a_plugin_runs_only_its_own_files(daemon_factory, data_dir):  # noqa: F811
    plugins = os.path.join(data_dir, PLUGINS_DIR)
    elsewhere = os.path.join(data_dir, "elsewhere")
    os.makedirs(elsewhere)
    marks = {name: os.path.join(data_dir, f"ran-{name}")
             for name in ("entry", "manifest", "inside", "linked")}

    # entry_point main.py -> a file outside the folder.
    outside_code = write_plugin(os.path.join(elsewhere, "lib"), "test.escape.lib", marks["entry"])
    write_plugin(os.path.join(plugins, "entry"), "test.escape.entry", marks["entry"],
                 entry_target=os.path.join(elsewhere, "lib", "main.py"))
    assert "ran-entry" in outside_code
    # manifest.json -> a manifest outside (its main.py, inside, would run).
    with open(os.path.join(elsewhere, "manifest.json"), "w") as f:
        json.dump(manifest("test.escape.manifest", main_class="Marker"), f)
    write_plugin(os.path.join(plugins, "manifest"), None, marks["manifest"],
                 manifest_target=os.path.join(elsewhere, "manifest.json"))
    # main.py -> real.py in the same folder: fine.
    inside = os.path.join(plugins, "inside")
    code = write_plugin(os.path.join(elsewhere, "unused"), "test.escape.unused", marks["inside"])
    os.makedirs(inside)
    with open(os.path.join(inside, "real.py"), "w") as f:
        f.write(code)
    os.symlink("real.py", os.path.join(inside, "main.py"))
    with open(os.path.join(inside, "manifest.json"), "w") as f:
        json.dump(manifest("test.escape.inside", main_class="Marker"), f)
    # The plugin's folder itself a link to a folder elsewhere (a plugin under development): fine.
    write_plugin(os.path.join(elsewhere, "dev"), "test.escape.linked", marks["linked"])
    os.symlink(os.path.join(elsewhere, "dev"), os.path.join(plugins, "linked"))

    daemon = daemon_factory()
    wait_state(daemon, "test.escape.inside", "running")
    wait_state(daemon, "test.escape.linked", "running")

    def settled(plugin_id):
        info = plugin_info(daemon, plugin_id)
        return info if info and info["state"] in ("invalid", "running") else None
    # Refused: listed invalid from the start. Followed, as before: running once its code ran.
    entry = wait_until(lambda: settled("test.escape.entry"), timeout=15, what="entry settled")
    refused_manifest = wait_until(  # a refused manifest is listed under its folder's name
        lambda: settled("manifest") or settled("test.escape.manifest"), timeout=15,
        what="manifest settled")
    ran_outside = [n for n in ("entry", "manifest") if os.path.exists(marks[n])]
    figures("plugins whose code ran from outside their folder", count=len(ran_outside),
            which=ran_outside, entry_state=entry["state"],
            manifest_state=refused_manifest["state"])
    assert not ran_outside
    assert entry["state"] == "invalid"
    assert "leads outside the plugin's folder" in entry["last_error"], entry
    assert refused_manifest["id"] == "manifest" and refused_manifest["state"] == "invalid"
    assert "manifest.json leads outside" in refused_manifest["last_error"], refused_manifest
    assert os.path.exists(marks["inside"]) and os.path.exists(marks["linked"])
    stop_cleanly(daemon)


@pytest.fixture(autouse=True)
def _no_leftover_of_a_failed_run():
    yield
    kill_tagged(f"mixerd-escape-{os.getpid()}")
