"""3. kill -9 at random moments during bursts of REST writes: after each kill every file parses
and holds the old or the new content, and the restarted daemon loads it.

Each round starts mixerd on the same data folder, runs three writers at once (write_model.py:
mixer settings, notification API settings, plant deletes), kills mixerd with SIGKILL after a
random 0.02-1 s, and checks the files before the next start. "Old or new" per file:
  settings.json  parses; the mixer keys (sliders, mutes, master_volume) equal the state after
                 some prefix of the answered mixer writes, or after the one in flight; the same
                 for the notification keys (toast_handlers, toast_api_key). Prefixes may lag
                 (writes are coalesced for 250 ms) but not behind an answered regenerate, which
                 is answered after a flush. Every other key, an unknown one included, is as before.
  plants.json    parses; its plants are the previous ones minus every answered delete, minus
                 perhaps the delete in flight, each remaining plant unchanged (extra keys too).
  temporaries    a kill during a write may leave `.settings.json.XXXXXX` / `.plants.json.XXXXXX`;
                 none may be left once the restarted daemon has loaded the files.
"""
import json
import os
import random
import signal
import statistics
import time

from fault_support import figures, scaled, stop_cleanly
from integration_harness import Daemon, get_json, http
from write_model import HANDLER_IDS, MixerWriter, PlantDeleter, ToastWriter, matches

ROUNDS = scaled(200, 20)
KILL_WINDOW_S = (0.02, 1.0)
PLANTS = 3000  # refilled when fewer than REFILL_BELOW are left
REFILL_BELOW = 300
GROUP_KEYS = {"sliders", "mutes", "master_volume", "toast_handlers", "toast_api_key"}


def seed_files(data, rng, first_id=1):
    settings = {
        "x_fault_test": {"kept": [1, "two", None], "why": "unknown keys survive every write"},
        # The profile capability names the current profile on first start; seeded so that the
        # file's other keys stay exactly as written.
        "current_profile": "Default",
        "toast_api_key": "%064x" % rng.getrandbits(256),
        "plant_store_token": "%064x" % rng.getrandbits(256),
        "toast_handlers": {h: True for h in HANDLER_IDS},
        "sliders": [{"label": f"Seed {i + 1}", "enforce_volume": True,
                     "assignment": {"type": "app", "names": [f"seed-{i}"]}} for i in range(4)],
        "mutes": {"individual": [False] * 4, "master": False},
        "master_volume": 40,
    }
    with open(os.path.join(data, "settings.json"), "w") as f:
        json.dump(settings, f, indent=2)
    write_plants(data, first_id)


def write_plants(data, first_id):
    plants = [{"id": i, "name": f"Plant {i} \u273f"} for i in range(first_id, first_id + PLANTS)]
    for p in plants[::7]:
        p["notes"] = {"water": "weekly", "tags": ["kept", p["id"]]}
    with open(os.path.join(data, "plants.json"), "w") as f:
        json.dump(plants, f, indent=2)


def read_json(path):
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError as e:
        raise AssertionError(f"{path} does not parse after kill -9: {e}\n{text[:2000]}")


def temporaries(data):
    return sorted(n for n in os.listdir(data) if n.startswith((".settings.json.", ".plants.json.")))


def check_loaded(daemon, settings):
    """The restarted daemon serves what the files hold, and the plant store is not broken."""
    assert get_json(daemon, "/api/volume/master")["volume"] == settings["master_volume"]
    assert get_json(daemon, "/api/mutes") == settings["mutes"]
    sliders = get_json(daemon, "/api/sliders")["sliders"]
    assert [s["label"] for s in sliders] == [s["label"] for s in settings["sliders"]]
    status, body, _ = http("DELETE", daemon.url("/plants/-1", "plant store"),
                           headers={"Authorization": "Bearer " + settings["plant_store_token"]})
    assert (status, body) == (400, {"error": 400, "message": "No plant with id -1"}), (status, body)


def check_settings(settings, before, mixer, toast):
    """Returns how many answered ops each group's file state lags behind."""
    lags = []
    for writer, project, floor in ((mixer, MixerWriter.project, toast.mixer_flushed),
                                   (toast, ToastWriter.project, toast.flushed)):
        on_disk = project(settings)
        hits = [j for j, c in enumerate(writer.candidates()) if matches(on_disk, c)]
        assert hits, (f"{type(writer).__name__}: settings.json holds {on_disk}, which no prefix "
                      f"of the {len(writer.states) - 1} answered writes gives "
                      f"(last: {writer.states[-1]}, in flight: {writer.in_flight})")
        assert max(hits) >= floor, (f"{type(writer).__name__}: settings.json is at write "
                                    f"{max(hits)}, but a regenerate answer promised {floor}")
        lags.append(len(writer.states) - 1 - max(hits))
    others = {k: v for k, v in settings.items() if k not in GROUP_KEYS}
    assert others == {k: v for k, v in before.items() if k not in GROUP_KEYS}
    return lags


def check_plants(plants, before, deleter):
    deleted = set(deleter.states[-1]["deleted"])
    remaining = {p["id"]: p for p in before if p["id"] not in deleted}
    now = {p["id"]: p for p in plants}
    assert len(now) == len(plants), "duplicate ids in plants.json"
    in_flight = deleter.in_flight["deleted"][-1] if deleter.in_flight else None
    if in_flight is not None and in_flight not in now:
        remaining.pop(in_flight, None)
    assert now == remaining, (f"plants.json: missing {sorted(set(remaining) - set(now))[:10]}, "
                              f"extra {sorted(set(now) - set(remaining))[:10]}, or changed plants")
    return in_flight is not None and in_flight not in now


def test_kill_9_during_writes_leaves_old_or_new_files(tmp_path):
    data = str(tmp_path / "data")
    os.makedirs(data)
    seed = int(os.environ.get("MIXERD_FAULT_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    seed_files(data, rng)
    settings = read_json(os.path.join(data, "settings.json"))
    plants = read_json(os.path.join(data, "plants.json"))
    next_id = PLANTS + 1
    delays, starts, ops, lags, landed = [], [], [0, 0, 0], [[], []], 0
    left_after_kill = set()  # names of temporaries found right after a kill
    left_after_restart = {}  # temporary name -> first round whose restart left it
    daemon = None
    try:
        for rnd in range(ROUNDS):
            started = time.monotonic()
            daemon = Daemon(data, ["--serial", "none"]).start()
            starts.append(time.monotonic() - started)
            check_loaded(daemon, settings)
            for name in temporaries(data):
                left_after_restart.setdefault(name, rnd)
            mixer = MixerWriter(rng, MixerWriter.project(settings), daemon, f"r{rnd}")
            toast = ToastWriter(rng, ToastWriter.project(settings), daemon, mixer)
            deleter = PlantDeleter(rng, [p["id"] for p in plants], daemon,
                                   settings["plant_store_token"])
            writers = (mixer, toast, deleter)
            for w in writers:
                w.start()
            delays.append(rng.uniform(*KILL_WINDOW_S))
            time.sleep(delays[-1])
            daemon.proc.send_signal(signal.SIGKILL)
            daemon.proc.wait(timeout=10)
            for w in writers:
                w.stop.set()
                w.join(timeout=15)
                assert not w.is_alive(), f"{type(w).__name__} still waiting after the kill"
                assert not w.unexpected, f"round {rnd}: unexpected answers {w.unexpected}"
            for i, w in enumerate(writers):
                ops[i] += len(w.states) - 1
            left_after_kill.update(temporaries(data))

            before_settings, before_plants = settings, plants
            settings = read_json(os.path.join(data, "settings.json"))
            plants = read_json(os.path.join(data, "plants.json"))
            for i, lag in enumerate(check_settings(settings, before_settings, mixer, toast)):
                lags[i].append(lag)
            landed += check_plants(plants, before_plants, deleter)
            if len(plants) < REFILL_BELOW:
                write_plants(data, next_id)
                next_id += PLANTS
                plants = read_json(os.path.join(data, "plants.json"))
        # A last start: the files load, the daemon works and stops cleanly.
        daemon = Daemon(data, ["--serial", "none"]).start()
        check_loaded(daemon, settings)
        for name in temporaries(data):
            left_after_restart.setdefault(name, "last")
    except BaseException:
        if daemon and daemon.proc.poll() is None:
            daemon.proc.kill()
        raise
    finally:
        figures("kill -9 during writes", rounds=len(delays), seed=seed,
                kill_after_s_min_med_max=[round(min(delays), 3), round(statistics.median(delays), 3),
                                          round(max(delays), 3)] if delays else None,
                answered_writes={"mixer": ops[0], "notification": ops[1], "plant_deletes": ops[2]},
                restart_to_ready_s_median=round(statistics.median(starts), 3) if starts else None,
                restart_to_ready_s_max=round(max(starts), 3) if starts else None,
                settings_lag_ops_mixer_max=max(lags[0], default=None),
                rounds_mixer_file_behind=sum(1 for x in lags[0] if x),
                settings_lag_ops_notification_max=max(lags[1], default=None),
                in_flight_deletes_on_disk=landed,
                temporaries_after_kill={kind: sum(1 for n in left_after_kill if n.split(".")[1] == kind)
                                        for kind in ("settings", "plants")},
                temporaries_after_restart=left_after_restart)
    try:
        assert not left_after_restart, (
            f"temporary files left in the data folder after a restart (name: round): {left_after_restart}")
    finally:
        stop_cleanly(daemon)
