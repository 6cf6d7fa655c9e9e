"""1. Many Socket.IO clients while the sliders move: no event lost, memory flat, and a client that
stops reading is dropped after its queue bound without slowing the others.

Timeline (full / short scale), lines at RATE per second in two phases:
  phase A   WARMUP s not measured, then BEFORE s measured: the healthy clients alone
  pause     every client has every event; a client that stops reading connects and its kernel
            send buffer is filled (prefill(): no line is sent meanwhile)
  phase B   "with": from the first line until mixerd drops the stalled client (its queue of
            1000 frames is full about 1000 lines = 5 s later); "after": from 0.5 s after the drop
            to the end (DURATION s of lines in all, longer if "after" would be under AFTER_MIN s)
p99 "without" is before + after; every client must get every line of both phases, in order.
"""
import json
import os
import resource
import threading
import time

import pytest

from fault_support import (SANITIZED, RssSampler, check_rss_flat, figures, merge_histograms,
                           percentile_ms, rss_kib, scaled, socket_info, stop_cleanly, tcp_socket,
                           thread_count)
from integration_harness import connected, daemon_factory, data_dir, device  # noqa: F401 (fixtures)
from integration_harness import get_json
from load_support import NodeLoad, PacedSender, StalledClient

CLIENTS = scaled(1000, 200)
CLIENTS_PER_PROCESS = 250
RATE = 200  # lines/s
DURATION = scaled(60, 10)
WARMUP = scaled(10, 2)
BEFORE = scaled(10, 2)
AFTER_MIN = scaled(20, 1.5)
# How long the clients may take to catch up after a phase. 200 lines/s to 1000 clients is 200,000
# frames/s: measured here ~12 us of mixerd CPU per frame and ~32 us of node CPU per message on
# the busy 2-core machine, about 8 cores' worth, so the clients fall far behind. The backlog waits
# in kernel buffers (4 MB per socket on loopback, more than a phase needs), so late is not lost.
CATCH_UP_S = scaled(600, 60)
# The websocket frame queue of one socket (protocol/README.md "Socket.IO server" bounds).
QUEUE_BOUND = 1000
# Slider frames sent between "the stalled socket's kernel buffer took its last byte" and "closed"
# must be QUEUE_BOUND within this: the socket is sampled every 20 ms (4 lines, more when the
# sender catches up after a stall), up to 12 get_state answers may be queued before the first
# line, and lines still on their way from the pty to the hub are counted as sent.
QUEUE_BOUND_TOLERANCE = 150
# p99 with the stalled client may exceed p99 without it (before and after together) by this
# factor or by this many ms, whichever is larger. Wide, because the machine has 2 cores shared
# with other work and with the node clients, which run near their capacity here (200 clients x
# 200 lines/s = 40,000 messages/s): a neighbour's compiler during one window moves its p99 by
# seconds. What this guards against, a stuck socket holding up the io thread, would put every
# event of the "with" window behind the 5 s it lasts.
P99_RATIO = 3.0
P99_SLACK_MS = 50.0
# RSS after warm-up may grow by this much (KiB): the allocator settles its arenas, the stalled
# client's queue holds 1000 frames, and its 4 MB of kernel buffer are not mixerd's memory.
RSS_GROWTH_KIB = 6 * 1024


class SocketWatch:
    """Samples the server side of the stalled client's socket every 20 ms: (time, state,
    send queue bytes, lines sent so far)."""

    def __init__(self, server_port, client_port, sender):
        self.key = (server_port, client_port)
        self.sender = sender
        self.samples = []
        self.closed_at = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            found = tcp_socket(*self.key)
            now = time.monotonic()
            state, tx = found if found else ("gone", 0)
            self.samples.append((now, state, tx, self.sender.sent()))
            if state != "01":
                self.closed_at = now
                return
            self._stop.wait(0.02)

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=5)

    def lines_between_full_and_close(self):
        """Lines sent from the first sample at the final send-queue size to the close."""
        *open_samples, last = self.samples
        final = max(s[2] for s in open_samples)
        full = next(s for s in open_samples if s[2] >= final)
        return last[3] - full[3], final


def prefill(stalled, server_port):
    """Fills the stalled socket's kernel send buffer with get_state answers, so that the slider
    frames after it go into mixerd's own queue. On loopback the kernel takes about 4 MB
    (tcp_wmem), some 60,000 slider frames: 5 minutes at 200 lines/s, and the Engine.IO ping
    timeout (45 s) would drop the client first. No line is sent meanwhile, so every answer has
    the same size and the bytes written into the socket say how many have arrived; at most 16
    may be on their way per socket (protocol/README.md), 12 are asked for ahead. Done when
    nothing more was written for 0.3 s with the buffer within 128 KiB of full.
    Returns (requests, answer bytes)."""
    def info():
        found = socket_info(server_port, stalled.local_port)
        assert found, "mixerd closed the stalled client during the prefill"
        return found

    written0 = info()["written"]
    stalled.send('42["get_state"]')
    requests = 1
    deadline = time.monotonic() + 10
    while info()["written"] == written0:
        assert time.monotonic() < deadline, "no get_state answer within 10 s"
        time.sleep(0.005)
    time.sleep(0.05)  # the whole answer
    size = info()["written"] - written0
    last, last_growth = written0 + size, time.monotonic()
    while requests < 20000:
        now = info()
        if now["written"] != last:
            last, last_growth = now["written"], time.monotonic()
        while requests - (now["written"] - written0) // size < 12:
            stalled.send('42["get_state"]')
            requests += 1
        if time.monotonic() - last_growth > 0.3:
            if now["wmem"] >= now["sndbuf"] - 128 * 1024:
                break
            last_growth = time.monotonic()  # mixerd was only slow: keep going
        time.sleep(0.002)
    return requests, size


@pytest.fixture(autouse=True)
def slow_heartbeat(data_dir):
    """Engine.IO pings every 10 min instead of 25 s (answer within 20 s). A ping waits behind the
    events queued before it; on this 2-core machine 1000 clients fall tens of seconds behind, and
    mixerd would rightly drop them for a late pong. The heartbeat is not what this test is about:
    losses must come from the fan-out or not at all, and lag shows up as latency.
    Every client comes from 127.0.0.1, which may hold only 32 sessions by default."""
    os.makedirs(data_dir, exist_ok=True)
    with open(os.path.join(data_dir, "settings.json"), "w") as f:
        json.dump({"socketio_ping_interval_ms": 600000, "socketio_ping_timeout_ms": 600000,
                   "socketio_max_sessions_per_address": CLIENTS + 16}, f)


@pytest.fixture(autouse=True)
def raise_fd_limit():
    """mixerd holds a socket per client and each node process its own; a soft limit of 1024
    (a common default) would refuse clients. Raised before the daemon starts: children inherit
    it (autouse fixtures come first)."""
    needed = CLIENTS + 512
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        assert hard == resource.RLIM_INFINITY or hard >= needed, (
            f"open-file limit {hard} is below the {needed} this test needs (ulimit -n)")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def start_clients(daemon, capacity):
    counts = [CLIENTS_PER_PROCESS] * (CLIENTS // CLIENTS_PER_PROCESS)
    if CLIENTS % CLIENTS_PER_PROCESS:
        counts.append(CLIENTS % CLIENTS_PER_PROCESS)
    procs = [NodeLoad(daemon.url(""), n, capacity) for n in counts]
    connect_s = max(p.expect("ready", timeout=scaled(300, 120))["connect_s"] for p in procs)
    return procs, connect_s


def no_client_dropped(procs, sender, since):
    """Fails at once when mixerd dropped healthy clients: waiting for them would only time out."""
    errors = [e for p in procs for e in p.errors]
    if errors:
        received = [p.fewest_received() for p in procs]
        raise AssertionError(
            f"{len(errors)} healthy clients lost their connection ({errors[:3]} ...) "
            f"{time.monotonic() - since:.1f} s after the first line; lines sent {sender.sent()}, "
            f"fewest slider_change events received per node process {received}")


def test_many_clients_no_loss_flat_memory_and_a_stalled_client_is_dropped(connected, tmp_path):
    daemon, device = connected
    device.expect("MASTER,50")  # the initial push is done
    pid = daemon.proc.pid
    rss_idle = rss_kib(pid)
    procs, stalled, watch = [], None, None
    try:
        started = time.monotonic()
        procs, connect_s = start_clients(daemon, RATE * (DURATION + 40) + 100)
        figures("fan-out setup", clients=CLIENTS, node_processes=len(procs),
                connect_all_s=round(time.monotonic() - started, 1), rss_idle_kib=rss_idle,
                rss_with_clients_kib=rss_kib(pid), threads=thread_count(pid),
                fds=len(os.listdir(f"/proc/{pid}/fd")))
        sender = PacedSender(device, RATE)
        with RssSampler(pid) as rss:
            t0 = time.monotonic()
            sender.start(stop_at=t0 + WARMUP + BEFORE)
            sender.join()
            phase_a_end = time.monotonic()
            drain_deadline = phase_a_end + CATCH_UP_S
            while min(p.fewest_received() for p in procs) < sender.sent():
                no_client_dropped(procs, sender, t0)
                assert time.monotonic() < drain_deadline, f"clients still behind {CATCH_UP_S} s after phase A"
                time.sleep(0.5)
            drained_s = time.monotonic() - phase_a_end

            stalled = StalledClient(daemon)
            watch = SocketWatch(daemon.ports["controller"], stalled.local_port, sender)
            prefill_started = time.monotonic()
            prefill_requests, answer_bytes = prefill(stalled, daemon.ports["controller"])
            phase_b = time.monotonic()
            prefill_s = phase_b - prefill_started
            sender.start(stop_at=phase_b + DURATION - WARMUP - BEFORE)
            deadline = phase_b + 40  # about 1000 lines = 5 s are expected
            while watch.closed_at is None and time.monotonic() < deadline:
                no_client_dropped(procs, sender, t0)
                time.sleep(0.05)
            assert watch.closed_at, (
                f"mixerd never dropped the client that stopped reading; its socket (time, state, "
                f"send queue, lines sent) every 2 s: {watch.samples[::100]}")
            drop = watch.closed_at
            sender.stop_at = max(sender.stop_at, drop + 0.5 + AFTER_MIN)
            sender.join()
        sent = sender.sent()
        lines_to_drop, kernel_bytes = watch.lines_between_full_and_close()
        times_file = str(tmp_path / "send_times.f64")
        sender.write_times(times_file)
        windows = [["before", t0 + WARMUP, phase_a_end], ["with", phase_b, drop],
                   ["after", drop + 0.5, time.monotonic() + 3600]]
        for p in procs:
            p.command(cmd="report", sent=sent, send_times=times_file, windows=windows, wait_s=CATCH_UP_S)
        reports = [p.expect("report", timeout=CATCH_UP_S + 60) for p in procs]

        hist = {name: merge_histograms([r["histograms"][i] for r in reports])
                for i, (name, _, _) in enumerate(windows)}
        hist["without"] = merge_histograms([hist["before"], hist["after"]])
        p99 = {name: percentile_ms(h, 0.99) for name, h in hist.items()}
        warm_at = t0 + WARMUP
        warm_kib = next(kib for t, kib in rss.samples if t >= warm_at)
        later = rss.after(warm_at)
        figures("fan-out events", lines_sent=sent, phase_a_s=round(phase_a_end - t0, 1),
                phase_b_s=round(sender.send_times[-1] - phase_b, 1), drain_after_a_s=round(drained_s, 2),
                drain_at_end_s=round(max(r["waited_s"] for r in reports), 2),
                per_client_max=max(r["received_max"] for r in reports),
                lost_clients=sum(len(r["lost"]) for r in reports),
                wrong_clients=sum(len(r["wrong"]) for r in reports),
                dropped_healthy_clients=sum(len(r["gone"]) for r in reports))
        figures("fan-out latency (line on pty -> slider_change at client, ms)",
                **{f"p50_{k}": percentile_ms(h, 0.5) for k, h in hist.items()},
                **{f"p99_{k}": v for k, v in p99.items()},
                max_ms={k: round(h["max"] * 1000, 1) for k, h in hist.items()},
                samples={k: h["count"] for k, h in hist.items()})
        figures("fan-out stalled client", get_state_prefill=prefill_requests, answer_bytes=answer_bytes,
                prefill_s=round(prefill_s, 2), kernel_send_queue_bytes=kernel_bytes,
                slider_frames_after_kernel_full=lines_to_drop, queue_bound=QUEUE_BOUND,
                dropped_after_s=round(drop - phase_b, 2))
        figures("fan-out RSS (KiB)", warm=warm_kib, max_after_warm=max(later), last=later[-1],
                growth=max(later) - warm_kib, samples=len(rss.samples),
                every_5s=[kib for _, kib in rss.samples][::10], sanitized=SANITIZED)

        errors = [e for p in procs for e in p.errors]
        assert not errors, errors[:10]
        for r in reports:
            assert not r["lost"], f"events lost: {r['lost'][:10]} of {sent}"
            assert not r["wrong"], f"events out of order or wrong: {r['wrong'][:5]}"
            assert not r["gone"], f"healthy clients dropped: {r['gone'][:10]}"
        assert abs(lines_to_drop - QUEUE_BOUND) <= QUEUE_BOUND_TOLERANCE, (
            f"the stalled client was closed {lines_to_drop} slider frames after its kernel "
            f"buffer filled; its queue bound is {QUEUE_BOUND}")
        dropped = [line for line in daemon.log if "a websocket client stopped reading" in line]
        assert len(dropped) == 1 and f"({QUEUE_BOUND} frames, " in dropped[0], dropped
        limit = max(P99_RATIO * p99["without"], p99["without"] + P99_SLACK_MS)
        assert p99["with"] <= limit, (
            f"p99 with the stalled client {p99['with']} ms, without {p99['without']} ms "
            f"(limit {limit:.1f} ms)")
        check_rss_flat("fan-out", warm_kib, later, RSS_GROWTH_KIB)
        assert get_json(daemon, "/api/status")["connected"] is True
    finally:
        if stalled:
            stalled.close()
        if watch:
            watch.stop()
        for p in procs:
            p.close()
    stop_cleanly(daemon)
