"""mixerd benchmark driver: the real daemon on free loopback ports with a pty as the device, the
machine's floor measured in the same run, one JSON object (build/bench/results.json) and a table.

    /usr/bin/python3 tools/bench/run.py [--quick] [--mixerd PATH] [--floor-server PATH] [--out F]

tools/bench/run.sh installs, builds and then runs this. What is measured and why the floor is a
fair one: README.md, "Benchmarks".
"""
import argparse
import contextlib
import http.client
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))

import conftest  # noqa: E402  Daemon, FakeDevice, get_json, wait_until
import footprint  # noqa: E402
import report  # noqa: E402
import sio_latency as lat  # noqa: E402

# seconds: lines per measured path (rate * seconds), sent in chunks of chunk_s that take turns
# with the floor's, after warm_up_s of lines that are not counted.
FULL = {"seconds": 10, "chunk_s": 2, "warm_up_s": 1, "rate": 200, "wrk_seconds": 10,
        "startup_runs": 10, "settle_s": 2.0, "many": 100}
QUICK = {"seconds": 2, "chunk_s": 1, "warm_up_s": 1, "rate": 200, "wrk_seconds": 2,
         "startup_runs": 3, "settle_s": 0.5, "many": 100}


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def version_of(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return None


def machine_info(mixerd):
    with open("/proc/cpuinfo") as f:
        model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), None)
    return {"cpus": os.cpu_count(), "cpu_model": model, "kernel": platform.release(),
            "mixerd": mixerd, "mixerd_version": version_of([mixerd, "--version"]),
            "node": version_of(["node", "--version"]), "wrk": version_of(["wrk", "-v"]),
            "loadavg_start": loadavg()}


class FloorServer:
    """tools/bench/floor_server on a pty: the least work the serial -> Socket.IO path can do."""

    def __init__(self, binary, pty_path, http_body):
        self.proc = subprocess.Popen([binary, pty_path, http_body], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        first = self.proc.stdout.readline()
        m = re.match(r"port (\d+)", first)
        if not m:
            self.close()
            raise RuntimeError(f"floor_server did not start: {first!r}")
        self.url = f"http://127.0.0.1:{m.group(1)}"

    def pty_reads(self):
        """Ends the server; returns (read ns, line) for every pty line it read."""
        out, _ = self.proc.communicate(timeout=30)  # closes stdin: the server's signal to end
        return [(int(t), line) for t, _, line in (l.partition(" ") for l in out.splitlines())]

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def run_wrk(url, seconds, server_pid):
    """wrk -t2 -c50 --latency with keep-alive (wrk's default)."""
    cmd = ["wrk", "-t2", "-c50", f"-d{seconds}s", "--latency", url]
    user0, system0 = footprint.cpu_times(server_pid)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 30).stdout
    user1, system1 = footprint.cpu_times(server_pid)
    result = {"command": " ".join(cmd[:-1]) + " URL",
              "server_cpu_s": round(user1 - user0 + system1 - system0, 3),
              "server_cpu_user_s": round(user1 - user0, 3),
              "server_cpu_system_s": round(system1 - system0, 3)}
    m = re.search(r"Requests/sec:\s+([\d.]+)", out)
    result["requests_per_s"] = float(m.group(1)) if m else None
    m = re.search(r"(\d+) requests in", out)
    result["requests"] = int(m.group(1)) if m else None
    units = {"us": 1e-3, "ms": 1.0, "s": 1e3}
    for p, value, unit in re.findall(r"^\s+(50|75|90|99)%\s+([\d.]+)(us|ms|s)\s*$", out, re.M):
        result[f"p{p}_ms"] = round(float(value) * units[unit], 3)
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    result["non_2xx"] = int(m.group(1)) if m else 0
    m = re.search(r"Socket errors: (.*)", out)
    result["socket_errors"] = m.group(1) if m else None
    return result


def run_codec_bench(binary):
    """codec_bench: ns per line for the device line codec, without I/O."""
    if not os.access(binary, os.X_OK):
        return None
    out = subprocess.run([binary], capture_output=True, text=True, timeout=120).stdout
    per_line = {}
    for name, ns in re.findall(r"^(.*?)\s+([\d.]+) ns/op", out, re.M):
        chunk = re.search(r"\((\d+)-line chunk\)", name)
        per_line[name.split(" (")[0]] = round(float(ns) / (int(chunk.group(1)) if chunk else 1), 1)
    return per_line


def serial_sender(device, plan):
    def send(k):
        slider, value = plan.take(k)
        line = f"SLIDER,{slider},{value}"
        sent = time.monotonic_ns()
        device.send(line)
        return slider + 1, value, sent
    return send


class RestSender:
    """POST /api/sliders/{i} {"value": v} on one keep-alive connection; the send time is taken
    right before the request is written."""

    def __init__(self, port, plan):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.plan = plan
        self.errors = 0

    def __call__(self, k):
        slider, value = self.plan.take(k)
        body = json.dumps({"value": value})
        sent = time.monotonic_ns()
        self.conn.request("POST", f"/api/sliders/{slider + 1}", body,
                          {"Content-Type": "application/json"})
        resp = self.conn.getresponse()
        resp.read()
        if resp.status != 200:
            self.errors += 1
        return slider + 1, value, sent


def fake_device(tmp, name, stack):
    """A FakeDevice (a real pty answering like the firmware) in its own folder, closed at exit."""
    folder = os.path.join(tmp, name)
    os.makedirs(folder)
    device = conftest.FakeDevice(folder)
    stack.callback(device.close)
    return device


def slider_values(daemon):
    return [s["value"] for s in conftest.get_json(daemon, "/api/sliders")["sliders"]]


def measure_paths(tmp, daemon, device, floor_binary, cfg, stack, result):
    """The floor and mixerd take turns in chunks (floor, mixerd, floor, mixerd, ...) with the
    same clients connected throughout, so that both see the same machine load."""
    rate, seconds = cfg["rate"], cfg["seconds"]
    chunk, rounds = cfg["chunk_s"] * rate, seconds // cfg["chunk_s"]
    warm_up = cfg["warm_up_s"] * rate
    floor_out = result["floor"] = {}
    mixerd_out = result["mixerd"] = {"serial": {}, "rest": {}, "memory_with_clients": {}}
    floor_device = fake_device(tmp, "floor", stack)
    body = json.dumps(conftest.get_json(daemon, "/api/sliders"), separators=(",", ":"))
    floor = FloorServer(floor_binary, floor_device.path, body)
    stack.callback(floor.close)
    floor_plan = lat.SliderPlan()
    pid = daemon.proc.pid

    print("bench: bare pty", flush=True)
    bare_sends, late = lat.paced(seconds * rate, rate, serial_sender(floor_device, floor_plan))
    all_floor_sends = list(bare_sends)
    for n in (1, cfg["many"]):
        with contextlib.closing(lat.NodeClients(floor.url, n, "websocket", None)) as fl_clients:
            floor_out["clock"] = fl_clients.clock_check()
            floor_series = lat.Series(fl_clients, floor.proc.pid)
            all_floor_sends += floor_series.warm_up(serial_sender(floor_device, floor_plan),
                                                    warm_up, rate)
            for transport in ("websocket", "default"):
                print(f"bench: {n} client(s), {transport}: floor and mixerd", flush=True)
                with contextlib.closing(
                        lat.NodeClients(daemon.url(""), n, transport, "initial_state")) as clients:
                    series = lat.Series(clients, pid)
                    plan = lat.SliderPlan(slider_values(daemon))
                    series.warm_up(serial_sender(device, plan), warm_up, rate)
                    for _ in range(rounds):
                        all_floor_sends += floor_series.chunk(
                            serial_sender(floor_device, floor_plan), chunk, rate)
                        series.chunk(serial_sender(device, plan), chunk, rate)
                    figures = series.summary()
                    beside = floor_series.chunk_p99_ms[-rounds:]
                    figures["floor_chunk_p99_ms"] = beside
                    figures["p99_to_floor"] = lat.paired_ratios(series.chunk_p99_ms, beside)
                    mixerd_out["serial"][f"{transport}_{n}"] = figures
                    mixerd_out["memory_with_clients"][f"{transport}_{n}"] = footprint.memory(pid)
                    if transport != "websocket":
                        continue
                    print(f"bench: {n} client(s), REST", flush=True)
                    rest = lat.Series(clients, pid)
                    sender = RestSender(daemon.ports["controller"],
                                        lat.SliderPlan(slider_values(daemon)))
                    with contextlib.closing(sender.conn):
                        for _ in range(rounds):
                            rest.chunk(sender, chunk, rate)
                    mixerd_out["rest"][f"websocket_{n}"] = rest.summary()
                    mixerd_out["rest"][f"websocket_{n}"]["http_errors"] = sender.errors
            floor_out[f"ws_{n}"] = floor_series.summary()
            floor_out[f"ws_{n}"]["server_memory"] = footprint.memory(floor.proc.pid)

    print("bench: wrk: floor, then mixerd", flush=True)
    floor_out["http"] = run_wrk(floor.url + "/api/sliders", cfg["wrk_seconds"], floor.proc.pid)
    mixerd_out["http"] = run_wrk(daemon.url("/api/sliders"), cfg["wrk_seconds"], pid)
    time.sleep(0.5)  # closing 50 connections takes mixerd a few ms
    mixerd_out["memory_after_wrk"] = footprint.memory(pid)

    reads = floor.pty_reads()
    expected = [f"SLIDER,{index - 1},{value}" for index, value, _ in all_floor_sends]
    if [line for _, line in reads] != expected:
        raise RuntimeError(f"floor_server read {len(reads)} lines, {len(expected)} sent, or "
                           "they differ: the pty lost or mangled lines")
    bare = [t - sent for (t, _), (_, _, sent) in zip(reads, bare_sends)]
    floor_out["pty"] = {"lines": len(bare), "rate_per_s": rate, "latency_ms": lat.stats(bare),
                        "send_lateness": lat.stats(late, scale=1e3, unit="us")}


def measure(args, cfg, stack):
    result = {"quick": args.quick, "config": cfg, "machine": machine_info(args.mixerd)}
    tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="mixerd-bench-"))

    startup_device = fake_device(tmp, "startup", stack)
    print("bench: start-up", flush=True)
    result["startup"] = footprint.startup_times(conftest.Daemon, os.path.join(tmp, "startup-data"),
                                                startup_device.path, cfg["startup_runs"])
    startup_device.close()

    device = fake_device(tmp, "device", stack)
    daemon = conftest.Daemon(os.path.join(tmp, "data"), ["--serial", device.path])
    stack.callback(daemon.stop)
    daemon.start()
    conftest.wait_until(lambda: conftest.get_json(daemon, "/api/status")["connected"],
                        timeout=10, what="the device link")
    pid = daemon.proc.pid
    time.sleep(cfg["settle_s"])
    cpu0 = footprint.cpu_seconds(pid)
    time.sleep(cfg["settle_s"])
    idle = footprint.memory(pid)
    idle["rss_by_mapping_kib"] = footprint.rss_by_mapping(pid)
    idle["cpu_percent"] = round((footprint.cpu_seconds(pid) - cpu0) / cfg["settle_s"] * 100, 2)
    result["idle"] = idle

    measure_paths(tmp, daemon, device, args.floor_server, cfg, stack, result)
    code = daemon.stop()
    result["mixerd"]["exit_code"] = code
    if code != 0:
        result["mixerd"]["log_tail"] = daemon.log[-20:]
    result["codec_ns_per_op"] = run_codec_bench(args.codec_bench)
    result["machine"]["loadavg_end"] = loadavg()
    result["targets"] = report.targets(result)
    return result


def main():
    parser = argparse.ArgumentParser(description="mixerd benchmark driver")
    parser.add_argument("--quick", action="store_true", help="short phases, for a smoke check")
    parser.add_argument("--mixerd", default=os.path.join(ROOT, "build/release/tools/mixerd"))
    parser.add_argument("--floor-server",
                        default=os.path.join(ROOT, "build/release/tools/bench/floor_server"))
    parser.add_argument("--codec-bench",
                        default=os.path.join(ROOT, "build/release/tools/bench/codec_bench"))
    parser.add_argument("--out", default=os.path.join(ROOT, "build/bench/results.json"))
    args = parser.parse_args()
    args.mixerd = os.path.abspath(args.mixerd)
    for binary in (args.mixerd, args.floor_server):
        if not os.access(binary, os.X_OK):
            sys.exit(f"bench: {binary} is missing (tools/bench/run.sh builds it)")
    conftest.MIXERD_BIN = args.mixerd
    # SIGTERM unwinds like Ctrl-C, so every process started so far is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        result = measure(args, QUICK if args.quick else FULL, stack)
    result["run_seconds"] = round(time.monotonic() - started, 1)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(report.table(result))
    print(f"bench: JSON in {args.out}")


if __name__ == "__main__":
    main()
