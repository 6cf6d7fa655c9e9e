"""kill -9 at random moments while profiles are created, saved, renamed, deleted and loaded: after
each kill every file in DATA_DIR/profiles parses whole, the set of profiles is what the answered
requests left (give or take the one in flight), and the restarted daemon lists them all without
an error and removes the temporaries of the cut write.

The profiles are large (every macro slot holds an http macro with an 8 KiB body: about 300 KB a
file), so that a kill often falls inside a write. "Give or take the one in flight":
  create X   X may exist or not
  delete X   X may be gone or not
  rename A>B A only, B only, or both (the new file is written before the old one is removed),
             never neither
  save/load  the same names
"""
import json
import os
import random
import signal
import statistics
import threading
import time
import urllib.parse

from fault_support import figures, scaled, stop_cleanly
from integration_harness import Daemon, get_json, http
from write_model import TRANSPORT_ERRORS

ROUNDS = scaled(150, 12)
KILL_WINDOW_S = (0.05, 0.8)
MAX_PROFILES = 12  # creates give way to deletes above this


def big_macros():
    """settings.json's macros: 36 http macros with 8 KiB bodies."""
    slot = lambda p, i: {"type": "http", "name": f"Hook {p}.{i}", "icon": "web",  # noqa: E731
                         "url": f"http://127.0.0.1:9/hook/{p}/{i}", "method": "POST",
                         "body": f"{p}{i}" * 4096}
    return {"current_page": 0,
            "page_names": {str(p): f"Page {p + 1}" for p in range(4)},
            "pages": {str(p): [slot(p, i) for i in range(9)] for p in range(4)}}


def name_of_file(file):
    """The profile name of a file name, as mixerd encodes it (None for anything else)."""
    if not file.endswith(".json") or file.startswith("."):
        return None
    return urllib.parse.unquote(file[:-5], errors="strict")


def url_of(daemon, name):
    return daemon.url("/api/profiles/" + urllib.parse.quote(name, safe=""))


class ProfileWriter(threading.Thread):
    """One request at a time; `names` is the set the answered requests left, `in_flight` the op
    the kill interrupted: (kind, name, new_name)."""

    def __init__(self, rng, daemon, names, current, prefix):
        super().__init__(daemon=True)
        self.rng, self.daemon, self.prefix = rng, daemon, prefix
        self.names, self.current = set(names), current
        self.in_flight = None
        self.answered = 0
        self.unexpected = []
        self.stop = threading.Event()
        self.counter = 0

    def next_op(self):
        others = sorted(self.names - {self.current})
        choice = self.rng.random()
        if (choice < 0.3 and len(self.names) < MAX_PROFILES) or not others:
            self.counter += 1
            return ("create", f"{self.prefix}-{self.counter} \u2606/..", None)
        if choice < 0.5:
            return ("save", self.rng.choice(sorted(self.names)), None)
        if choice < 0.7:
            self.counter += 1
            return ("rename", self.rng.choice(sorted(self.names)), f"{self.prefix}-r{self.counter}")
        if choice < 0.85:
            return ("delete", self.rng.choice(others), None)
        return ("load", self.rng.choice(sorted(self.names)), None)

    def request(self, kind, name, new_name):
        d = self.daemon
        if kind == "create":
            return "POST", d.url("/api/profiles"), {"name": name, "icon": "i%d" % self.counter}, 201
        if kind == "save":
            return "PUT", url_of(d, name), {"icon": "s%d" % self.rng.randrange(1000)}, 200
        if kind == "rename":
            return "PUT", url_of(d, name), {"new_name": new_name}, 200
        if kind == "delete":
            return "DELETE", url_of(d, name), None, 200
        return "POST", d.url("/api/profiles/load"), {"name": name}, 200

    def run(self):
        while not self.stop.is_set():
            op = self.next_op()
            method, url, body, want = self.request(*op)
            self.in_flight = op
            try:
                status, reply, _ = http(method, url, body, timeout=10)
            except TRANSPORT_ERRORS:
                return  # killed: the op may or may not have landed
            if status != want:
                self.unexpected.append((op, status, reply))
                return
            kind, name, new_name = op
            if kind == "create":
                self.names.add(name)
            elif kind == "delete":
                self.names.discard(name)
            elif kind == "rename":
                self.names.discard(name)
                self.names.add(new_name)
                if self.current == name:
                    self.current = new_name
            elif kind == "load":
                self.current = name
            self.answered += 1
            self.in_flight = None

    def allowed(self):
        """Every set of names the folder may hold now."""
        if self.in_flight is None:
            return [self.names]
        kind, name, new_name = self.in_flight
        if kind == "create":
            return [self.names, self.names | {name}]
        if kind == "delete":
            return [self.names, self.names - {name}]
        if kind == "rename":
            return [self.names, (self.names - {name}) | {new_name}, self.names | {new_name}]
        return [self.names]


def check_folder(folder):
    """Every profile file parses whole and names itself; returns (names, temporaries)."""
    names, temporaries = set(), []
    for file in sorted(os.listdir(folder)):
        if file.startswith("."):
            temporaries.append(file)
            continue
        name = name_of_file(file)
        assert name is not None, f"{file}: not a profile's file name"
        with open(os.path.join(folder, file), "rb") as f:
            text = f.read()
        try:
            profile = json.loads(text)
        except ValueError as e:
            raise AssertionError(f"{file} does not parse after kill -9 ({len(text)} bytes): {e}")
        assert profile["name"] == name, (file, profile["name"])
        assert len(profile["sliders"]) == 4 and len(profile["macros"]["pages"]["3"]) == 9, file
        names.add(name)
    return names, temporaries


def test_kill_9_during_profile_writes_leaves_every_profile_file_whole(tmp_path):
    data = str(tmp_path / "data")
    os.makedirs(data)
    seed = int(os.environ.get("MIXERD_FAULT_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    with open(os.path.join(data, "settings.json"), "w") as f:
        json.dump({"macros": big_macros(), "master_volume": 40}, f)
    names, current = None, None
    delays, starts, answered, sizes = [], [], 0, []
    ops_in_flight = {"create": 0, "save": 0, "rename": 0, "delete": 0, "load": 0}
    renames_both = 0
    temporaries_after_kill = 0
    left_after_restart = []
    daemon = None
    try:
        for rnd in range(ROUNDS + 1):
            started = time.monotonic()
            daemon = Daemon(data, ["--serial", "none"]).start()
            starts.append(time.monotonic() - started)
            folder = os.path.join(data, "profiles")
            listed = get_json(daemon, "/api/profiles")
            broken = [p for p in listed["profiles"] if "error" in p]
            assert not broken, f"round {rnd}: listed as broken after a restart: {broken}"
            on_disk, temporaries = check_folder(folder)
            left_after_restart += temporaries
            assert {p["name"] for p in listed["profiles"]} == on_disk
            assert listed["current"] in on_disk, listed["current"]
            if names is None:  # first start: Default
                assert on_disk == {"Default"}
            names, current = on_disk, listed["current"]
            if rnd == ROUNDS:
                break
            writer = ProfileWriter(rng, daemon, names, current, f"r{rnd}")
            writer.start()
            delays.append(rng.uniform(*KILL_WINDOW_S))
            time.sleep(delays[-1])
            daemon.proc.send_signal(signal.SIGKILL)
            daemon.proc.wait(timeout=10)
            writer.stop.set()
            writer.join(timeout=15)
            assert not writer.is_alive(), "the writer still waits after the kill"
            assert not writer.unexpected, f"round {rnd}: unexpected answers {writer.unexpected}"
            answered += writer.answered
            if writer.in_flight:
                ops_in_flight[writer.in_flight[0]] += 1

            on_disk, temporaries = check_folder(folder)
            temporaries_after_kill += len(temporaries)
            sizes += [os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder)
                      if not f.startswith(".")]
            assert on_disk in writer.allowed(), (
                f"round {rnd}: the folder holds {sorted(on_disk)}; the answered requests left "
                f"{sorted(writer.names)}, in flight {writer.in_flight}")
            if writer.in_flight and writer.in_flight[0] == "rename" and \
                    {writer.in_flight[1], writer.in_flight[2]} <= on_disk:
                renames_both += 1
    except BaseException:
        if daemon and daemon.proc.poll() is None:
            daemon.proc.kill()
        raise
    finally:
        figures("kill -9 during profile writes", rounds=len(delays), seed=seed,
                kill_after_s_min_med_max=[round(min(delays), 3),
                                          round(statistics.median(delays), 3),
                                          round(max(delays), 3)] if delays else None,
                answered_profile_writes=answered, interrupted_ops=ops_in_flight,
                renames_cut_with_both_files=renames_both,
                profile_file_kib_median=round(statistics.median(sizes) / 1024) if sizes else None,
                temporaries_after_kill=temporaries_after_kill,
                temporaries_after_restart=len(left_after_restart),
                restart_to_ready_s_median=round(statistics.median(starts), 3) if starts else None,
                restart_to_ready_s_max=round(max(starts), 3) if starts else None)
    try:
        assert not left_after_restart, f"temporaries left after a restart: {left_after_restart}"
    finally:
        stop_cleanly(daemon)
