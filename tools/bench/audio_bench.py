"""mixerd's audio benchmark: the real daemon on a private PulseAudio and a private PipeWire, a pty
as the device, and the floor (tools/bench/pulse_bench.c) measured in the same run, taking turns.

    /usr/bin/python3 tools/bench/audio_bench.py [--quick] [--servers pulseaudio,pipewire]
        [--mixerd PATH] [--pulse-bench PATH] [--audio-support PATH] [--out F]

- slider to sound: a `SLIDER,i,v` line written on the pty -> the stream's volume read at v % by
  a subscribed libpulse client (pulse_bench watch). The floor: pulse_bench floor reads the same
  kind of line from its own pty and sets its own stream with pa_context_set_sink_input_volume.
- new stream to level: a stream of an app assigned to a slider appears -> its volume read at the
  slider's value; from the observer's NEW event for it.
- 100 slider lines a second: monotonic ramps on one slider; every value in the slider_change
  events, the final one in GET /api/sliders and on the server.

The servers come from tests/integration/audio_support.py (its SERVERS, else its PulseServer
alone), or from the file --audio-support names. tools/bench/run.sh --audio builds and runs this;
what is measured and why: README.md, "Benchmarks", "Audio".
"""
import argparse
import contextlib
import importlib.util
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))

import audio_report  # noqa: E402
import conftest  # noqa: E402  Daemon, FakeDevice, get_json, http, wait_until
import machine  # noqa: E402
import sio_latency as lat  # noqa: E402  stats, paced

# samples: slider lines per side (mixerd, floor) after warm_up uncounted ones; new_streams:
# streams started per side; flood_s seconds of 100 lines/s.
FULL = {"samples": 1000, "warm_up": 30, "new_streams": 150, "flood_rate": 100, "flood_s": 5}
QUICK = {"samples": 60, "warm_up": 10, "new_streams": 15, "flood_rate": 100, "flood_s": 2}
# The apps: mixerd's sliders 1 and 2, the floor's "sliders" 0 and 1.
MIXERD_APPS = ("benchmix", "benchnew")
FLOOR_APPS = ("benchfloor", "benchfloornew")
WAIT_S = 2.0  # a volume not seen by then is lost
DEADBAND = 1  # slider_deadband's default (a fresh settings file)


def percent(raw):
    return round(raw * 100 / 65536)


class Watcher:
    """pulse_bench watch: every sink-input event and the sink input read after it, as
    (t_ns, kind, index) in `events` and (t_ns, index, percent min, percent max, app, channels,
    writable) in `infos`, both in arrival order."""

    def __init__(self, binary, env):
        self.proc = subprocess.Popen([binary, "watch"], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        first = self.proc.stdout.readline()
        if first.strip() != "ready":
            self.close()
            raise RuntimeError(f"pulse_bench watch did not start: {first!r}")
        self.cond = threading.Condition()
        self.events, self.infos = [], []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            parts = line.rstrip("\n").split(" ", 7)
            with self.cond:
                if parts[0] == "E":
                    self.events.append((int(parts[1]), parts[2], int(parts[3])))
                elif parts[0] == "I":
                    self.infos.append((int(parts[1]), int(parts[2]), percent(int(parts[3])),
                                       percent(int(parts[4])), parts[7] if len(parts) > 7 else "",
                                       int(parts[5]), parts[6] == "1"))
                self.cond.notify_all()

    def mark(self):
        with self.cond:
            return len(self.events), len(self.infos)

    def wait(self, predicate, start, timeout=WAIT_S, what="infos"):
        """The first item of `what` from position `start` on that satisfies predicate, or None."""
        deadline = time.monotonic() + timeout
        with self.cond:
            pos = start
            while True:
                items = getattr(self, what)
                for k in range(pos, len(items)):
                    if predicate(items[k]):
                        return items[k]
                pos = len(items)
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)

    def volume_at(self, index, value, since_ns, start):
        return self.wait(lambda i: i[1] == index and i[0] >= since_ns and i[2] == i[3] == value,
                         start)

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()  # its signal to end
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Floor:
    """pulse_bench floor on its own pty, for the floor apps."""

    def __init__(self, binary, pty_path, env):
        self.proc = subprocess.Popen([binary, "floor", pty_path, *FLOOR_APPS], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        first = self.proc.stdout.readline()
        if first.strip() != "ready":
            self.close()
            raise RuntimeError(f"pulse_bench floor did not start: {first!r}")

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def pacat(server, app):
    """A real stream of `app`, as audio_support's play() starts it, not waited for."""
    return subprocess.Popen(
        ["pacat", "--playback", "--raw", "--format=s16le", "--rate=44100", "--channels=2",
         f"--client-name={app}", f"--property=application.name={app}",
         f"--property=application.process.binary={app}", "/dev/zero"],
        env=server.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_stream(server, watcher, app):
    """Starts a stream of `app`; (process, sink-input index) once the observer read it."""
    _, start = watcher.mark()
    proc = pacat(server, app)
    info = watcher.wait(lambda i: i[4] == app, start, timeout=10)
    if info is None:
        proc.kill()
        raise RuntimeError(f"the stream of {app} never appeared")
    return proc, info[1]


def end_stream(proc, watcher, index, start):
    proc.terminate()
    proc.wait()
    watcher.wait(lambda e: e[1] == "r" and e[2] == index, start, timeout=10, what="events")


def assign(daemon, slider, app):
    status, reply, _ = conftest.http("POST", daemon.url(f"/api/sliders/{slider}/assignment"),
                                     {"type": "specific_app", "names": [app]})
    if status != 200:
        raise RuntimeError(f"assignment of slider {slider}: {status} {reply}")


def slider_value(daemon, slider):
    return conftest.get_json(daemon, "/api/sliders")["sliders"][slider - 1]["value"]


def slider_to_sound(watcher, sides, cfg, rng):
    """sides: [(name, device, slider index, sink-input index)]. Every round sends one value to
    each side in turn (the order alternates), waits for it on the server, and pauses 2-8 ms."""
    out = {name: {"latencies": [], "lost": 0} for name, *_ in sides}
    for k in range(cfg["warm_up"] + cfg["samples"]):
        value = 10 + (k * 37) % 81  # every step > the deadband, never the previous value
        for name, device, slider, index in (sides if k % 2 == 0 else sides[::-1]):
            _, start = watcher.mark()
            sent = time.monotonic_ns()
            device.send(f"SLIDER,{slider},{value}")
            seen = watcher.volume_at(index, value, sent, start)
            if k >= cfg["warm_up"]:
                if seen:
                    out[name]["latencies"].append(seen[0] - sent)
                else:
                    out[name]["lost"] += 1
            time.sleep(rng.uniform(0.002, 0.008))
    return {name: {"latency_ms": lat.stats(r["latencies"]), "lost": r["lost"],
                   "samples": cfg["samples"]} for name, r in out.items()}


def new_stream_to_level(server, watcher, sides, cfg, daemon):
    """sides: [(name, device, slider index, app)]. Each round sets each side's slider to the
    next of a few values (so a volume the server restores for the app, the last one, is never
    the slider's), starts a stream of its app and times its NEW event -> its volume at the
    slider's value; then ends the stream."""
    values = (23, 61, 37, 79)
    out = {name: {"from_new": [], "from_spawn": [], "lost": 0, "not_held": 0,
                  "first_volumes": []} for name, *_ in sides}
    for k in range(cfg["new_streams"]):
        value = values[k % len(values)]
        for name, device, slider, app in (sides if k % 2 == 0 else sides[::-1]):
            device.send(f"SLIDER,{slider},{value}")
            if name == "mixerd":
                conftest.wait_until(lambda: slider_value(daemon, slider + 1) == value,
                                    what="the slider value")
            else:
                time.sleep(0.005)  # the floor reads its pty within microseconds
            events_at, infos_at = watcher.mark()
            spawned = time.monotonic_ns()
            proc = pacat(server, app)
            first = watcher.wait(lambda i: i[4] == app and i[0] >= spawned, infos_at, timeout=10)
            if first is None:
                proc.kill()
                proc.wait()
                raise RuntimeError(f"the stream of {app} never appeared")
            index = first[1]
            new = watcher.wait(lambda e: e[1] == "n" and e[2] == index, events_at,
                               what="events")
            seen = watcher.volume_at(index, value, spawned, infos_at)
            r = out[name]
            r["first_volumes"].append(first[3])
            if seen and new:
                r["from_new"].append(max(0, seen[0] - new[0]))
                r["from_spawn"].append(seen[0] - spawned)
                # Still there a little later (a server that restores the app's last volume
                # after the stream appeared does it within a few ms)?
                time.sleep(0.05)
                with watcher.cond:
                    last = [i for i in watcher.infos[infos_at:] if i[1] == index][-1]
                if not last[2] == last[3] == value:
                    r["not_held"] += 1
            else:
                r["lost"] += 1
            end_stream(proc, watcher, index, events_at)
    return {name: {"from_new_ms": lat.stats(r["from_new"]),
                   "from_spawn_ms": lat.stats(r["from_spawn"]), "lost": r["lost"],
                   "not_held": r["not_held"], "streams": cfg["new_streams"],
                   "first_volume_percent": sorted(set(r["first_volumes"]))}
            for name, r in out.items()}


def in_order(seen, sent):
    """Is `seen` (consecutive repeats dropped) a subsequence of `sent`?"""
    it = iter(sent)
    return all(any(v == s for s in it) for v in dedup(seen))


def dedup(values):
    return [v for k, v in enumerate(values) if k == 0 or values[k - 1] != v]


def on_server(watcher, start, index, plan, sends, server):
    """What the server had of one stream during a flood: its volume read after every change
    event (values in the order sent?), the last one, and the time from a line to the first read
    of its value."""
    final = watcher.volume_at(index, plan[-1], sends[-1], start)
    with watcher.cond:
        infos = [i for i in watcher.infos[start:] if i[1] == index and i[2] == i[3]]
    values = [i[2] for i in infos]
    delays, counted, k = [], set(), 0
    for t, _, v, *_ in infos:
        # The latest line of that value written before the read (a value recurs once a ramp).
        while k + 1 < len(sends) and sends[k + 1] <= t:
            k += 1
        j = k
        while j >= 1 and plan[j] != v:  # plan[0]: the value before the flood, not sent
            j -= 1
        if j >= 1 and sends[j] <= t and j not in counted:
            counted.add(j)
            delays.append(t - sends[j])
    return {"final_seen": final is not None, "final_pactl": volume_of_stream(server, index),
            "reads": len(infos), "distinct": len(dedup(values)),
            "in_order": in_order(values, plan), "line_to_server_ms": lat.stats(delays)}


def ramps(start, count, turn):
    """count values from start: up and down by 1 between 0 and 100, turning with a step of
    `turn` (a step back of the deadband or less would be no move). The first move is a step of
    `turn` too: the slider's last move before `start` may have gone the other way."""
    plan, value, step = [], start, 1 if start < 100 - turn else -1
    for n in range(count):
        if n == 0:
            value += turn * step
        elif not 0 <= value + step <= 100:
            step = -step
            value += turn if step > 0 else -turn
        else:
            value += step
        plan.append(value)
    return plan


def flood(daemon, device, floor_device, watcher, server, streams, cfg):
    """flood_rate lines a second for flood_s seconds to mixerd's slider 1 and, in the same
    ticks, to the floor's slider 0, open loop: monotonic ramps (1 a line) that turn with a step
    beyond the deadband (DEADBAND, the default slider_deadband), so every line moves the value
    and none is a step back within the deadband."""
    import socketio_support  # python-socketio; only this phase needs it

    count = cfg["flood_rate"] * cfg["flood_s"]
    start = slider_value(daemon, 1)
    # Where both start (the last slider-to-sound value, not sent again), then the lines.
    plan = [start] + ramps(start, count, DEADBAND + 1)
    client = socketio_support.PyClient(daemon.url(""), transport="websocket")
    polled, stop = [], threading.Event()

    def poll():  # GET /api/sliders every 5 ms (twice the line rate), on its own connection
        while not stop.wait(0.005):
            polled.append(slider_value(daemon, 1))

    def events():
        return [p["value"] for n, p in list(client.events.seen)
                if n == "slider_change" and p["index"] == 1]

    poller = threading.Thread(target=poll, daemon=True)
    mixerd_sent, floor_sent = [0], [0]
    try:
        _, start = watcher.mark()
        poller.start()

        def send(k):
            line = f"SLIDER,0,{plan[k + 1]}"
            both = [(device, mixerd_sent), (floor_device, floor_sent)]
            for to, times in (both if k % 2 == 0 else both[::-1]):  # first in turn
                times.append(time.monotonic_ns())
                to.send(line)
            return 1, plan[k + 1], mixerd_sent[-1]

        _, late = lat.paced(count, cfg["flood_rate"], send)
        conftest.wait_until(lambda: len(events()) >= count, timeout=5, what="every event")
        stop.set()
        poller.join()
    except AssertionError:
        pass  # counted below
    finally:
        stop.set()
        client.close()
    got = events()
    return {
        "lines": count, "rate_per_s": cfg["flood_rate"],
        "send_lateness_us": lat.stats(late, scale=1e3, unit="us"),
        "events": len(got), "events_match": got == plan[1:],
        "get_final": slider_value(daemon, 1), "get_polls": len(polled),
        "get_distinct": len(dedup(polled)), "get_in_order": in_order(polled, plan),
        "final_sent": plan[-1],
        "mixerd": on_server(watcher, start, streams[MIXERD_APPS[0]], plan, mixerd_sent, server),
        "floor": on_server(watcher, start, streams[FLOOR_APPS[0]], plan, floor_sent, server),
    }


def volume_of_stream(server, index):
    s = server.stream(index)
    values = {round(ch["value"] * 100 / 65536) for ch in s["volume"].values()}
    return values.pop() if len(values) == 1 else None


def measure_server(kind, server_class, args, cfg, tmp, rng):
    runtime = tempfile.mkdtemp(prefix="mixerd-bench-a-", dir="/tmp")  # short: socket paths
    result = {"kind": kind}
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, runtime, True)
        server = server_class(runtime)
        stack.callback(getattr(server, "stop", server.kill))
        server.start()
        result["server"] = server.pactl("info").split("Server Name: ", 1)[1].split("\n", 1)[0]
        watcher = Watcher(args.pulse_bench, server.env)
        stack.callback(watcher.close)
        streams = {}
        for app in (MIXERD_APPS[0], FLOOR_APPS[0]):
            proc, index = start_stream(server, watcher, app)
            stack.callback(lambda p=proc: (p.kill(), p.wait()))
            streams[app] = index

        folder = os.path.join(tmp, kind)
        os.makedirs(os.path.join(folder, "data"))
        os.makedirs(os.path.join(folder, "dev"))
        os.makedirs(os.path.join(folder, "floor"))
        device = conftest.FakeDevice(os.path.join(folder, "dev"))
        stack.callback(device.close)
        daemon = conftest.Daemon(os.path.join(folder, "data"), ["--serial", device.path],
                                 env={"PULSE_SERVER": server.env["PULSE_SERVER"]},
                                 binary=args.mixerd)
        stack.callback(daemon.stop)
        daemon.start()
        conftest.wait_until(lambda: conftest.get_json(daemon, "/api/status")["connected"],
                            timeout=10, what="the device link")
        conftest.wait_until(lambda: conftest.get_json(daemon, "/api/status")["audio_connected"],
                            timeout=10, what="the audio server link")
        for slider, app in enumerate(MIXERD_APPS, start=1):
            assign(daemon, slider, app)
        floor_device = conftest.FakeDevice(os.path.join(folder, "floor"))
        stack.callback(floor_device.close)
        floor = Floor(args.pulse_bench, floor_device.path, server.env)
        stack.callback(floor.close)

        print(f"bench: {kind}: slider to sound, mixerd and floor in turn", flush=True)
        result["slider_to_sound"] = slider_to_sound(
            watcher, [("mixerd", device, 0, streams[MIXERD_APPS[0]]),
                      ("floor", floor_device, 0, streams[FLOOR_APPS[0]])], cfg, rng)
        print(f"bench: {kind}: new stream to level, mixerd and floor in turn", flush=True)
        result["new_stream"] = new_stream_to_level(
            server, watcher, [("mixerd", device, 1, MIXERD_APPS[1]),
                              ("floor", floor_device, 1, FLOOR_APPS[1])], cfg, daemon)
        print(f"bench: {kind}: {cfg['flood_rate']} slider lines a second", flush=True)
        result["flood"] = flood(daemon, device, floor_device, watcher, server, streams, cfg)
        floor.close()
        code = daemon.stop()
        result["mixerd_exit_code"] = code
        if code != 0:
            result["mixerd_log_tail"] = daemon.log[-20:]
    return result


def load_servers(path):
    """{kind: server class} from audio_support (tests/integration's, or the file at path)."""
    if path:
        spec = importlib.util.spec_from_file_location("bench_audio_support", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        import audio_support as module
    return getattr(module, "SERVERS", None) or {"pulseaudio": module.PulseServer}


def main():
    parser = argparse.ArgumentParser(description="mixerd audio benchmark")
    parser.add_argument("--quick", action="store_true", help="few samples, for a smoke check")
    parser.add_argument("--servers", default="pulseaudio,pipewire",
                        help="comma-separated, of audio_support's SERVERS")
    parser.add_argument("--mixerd", default=os.path.join(ROOT, "build/release/tools/mixerd"))
    parser.add_argument("--pulse-bench",
                        default=os.path.join(ROOT, "build/release/tools/bench/pulse_bench"))
    parser.add_argument("--audio-support", default=None,
                        help="an audio_support.py to take the server classes from")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--out", default=os.path.join(ROOT, "build/bench/audio.json"))
    args = parser.parse_args()
    args.mixerd = os.path.abspath(args.mixerd)
    for binary in (args.mixerd, args.pulse_bench):
        if not os.access(binary, os.X_OK):
            sys.exit(f"bench: {binary} is missing (tools/bench/run.sh --audio builds it)")
    servers = load_servers(args.audio_support)
    wanted = [s for s in args.servers.split(",") if s]
    missing = [s for s in wanted if s not in servers]
    if missing:
        sys.exit(f"bench: no server class for {missing} in audio_support (it has "
                 f"{sorted(servers)}); --audio-support names another audio_support.py")
    conftest.MIXERD_BIN = args.mixerd
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    cfg = QUICK if args.quick else FULL
    result = {"quick": args.quick, "config": cfg, "seed": args.seed,
              "machine": machine.audio_machine_info(args.mixerd), "servers": {}}
    started = time.monotonic()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="mixerd-bench-audio-") as tmp:
        for kind in wanted:
            result["servers"][kind] = measure_server(kind, servers[kind], args, cfg, tmp, rng)
    result["machine"]["loadavg_end"] = machine.loadavg()
    result["run_seconds"] = round(time.monotonic() - started, 1)
    result["targets"] = audio_report.targets(result)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(audio_report.table(result))
    print(f"bench: JSON in {args.out}")


if __name__ == "__main__":
    main()
