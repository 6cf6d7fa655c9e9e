"""4. Malformed HTTP requests on all three listeners and garbage lines from the device: mixerd
answers each request with a 4xx (or closes it), ignores each bad line, never crashes, changes no
state, keeps answering /api/status, and its memory stays flat.

Cases are random but seeded (MIXERD_FAULT_SEED, printed). Requests to the notification API come
from random 127.x.y.z source addresses: each address may make 30 requests a minute, and many
addresses also exercise the rate limiter's own bound (4096 addresses).
"""
import collections
import http.client as http_client
import json
import os
import random
import time
from concurrent.futures import ThreadPoolExecutor

from fault_support import (RssSampler, check_rss_flat, figures, rss_kib, scaled, stop_cleanly)
from http_garbage import (CONTROLLER, NOTIFICATION, PLANTS, Case, acceptable, build, exchange, json_sweep,
                          request)
from integration_harness import connected, daemon_factory, data_dir, device  # noqa: F401 (fixtures)
from integration_harness import get_json, reply_of
from socketio_support import PyClient

HTTP_REQUESTS = scaled(10_000, 2_000)
DEVICE_LINES = scaled(10_000, 2_000)
# RSS may grow this much (KiB) after the first 10 % of the cases: polling sessions opened by the
# cases live until their ping timeout (45 s), the rate limiter fills its 4096 addresses, and the
# allocator keeps freed pages.
HTTP_RSS_GROWTH_KIB = 8 * 1024
DEVICE_RSS_GROWTH_KIB = 2 * 1024
STATE_EVENTS = {"slider_change", "mute_change", "volume_change", "assignment_change"}
# The one good device line's event: the slider moved by the hand.
SLIDER_2_AT_42 = {"index": 2, "value": 42, "position": 42, "pickup": False}


class Context:
    """What the case builders need: the API key and token, fresh source addresses, sessions."""

    def __init__(self, daemon, rng):
        with open(os.path.join(daemon.data_dir, "settings.json")) as f:
            settings = json.load(f)
        self.api_key = settings["toast_api_key"]
        self.plant_store_token = settings["plant_store_token"]
        self.ports = {CONTROLLER: daemon.ports["controller"], NOTIFICATION: daemon.ports["notification API"],
                      PLANTS: daemon.ports["plant store"]}
        self.rng = rng

    def fresh_source(self):
        return "127.%d.%d.%d" % (self.rng.randrange(1, 256), self.rng.randrange(256), self.rng.randrange(1, 255))

    def new_polling_sid(self):
        # From an address of its own: sessions left open by earlier cases count against their
        # address's 32 (protocol/limits.hpp) for up to 45 s.
        out = exchange(self.ports[CONTROLLER],
                       Case("handshake", CONTROLLER, [request("GET", "/socket.io/?EIO=4&transport=polling")],
                            source=self.fresh_source()))
        body = out.raw.split(b"\r\n\r\n", 1)[1]
        return json.loads(body[body.index(b"{"):])["sid"]


def state_of(daemon, ctx):
    # From an address of its own: the cases used up 127.0.0.1's 30 requests a minute.
    connection = http_client.HTTPConnection("127.0.0.1", ctx.ports[NOTIFICATION], timeout=10,
                                            source_address=(ctx.fresh_source(), 0))
    connection.request("GET", "/api/toast/handlers", headers={"X-API-Key": ctx.api_key})
    handlers = reply_of(connection.getresponse())
    connection.close()
    with open(os.path.join(daemon.data_dir, "plants.json")) as f:
        plants = f.read()
    # Without "muted": the mute endpoints take no body, so a bad one still toggles (200).
    sliders = [{k: v for k, v in s.items() if k != "muted"} for s in get_json(daemon, "/api/sliders")["sliders"]]
    return {"sliders": sliders, "volume": get_json(daemon, "/api/volume/master"),
            "handlers": handlers[:2], "plants": plants}


def test_malformed_http_requests_are_refused_and_change_nothing(connected):
    daemon, device = connected
    pid = daemon.proc.pid
    seed = int(os.environ.get("MIXERD_FAULT_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    ctx = Context(daemon, rng)
    before = state_of(daemon, ctx)
    cases = json_sweep(ctx)
    cases += [build(rng, ctx) for _ in range(HTTP_REQUESTS - len(cases))]
    outcomes = collections.Counter()
    by_kind = collections.Counter()
    unanswered = collections.Counter()  # closed without a status line, by kind
    failures = []

    def run(case):
        out = exchange(ctx.ports[case.listener], case)
        return case, out, acceptable(case, out)

    started = time.monotonic()
    warm_at = None
    with RssSampler(pid, interval=0.25) as rss:
        with ThreadPoolExecutor(max_workers=4) as pool:
            for n, (case, out, problem) in enumerate(pool.map(run, cases)):
                if n == len(cases) // 10:
                    warm_at = time.monotonic()
                by_kind[case.name] += 1
                outcomes[",".join(map(str, out.statuses)) or "closed without answer"] += 1
                unanswered[case.name] += not out.statuses
                if problem:
                    failures.append((case.name, case.listener, problem, b"".join(case.chunks)[:300],
                                     out.raw[:300]))
                assert daemon.proc.poll() is None, f"mixerd died at case {n} ({case.name}):\n" + \
                    "\n".join(daemon.log[-40:])
    elapsed = time.monotonic() - started
    warm_kib = next(kib for t, kib in rss.samples if t >= warm_at)
    later = rss.after(warm_at)
    figures("malformed HTTP", requests=len(cases), seed=seed, seconds=round(elapsed, 1),
            per_second=round(len(cases) / elapsed), refused_wrongly=len(failures),
            kinds=dict(by_kind), answers=dict(outcomes.most_common(12)),
            closed_without_answer={k: n for k, n in unanswered.items() if n})
    figures("malformed HTTP RSS (KiB)", warm=warm_kib, max_after_warm=max(later), last=later[-1],
            growth=max(later) - warm_kib)
    assert not failures, "\n".join(repr(f) for f in failures[:15])
    status = get_json(daemon, "/api/status")
    assert status["connected"] is True and status["port"] == device.path
    assert status["firmware_version"] == "2.0.0"
    after = state_of(daemon, ctx)
    changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    assert not changed, f"state changed by refused requests (before, after): {changed}"
    check_rss_flat("malformed HTTP", warm_kib, later, HTTP_RSS_GROWTH_KIB)
    stop_cleanly(daemon)


# Lines that start like real ones but are not: each is an unknown line as it stands, and the junk
# appended to it (lower-case letters, punctuation, NUL, bytes over 0x7f; no digits, commas or
# upper case) cannot complete it into a valid one.
NEAR_MISSES = [
    b"SLIDER", b"SLIDER,", b"SLIDER,0", b"SLIDER,0,", b"SLIDER,4,10", b"SLIDER,0,101", b"SLIDER,-1,5",
    b"SLIDER,0,5x", b"SLIDER,0,5,6", b"SLIDER,0,+5", b"SLIDER,0, 5", b"SLIDER,,5", b"SLIDER,0,0x10",
    b"SLIDER,0,5.0", b"SLIDER,0,99999999999999999999", b"SLIDER,\xff,5", b"SLIDER\x00,0,5",
    b"MUTE,4,PRESS", b"MUTE,0,PRES", b"MUTE,MASTER,PRESSED", b"MUTE,0,PRESS,1", b"MUTE,,PRESS",
    b"MUTE,-1,PRESS", b"ENCODER,1001", b"ENCODER,-1001", b"ENCODER,0", b"ENCODER,x", b"ENCODER,2,2",
    b"ENCODER,", b"MACRO,9,PRESS", b"MACRO,0,HOLD", b"MPAGE,4", b"MPAGE,-1", b"slider,0,5",
    b" SLIDER,0,5", b"SLIDER ,0,5", b"STATE,", b"STATE,CONNECTED,1", b"PONG,", b"\x00"]
JUNK = b"abcdefghijklmnopqrstuvwxyz!#$%&()*+-./:;<=>?@[]^_`{|}~ \x00\x7f\x80\xfe\xff"


def garbage_line(rng):
    kind = rng.randrange(5)
    if kind == 0:  # random bytes; \r and \n inside split it into more random lines
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))) + b"\n"
    if kind == 1:  # over 255 bytes: reported once as overlong, the rest dropped
        head = rng.choice([b"SLIDER,0,", b"TOAST,", b"", b"PAGE,"])
        return head + bytes(rng.choice(JUNK) for _ in range(rng.randrange(256, 100_000))) + b"\n"
    if kind == 2:  # NULs
        return b"\x00" * rng.randrange(1, 50) + rng.choice([b"", b"SLIDER,0,5"[:rng.randrange(10)]]) + b"\n"
    if kind == 3:  # only terminators: empty lines are skipped
        return bytes(rng.choice(b"\r\n") for _ in range(rng.randrange(1, 10)))
    junk = bytes(rng.choice(JUNK) for _ in range(rng.randrange(0, 20)))
    return rng.choice(NEAR_MISSES) + junk + rng.choice([b"\n", b"\r\n", b"\r"])


def test_garbage_device_lines_are_ignored(connected):
    daemon, device = connected
    pid = daemon.proc.pid
    device.expect("MASTER,50")
    seed = int(os.environ.get("MIXERD_FAULT_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    watcher = PyClient(daemon.url(""), "websocket")
    try:
        watcher.event("initial_state")
        before = {"sliders": get_json(daemon, "/api/sliders"), "mutes": get_json(daemon, "/api/mutes"),
                  "volume": get_json(daemon, "/api/volume/master")}
        lines = [garbage_line(rng) for _ in range(DEVICE_LINES)]
        started = time.monotonic()
        warm_at = None
        with RssSampler(pid, interval=0.25) as rss:
            for n, line in enumerate(lines):
                if n == len(lines) // 10:
                    warm_at = time.monotonic()
                os.write(device.master, line)
                if n % 500 == 499:  # now and then: is it still alive and linked?
                    assert daemon.proc.poll() is None, "\n".join(daemon.log[-40:])
            # A good line after all that: the splitter is back in step.
            os.write(device.master, b"\nSLIDER,1,42\n")
            watcher.event("slider_change", lambda p: p == SLIDER_2_AT_42)
        elapsed = time.monotonic() - started
        warm_kib = next(kib for t, kib in rss.samples if t >= warm_at)
        later = rss.after(warm_at)
        state_events = [e for e in watcher.events.seen if e[0] in STATE_EVENTS]
        unrecognised = sum(1 for line in daemon.log if "unrecognised line" in line)
        overlong = sum(1 for line in daemon.log if "over-long line" in line)
        figures("garbage device lines", lines=len(lines), seed=seed,
                bytes=sum(len(line) for line in lines), seconds=round(elapsed, 1),
                logged_unrecognised=unrecognised, logged_overlong=overlong,
                state_events=len(state_events), rss_warm_kib=warm_kib, rss_max_after_warm_kib=max(later),
                rss_growth_kib=max(later) - warm_kib, rss_now_kib=rss_kib(pid))
        assert state_events == [("slider_change", SLIDER_2_AT_42)], state_events[:10]
        # At most 10 unusable lines a minute reach the log (the rest are counted, not written).
        assert unrecognised + overlong <= 10 * (1 + int(elapsed // 60)), (unrecognised, overlong)
        after = {"sliders": get_json(daemon, "/api/sliders"), "mutes": get_json(daemon, "/api/mutes"),
                 "volume": get_json(daemon, "/api/volume/master")}
        before["sliders"]["sliders"][1].update(value=42, position=42)
        assert after == before
        status = get_json(daemon, "/api/status")
        assert status["connected"] is True and status["port"] == device.path
        check_rss_flat("garbage device lines", warm_kib, later, DEVICE_RSS_GROWTH_KIB)
    finally:
        watcher.close()
    stop_cleanly(daemon)
