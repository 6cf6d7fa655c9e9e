"""Event latency machinery for run.py: node socket.io-client processes, open-loop pacing, the
slider line plan, matching every received event to its send time, and percentiles.

One clock: send times are time.monotonic_ns() (CLOCK_MONOTONIC) taken right before the pty write
or the HTTP request; receive times are process.hrtime.bigint() in node, which libuv reads from
CLOCK_MONOTONIC on Linux. NodeClients.clock_check() verifies that per run (node's reading must
fall between two Python readings around it).
"""
import json
import math
import os
import queue
import subprocess
import threading
import time
from collections import defaultdict

from footprint import cpu_times

HERE = os.path.dirname(os.path.abspath(__file__))
SLIDERS = 4
VALUES = 101  # 0..100


class NodeClients:
    """N socket.io-client connections in one node process (sio_clients.js)."""

    def __init__(self, url, count, transport, wait_event, ready_timeout=60):
        self.count = count
        options = {"url": url, "count": count, "transport": transport, "waitEvent": wait_event,
                   "upgradeWaitMs": int(ready_timeout * 1000 / 2)}
        self.proc = subprocess.Popen(["node", os.path.join(HERE, "sio_clients.js"),
                                      json.dumps(options)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        try:
            self.ready = self._next(ready_timeout)
            if self.ready["ready"] != count:
                raise RuntimeError(f"only {self.ready['ready']} of {count} {transport} clients "
                                   f"became ready: {self.ready}")
        except BaseException:
            self.close()
            raise

    def _pump(self):
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _next(self, timeout):
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"node clients silent for {timeout} s") from None
        if line is None:
            raise RuntimeError(f"node clients exited with {self.proc.wait()}")
        return json.loads(line)

    def command(self, cmd, timeout=30):
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        return self._next(timeout)

    def clock_check(self):
        before = time.monotonic_ns()
        node = int(self.command("clock")["clock"])
        after = time.monotonic_ns()
        return {"shared": before <= node <= after, "python_before_ns": before, "node_ns": node,
                "python_after_ns": after}

    def wait_count(self, expected, timeout):
        """Waits until the clients hold `expected` events or `timeout` s pass; returns the count."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.command("count")["count"]
            if got >= expected or time.monotonic() >= deadline:
                return got
            time.sleep(0.01)

    def dump(self):
        return self.command("dump", timeout=60)

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


class SliderPlan:
    """Line k moves slider k % 4 one step up (100 wraps to 0) from where it is. So every line
    changes a value (the mixer publishes only changes), and a (slider, value) pair comes back only
    after 4 * 101 lines: 2.02 s at 200 lines/s, so pairs are unique within any 2 s window and
    each event maps to exactly one send."""

    def __init__(self, start_values=(0,) * SLIDERS):
        self.values = list(start_values)

    def take(self, k):
        slider = k % SLIDERS
        self.values[slider] = (self.values[slider] + 1) % VALUES
        return slider, self.values[slider]


def paced(count, rate, send):
    """Open loop: send k goes out at t0 + k / rate whatever happened to earlier ones (a late send
    is not made up by a burst: it is sent at once and the schedule stays). send(k) returns
    (index, value, t_ns) with t_ns taken right at the write. Returns the sends and how late each
    was against the schedule (ns)."""
    period = 1e9 / rate
    t0 = time.monotonic_ns() + 20_000_000
    sends, late = [], []
    for k in range(count):
        target = t0 + int(k * period)
        delay = target - time.monotonic_ns()
        if delay > 0:
            time.sleep(delay / 1e9)
        sent = send(k)
        sends.append(sent)
        late.append(sent[2] - target)
    return sends, late


def paired_ratios(mine, floor):
    """Chunk by chunk p99 ratios of two series that took turns, and their median: a burst of
    load from elsewhere on the machine then spoils one pair, not the whole comparison."""
    ratios = [round(m / f, 2) for m, f in zip(mine, floor) if m is not None and f]
    ordered = sorted(ratios)
    median = None
    if ordered:
        mid = len(ordered) // 2
        median = (ordered[mid] if len(ordered) % 2
                  else round((ordered[mid - 1] + ordered[mid]) / 2, 2))
    return {"by_chunk": ratios, "median": median}


def percentile(ordered, p):
    """Nearest rank on a sorted list."""
    if not ordered:
        return None
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def stats(values_ns, scale=1e6, unit="ms"):
    ordered = sorted(values_ns)
    if not ordered:
        return {"n": 0}
    r = lambda v: round(v / scale, 3)  # noqa: E731
    return {"n": len(ordered), "unit": unit, "p50": r(percentile(ordered, 50)),
            "p90": r(percentile(ordered, 90)), "p99": r(percentile(ordered, 99)),
            "max": r(ordered[-1]), "mean": r(sum(ordered) / len(ordered))}


def match(sends, events_per_client):
    """Pairs every (send, client) with the client's first event of the same (index, value)
    received after the send and before the next send of that pair. Returns the latencies (ns),
    the fan-out time of each line every client got (ns, the slowest client), lost and
    unexpected (duplicate or unmatched) event counts."""
    order = defaultdict(list)  # (index, value) -> positions in sends
    for i, (index, value, _) in enumerate(sends):
        order[(index, value)].append(i)
    latencies, lost, unexpected = [], 0, 0
    slowest = [0] * len(sends)
    got_by = [0] * len(sends)
    for flat in events_per_client:
        received = defaultdict(list)
        for j in range(0, len(flat), 3):
            received[(flat[j], flat[j + 1])].append(flat[j + 2])
        for pair, positions in order.items():
            times = sorted(received.pop(pair, []))
            p = 0
            for n, i in enumerate(positions):
                sent = sends[i][2]
                next_sent = sends[positions[n + 1]][2] if n + 1 < len(positions) else math.inf
                while p < len(times) and times[p] < sent:
                    unexpected += 1
                    p += 1
                if p < len(times) and times[p] < next_sent:
                    latency = times[p] - sent
                    latencies.append(latency)
                    slowest[i] = max(slowest[i], latency)
                    got_by[i] += 1
                    p += 1
                    while p < len(times) and times[p] < next_sent:
                        unexpected += 1
                        p += 1
                else:
                    lost += 1
            unexpected += len(times) - p
        unexpected += sum(len(t) for t in received.values())
    clients = len(events_per_client)
    fanout = [slowest[i] for i in range(len(sends)) if got_by[i] == clients]
    return latencies, fanout, lost, unexpected


def lost_examples(sends, events_per_client, limit=5):
    """A few (client, index, value, sent_ns) sends that a client never got, for the report."""
    out = []
    for c, flat in enumerate(events_per_client):
        have = {(flat[j], flat[j + 1]) for j in range(0, len(flat), 3)}
        for index, value, t in sends:
            if (index, value) not in have:
                out.append({"client": c, "index": index, "value": value, "sent_ns": t})
                if len(out) >= limit:
                    return out
    return out


class Series:
    """One measured path (a server, a transport, a number of clients), run in chunks so that
    chunks of different paths can take turns and see the same machine load. The CPU time of the
    server (server_pid) and of the node clients is read around each chunk (sends and drain)."""

    def __init__(self, clients, server_pid):
        self.clients = clients
        self.server_pid = server_pid
        self.latencies, self.fanout, self.late, self.lost_examples = [], [], [], []
        self.lines = self.expected = self.received = self.lost = self.unexpected = 0
        self.cpu_user = self.cpu_system = self.client_cpu_s = 0.0
        self.transports_at_end, self.disconnects = {}, []
        self.chunk_p99_ms = []  # one per chunk, to pair with the chunk of another series

    def warm_up(self, send, count, rate, drain_s=3.0):
        """Lines that are sent and received but not counted. Freshly connected node clients stall
        for up to a few hundred ms on their first events (V8 compiling the receive path), for
        mixerd and the floor alike; without this the first chunk alone would set the p99."""
        self.clients.dump()
        sends, _ = paced(count, rate, send)
        self.clients.wait_count(count * self.clients.count, drain_s)
        self.clients.dump()
        return sends

    def chunk(self, send, count, rate, drain_s=3.0):
        """Sends `count` paced lines (send(k) sends line k) and matches what the clients got."""
        self.clients.dump()  # nothing from before the chunk
        user0, system0 = cpu_times(self.server_pid)
        client0 = sum(cpu_times(self.clients.proc.pid))
        sends, late = paced(count, rate, send)
        expected = len(sends) * self.clients.count
        self.clients.wait_count(expected, drain_s)
        user1, system1 = cpu_times(self.server_pid)
        self.cpu_user += user1 - user0
        self.cpu_system += system1 - system0
        self.client_cpu_s += sum(cpu_times(self.clients.proc.pid)) - client0
        dumped = self.clients.dump()
        events = dumped["events"]
        latencies, fanout, lost, unexpected = match(sends, events)
        self.chunk_p99_ms.append(stats(latencies).get("p99"))
        self.latencies += latencies
        self.fanout += fanout
        self.late += late
        self.lines += len(sends)
        self.expected += expected
        self.received += sum(len(e) // 3 for e in events)
        self.lost += lost
        self.unexpected += unexpected
        self.transports_at_end = dumped["transports"]
        self.disconnects += dumped["disconnects"]
        if lost and len(self.lost_examples) < 5:
            self.lost_examples += lost_examples(sends, events, 5 - len(self.lost_examples))
        return sends

    def summary(self):
        out = {
            "clients": self.clients.count, "ready": self.clients.ready, "lines": self.lines,
            "latency_ms": stats(self.latencies), "fanout_complete_ms": stats(self.fanout),
            "events_expected": self.expected, "events_received": self.received,
            "lost": self.lost, "unexpected": self.unexpected,
            "send_lateness": stats(self.late, scale=1e3, unit="us"),
            "transports_at_end": self.transports_at_end, "disconnects": self.disconnects,
            "client_cpu_s": round(self.client_cpu_s, 3), "chunk_p99_ms": self.chunk_p99_ms,
        }
        cpu = self.cpu_user + self.cpu_system
        out["server_cpu_s"] = round(cpu, 3)
        out["server_cpu_user_s"] = round(self.cpu_user, 3)
        out["server_cpu_system_s"] = round(self.cpu_system, 3)
        out["server_cpu_us_per_event"] = round(cpu / max(1, self.received) * 1e6, 2)
        out["client_cpu_us_per_event"] = round(self.client_cpu_s / max(1, self.received) * 1e6, 2)
        if self.lost_examples:
            out["lost_examples"] = self.lost_examples
        return out
