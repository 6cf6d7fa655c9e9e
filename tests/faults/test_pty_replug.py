"""2. The device hangs up and comes back, again and again: mixerd reconnects each time within 2 s
and ends with the open files and threads it had before.

A hang-up closes the pty master (FakeDevice.unplug: the daemon's end reads EOF/EIO); a replug is a
new pty behind the same path (FakeDevice.plug swaps the symlink). Each cycle varies what is going
on at the moment of the hang-up (seeded, the seed is printed):
  idle     nothing
  input    the device has just sent a burst of slider lines
  output   mixerd has lines queued for the device (REST slider changes -> VOL lines)
and how long the device stays away after mixerd noticed (0-0.4 s; mixerd's first retry comes
0.5 s after the hang-up, so a longer absence could legitimately exceed 2 s through back-off).
"""
import collections
import os
import random
import re
import statistics
import time

from fault_support import fd_targets, figures, scaled, stop_cleanly, thread_count
from integration_harness import connected, daemon_factory, data_dir, device  # noqa: F401 (fixtures)
from integration_harness import get_json, http, wait_until
from socketio_support import PyClient

CYCLES = scaled(100, 10)
RECONNECT_LIMIT_S = 2.0
# mixerd closes the port at once on EOF/EIO (protocol/README.md "Link life"); 2 s leaves room
# for a busy machine (2 shared cores) between the close and the next status poll.
HANGUP_LIMIT_S = 2.0


def fd_kinds(fds):
    """How many fds of each kind: socket:[123] -> socket:[N], /dev/pts/7 -> /dev/pts/N."""
    return collections.Counter(re.sub(r"\d+", "N", target) for target in fds.values())


def connected_now(daemon):
    return get_json(daemon, "/api/status")["connected"]


def wait_state(daemon, want, limit):
    """Polls /api/status every 10 ms until `connected` is `want`; returns the seconds it took."""
    started = time.monotonic()
    wait_until(lambda: connected_now(daemon) == want, timeout=limit + 3, interval=0.01,
               what=f"connected == {want}")
    return time.monotonic() - started


def test_hangups_and_replugs_reconnect_fast_and_leak_nothing(connected):
    daemon, device = connected
    pid = daemon.proc.pid
    device.expect("MASTER,50")  # the initial push is done
    time.sleep(0.3)  # let HTTP connections of the fixture close
    base_fds, base_threads = fd_targets(pid), thread_count(pid)
    watcher = PyClient(daemon.url(""), "websocket")  # closed before the fds are compared
    watcher.event("initial_state")
    seed = int(os.environ.get("MIXERD_FAULT_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    hangups, reconnects, modes = [], [], []
    try:
        for cycle in range(CYCLES):
            mode = rng.choice(("idle", "input", "output"))
            modes.append(mode)
            if mode == "input":
                for n in range(50):
                    device.send(f"SLIDER,{n % 4},{rng.randrange(101)}")
            elif mode == "output":
                for n in range(20):
                    status, _, _ = http("POST", daemon.url(f"/api/sliders/{n % 4 + 1}"),
                                        {"value": rng.randrange(101)})
                    assert status == 200
            device.unplug()  # returns once the master is closed
            hangups.append(wait_state(daemon, False, HANGUP_LIMIT_S))
            time.sleep(rng.uniform(0, 0.4))
            device.plug()
            plugged = time.monotonic()
            reconnects.append(wait_state(daemon, True, RECONNECT_LIMIT_S))
        # The last link works: handshake and state push on the new pty, input applied.
        wait_until(lambda: {"READY", "MASTER"} <= {line.split(",")[0] for t, line in list(device.timeline)
                                                   if t >= plugged},
                   what="READY and the state push after the last replug")
        # After a reconnect each slider first picks up the value mixerd holds, then drives.
        held = get_json(daemon, "/api/sliders")["sliders"][2]["value"]
        device.send(f"SLIDER,2,{held}")
        device.send("SLIDER,2,33")
        wait_until(lambda: get_json(daemon, "/api/sliders")["sliders"][2]["value"] == 33,
                   what="input after the last replug")
        wait_until(lambda: len([1 for name, _ in list(watcher.events.seen) if name == "device_status"])
                   >= 2 * CYCLES, timeout=5, what="every device_status event")
        statuses = [payload["connected"] for name, payload in list(watcher.events.seen)
                    if name == "device_status"]
    finally:
        watcher.close()

    def settled():
        return len(fd_targets(pid)) == len(base_fds) and thread_count(pid) == base_threads
    try:
        wait_until(settled, timeout=5, interval=0.1, what="fds and threads back to baseline")
    except AssertionError:
        pass  # reported below with the figures and the fds in question
    finally:
        end_fds = fd_targets(pid)
        figures("pty replug", cycles=CYCLES, seed=seed,
                modes={m: modes.count(m) for m in set(modes)},
                reconnect_s_median=round(statistics.median(reconnects), 3),
                reconnect_s_max=round(max(reconnects), 3),
                hangup_noticed_s_median=round(statistics.median(hangups), 3),
                hangup_noticed_s_max=round(max(hangups), 3),
                fds_before=len(base_fds), fds_after=len(end_fds),
                threads_before=base_threads, threads_after=thread_count(pid),
                device_status_events=len(statuses))
    leaked = fd_kinds(end_fds) - fd_kinds(base_fds)
    assert not leaked, f"fds not there before: {dict(leaked)}"
    assert max(reconnects) < RECONNECT_LIMIT_S, reconnects
    assert max(hangups) < HANGUP_LIMIT_S, hangups
    # Every hang-up and every reconnect was announced, in order, none twice.
    assert statuses == [False, True] * CYCLES, statuses
    status = get_json(daemon, "/api/status")
    assert status["connected"] is True and status["port"] == device.path
    assert len(end_fds) == len(base_fds) and thread_count(pid) == base_threads, (base_fds, end_fds)
    stop_cleanly(daemon)
