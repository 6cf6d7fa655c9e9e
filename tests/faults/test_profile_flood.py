"""Profile requests as fast as a client can send them. Every profile copies the macro set (here
about 1 MB), so without bounds each tiny request wrote a megabyte: 30 requests of 30 bytes wrote
66 MB in a second (the finding), and the number of profiles had no limit.

Now (docs/api.md section 2.11): at most 16 MiB of profile files are written a minute (each write
counting at least 64 KiB), a create past that is 429 with Retry-After; at most 100 profiles, a
create past them is 507; saves of one profile close together are written once. Measured as the
bytes the daemon wrote to storage (/proc/<pid>/io write_bytes).
"""
import json
import os
import threading
import time
import urllib.parse

from fault_support import figures, scaled
from integration_harness import daemon_factory, data_dir, http, macro_set  # noqa: F401 (fixtures)

CREATES = scaled(100, 40)
SAVES = scaled(60, 30)
SAVE_THREADS = 10
MiB = 1024 * 1024
BUDGET = 16 * MiB
# The budget, plus page rounding and the settings file.
WRITTEN_LIMIT = BUDGET + 4 * MiB
# Saves of one profile are written at most once per 250 ms while they come (and once more at the
# end), not once a save.
COALESCE_S = 0.25


def big_macros():
    """About 1 MB of macros, within a macro's 32 KiB and the set's 1 MiB."""
    step = lambda i: {"type": "http", "url": f"http://192.0.2.1:9/{i}",  # noqa: E731
                      "method": "POST", "body": "x" * 13_800}
    slots = {(i // 9, i % 9): {"type": "sequence", "name": f"Big {i}", "icon": "",
                               "steps": [step(i), step(i)]} for i in range(35)}
    return macro_set(slots)


def start(daemon_factory, data_dir, macros=None):  # noqa: F811
    os.makedirs(data_dir, exist_ok=True)
    with open(os.path.join(data_dir, "settings.json"), "w") as f:
        json.dump({"macros": macros} if macros else {}, f)
    return daemon_factory()


def written_bytes(pid):
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    raise AssertionError("no write_bytes")


def profile_url(daemon, name):
    return daemon.url("/api/profiles/" + urllib.parse.quote(name, safe=""))


def test_creates_of_large_profiles_stop_at_the_write_budget(daemon_factory, data_dir):  # noqa: F811
    daemon = start(daemon_factory, data_dir, big_macros())
    pid = daemon.proc.pid
    before = written_bytes(pid)
    statuses = {}
    refusal = None
    started = time.monotonic()
    for i in range(CREATES):
        status, body, headers = http("POST", daemon.url("/api/profiles"), {"name": f"P{i}"},
                                     timeout=30)
        statuses[status] = statuses.get(status, 0) + 1
        if status == 429 and refusal is None:
            refusal = (body, headers.get("Retry-After"))
    took = time.monotonic() - started
    written = written_bytes(pid) - before
    sizes = [os.path.getsize(os.path.join(data_dir, "profiles", f))
             for f in os.listdir(os.path.join(data_dir, "profiles")) if f.startswith("P")]
    figures("profile creates, 1 MB of macros", requests=CREATES, seconds=round(took, 1),
            statuses=statuses, written_mib=round(written / MiB, 1),
            file_kib=round(max(sizes, default=0) / 1024), profiles_made=len(sizes))
    assert written <= WRITTEN_LIMIT, f"{CREATES} creates wrote {written} bytes"
    assert refusal is not None, "no create was refused"
    body, retry_after = refusal
    assert body["error"].startswith("Too many profile writes: at most 16 MiB of profile files a "
                                    "minute"), body
    assert retry_after is not None and 1 <= int(retry_after) <= 60
    assert statuses.get(201, 0) == len(sizes)


def test_at_most_100_profiles(daemon_factory, data_dir):  # noqa: F811
    daemon = start(daemon_factory, data_dir)
    made = 1  # Default
    refused = None
    for i in range(120):
        status, body, _ = http("POST", daemon.url("/api/profiles"), {"name": f"P{i}"}, timeout=30)
        if status == 201:
            made += 1
        else:
            refused = (status, body)
            break
    listed = len(http("GET", daemon.url("/api/profiles"))[1]["profiles"])
    figures("profile count", profiles=made, listed=listed, refusal=refused)
    assert refused == (507, {"error": "There are 100 profiles; at most 100 are kept: delete one "
                                      "first"}), refused
    assert listed == 100
    # A delete makes room again.
    assert http("DELETE", profile_url(daemon, "P0"))[0] == 200
    assert http("POST", daemon.url("/api/profiles"), {"name": "Again"})[0] == 201


def test_saves_of_one_profile_close_together_are_written_together(daemon_factory,  # noqa: F811
                                                                  data_dir):
    daemon = start(daemon_factory, data_dir, big_macros())
    pid = daemon.proc.pid
    url = profile_url(daemon, "Default")
    before = written_bytes(pid)
    statuses = []
    lock = threading.Lock()

    def saver(count):
        for _ in range(count):
            status, _, _ = http("PUT", url, {}, timeout=30)
            with lock:
                statuses.append(status)

    threads = [threading.Thread(target=saver, args=(SAVES // SAVE_THREADS,))
               for _ in range(SAVE_THREADS)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - started
    written = written_bytes(pid) - before
    size = os.path.getsize(os.path.join(data_dir, "profiles", "Default.json"))
    figures("profile saves, one profile", saves=len(statuses), seconds=round(took, 1),
            file_kib=round(size / 1024), written_mib=round(written / MiB, 1),
            writes_about=round(written / size, 1),
            statuses={s: statuses.count(s) for s in set(statuses)})
    assert statuses == [200] * SAVES, statuses
    allowed = (took / COALESCE_S + 2) * size
    assert written <= allowed, f"{SAVES} saves in {took:.1f} s wrote {written} bytes"
