"""Hardening round two, 8. Home Assistant says `online` on homeassistant/status when it starts, and
mixerd answers with its whole discovery and every state (about 40 messages). Any client of the
broker can say it: 300 births once made mixerd publish 10,200 messages (1.74 MB). Now a burst
of births gets one full publication at once and one more at the end of the 10 s window (so the
last birth, Home Assistant's real restart, is never missed), and births spread over time get at
most one per window.

A real Mosquitto broker (tests/integration/mqtt_support.py), mixerd on it as node `flood`, and a
mosquitto_sub that counts every message mixerd publishes (topic and payload bytes). A command
sent after the births is the barrier: mixerd handles its broker messages in order, so once the
command's state is seen, every birth before it has been answered (or coalesced). The count ends
once the broker has been quiet for 3 s: what mixerd had queued (or sends again after its
outgoing queue filled up) counts too.
"""
import os
import queue
import subprocess
import threading
import time

import pytest

from fault_support import figures, scaled, stop_cleanly
from integration_harness import Daemon, write_settings
from mqtt_support import BROKER, Broker, mqtt_settings

pytestmark = pytest.mark.skipif(not os.path.exists(BROKER), reason="mosquitto is not installed")

NODE = "flood"
BURST = scaled(300, 100)
# Full scale: births spread over this long as well, one every SPREAD_GAP_S.
SPREAD_S = scaled(25, 0)
SPREAD_GAP_S = 0.1
WINDOW_S = 10
# One per full publication: the device link's discovery config.
MARKER = f"homeassistant/binary_sensor/{NODE}/device/config"


class Counter:
    """mosquitto_sub on everything mixerd publishes for the node: (time, topic, bytes, payload)."""

    def __init__(self, broker):
        self.broker = broker
        self.proc = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port),
                                      "-t", f"mixerd/{NODE}/#", "-t", f"homeassistant/+/{NODE}/+/config",
                                      "-t", "probe/counter", "-F", "%t %l %p"],
                                     stdout=subprocess.PIPE, text=True, errors="replace")
        self.messages = []
        self._new = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        deadline = time.monotonic() + 5
        while not any(t == "probe/counter" for _, t, _, _ in self.messages):
            assert time.monotonic() < deadline, "mosquitto_sub never subscribed"
            broker.publish("probe/counter", "x")
            self.wait_new(0.2)

    def _read(self):
        for line in self.proc.stdout:
            topic, length, payload = (line.rstrip("\n").split(" ", 2) + [""])[:3]
            self.messages.append((time.monotonic(), topic, int(length), payload))
            self._new.put(None)

    def wait_new(self, timeout):
        try:
            self._new.get(timeout=timeout)
        except queue.Empty:
            pass

    def wait(self, found, timeout, what):
        deadline = time.monotonic() + timeout
        while not found():
            left = deadline - time.monotonic()
            assert left > 0, f"never saw {what}"
            self.wait_new(left)

    def quiet(self, seconds, limit=120):
        """Returns once nothing came for `seconds` (what mixerd still had queued is counted)."""
        deadline = time.monotonic() + limit
        while True:
            last = self.messages[-1][0] if self.messages else 0
            left = last + seconds - time.monotonic()
            if left <= 0:
                return
            assert time.monotonic() < deadline, "the broker never went quiet"
            self.wait_new(left)

    def by_mixerd(self, after):
        """What mixerd published since `after` (a time): not our probes and commands."""
        return [(t, topic, n) for t, topic, n, _ in self.messages
                if t >= after and topic != "probe/counter" and not topic.endswith("/set")]

    def publications(self, after):
        """The times of the full publications since `after`."""
        return [t for t, topic, _ in self.by_mixerd(after) if topic == MARKER]

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=5)


def barrier(broker, counter, value):
    """A slider command; returns once its state is back: every earlier broker message has been
    handled by mixerd by then."""
    broker.publish(f"mixerd/{NODE}/slider/1/set", str(value))
    counter.wait(lambda: any(topic == f"mixerd/{NODE}/slider/1/state" and payload == str(value)
                             for _, topic, _, payload in counter.messages),
                 timeout=60, what=f"slider 1 at {value}")


def births(broker, count):
    subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-q", "1", "-t",
                    "homeassistant/status", "-l"], input="online\n" * count, text=True, check=True,
                   timeout=60)


def test_a_flood_of_birth_messages_gets_one_publication_per_window(tmp_path):
    broker = Broker(str(tmp_path)).start()
    data = str(tmp_path / "data")
    write_settings(data, mqtt_settings(broker, NODE))
    counter = Counter(broker)
    daemon = Daemon(data, ("--serial", "none")).start()
    try:
        counter.wait(lambda: counter.publications(0), timeout=15, what="the first publication")
        barrier(broker, counter, 11)
        # Everything since the start but the barrier's state: the full publication of a connect.
        connect_publication = len(counter.by_mixerd(0)) - 1

        # A burst: one publication at once, one at the window's end, none more.
        start = time.monotonic()
        births(broker, BURST)
        last_birth = time.monotonic()
        barrier(broker, counter, 12)
        counter.wait(lambda: len(counter.publications(start)) >= 2, timeout=WINDOW_S + 10,
                     what="the publication at the window's end")
        barrier(broker, counter, 13)
        counter.quiet(3)
        burst_pubs = counter.publications(start)
        burst = counter.by_mixerd(start)
        figures(f"{BURST} births in a burst", publications=len(burst_pubs),
                messages=len(burst), bytes=sum(len(t) + n for _, t, n in burst),
                seconds_between=round(burst_pubs[1] - burst_pubs[0], 2),
                connect_publication=connect_publication)

        if SPREAD_S:
            # Births all along, one at a time: at most one publication per window, and one after
            # the last birth.
            counter.wait(lambda: time.monotonic() - burst_pubs[-1] > WINDOW_S,
                         timeout=WINDOW_S + 1, what="the window to pass")
            spread_start = time.monotonic()
            sent = 0
            while True:
                before_last = time.monotonic()
                births(broker, 1)
                sent += 1
                if time.monotonic() - spread_start >= SPREAD_S:
                    break
                counter.wait_new(SPREAD_GAP_S)
            barrier(broker, counter, 14)
            counter.wait(lambda: counter.publications(before_last), timeout=WINDOW_S + 10,
                         what="a publication after the last birth")
            barrier(broker, counter, 15)
            counter.quiet(3)
            spread_pubs = counter.publications(spread_start)
            spread = counter.by_mixerd(spread_start)
            gaps = [round(b - a, 2) for a, b in zip(spread_pubs, spread_pubs[1:])]
            figures(f"{sent} births over {SPREAD_S} s", publications=len(spread_pubs),
                    messages=len(spread), bytes=sum(len(t) + n for _, t, n in spread),
                    shortest_gap_s=min(gaps, default="-"))
        stop_cleanly(daemon)
    finally:
        daemon.stop()
        counter.close()
        broker.stop()

    assert len(burst_pubs) == 2, burst_pubs
    assert burst_pubs[1] - burst_pubs[0] >= WINDOW_S - 0.5
    assert burst_pubs[-1] > last_birth  # the last birth was answered
    assert len(burst) <= 2 * connect_publication + 10
    if SPREAD_S:
        assert len(spread_pubs) <= SPREAD_S // WINDOW_S + 3, spread_pubs
        assert all(g >= WINDOW_S - 0.5 for g in gaps), gaps
        assert spread_pubs[-1] > before_last
