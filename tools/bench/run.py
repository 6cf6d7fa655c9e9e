"""mixerd benchmark driver: the real daemon on free loopback ports with a pty as the device, the
Node peer (tools/bench/node_peer) and the machine's floor measured in the same run, taking turns,
one JSON object (build/bench/results.json) and a table. The minimal build (tools/build.sh minimal)
is measured for its idle footprint and its start-up.

    /usr/bin/python3 tools/bench/run.py [--quick] [--mixerd PATH] [--minimal PATH]
                                        [--floor-server PATH] [--node-peer PATH] [--out F]

tools/bench/run.sh installs, builds and then runs this. What is measured and why the floor is a
fair one: README.md, "Benchmarks".
"""
import argparse
import contextlib
import http.client
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))

import conftest  # noqa: E402  Daemon, FakeDevice, get_json, wait_until
import footprint  # noqa: E402
import machine  # noqa: E402
import report  # noqa: E402
import sio_latency as lat  # noqa: E402

# seconds: lines per measured path (rate * seconds), sent in chunks of chunk_s that take turns
# with the floor's and the Node peer's, after warm_up_s of lines that are not counted.
# wrk_rounds runs of wrk_seconds per server, taking turns (mixerd, Node peer, floor, mixerd, ...),
# after one uncounted run of wrk_warm_up_s each.
FULL = {"seconds": 10, "chunk_s": 2, "warm_up_s": 1, "rate": 200, "wrk_seconds": 5,
        "wrk_rounds": 3, "wrk_warm_up_s": 1, "startup_runs": 10, "settle_s": 2.0, "many": 100}
QUICK = {"seconds": 2, "chunk_s": 1, "warm_up_s": 1, "rate": 200, "wrk_seconds": 2,
         "wrk_rounds": 2, "wrk_warm_up_s": 1, "startup_runs": 3, "settle_s": 0.5, "many": 100}


def get_raw(url):
    """(status, body bytes) of GET url, on a connection of its own."""
    host, _, rest = url.removeprefix("http://").partition("/")
    conn = http.client.HTTPConnection(*host.split(":"), timeout=10)
    with contextlib.closing(conn):
        conn.request("GET", "/" + rest)
        resp = conn.getresponse()
        return resp.status, resp.read()


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


class NodePeer:
    """tools/bench/node_peer/server.js on a pty: the same paths written the usual way in Node."""

    def __init__(self, script, pty_path, sliders_body, port=0, wait=True):
        """port 0: any free one. wait=False returns right after the exec, like
        Daemon.start(wait_ready=False), for the start-up measure, which polls `port` itself."""
        self.proc = subprocess.Popen(["node", script, pty_path, sliders_body, str(port)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if not wait:
            self.url = f"http://127.0.0.1:{port}"
            return
        first = self.proc.stdout.readline()
        m = re.match(r"port (\d+)", first)
        if not m:
            self.close()
            raise RuntimeError(f"the Node peer did not start: {first!r}")
        self.url = f"http://127.0.0.1:{m.group(1)}"

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()  # its signal to end
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


def run_wrk(url, seconds, server_pid):
    """wrk -t2 -c50 --latency with keep-alive (wrk's default). The server's CPU time (utime +
    stime of all its threads, /proc/PID/stat) is read right before and right after wrk; divided
    by the requests wrk completed, it is the server's CPU per request."""
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
    if result["requests"]:
        per = 1e6 / result["requests"]
        result["server_cpu_us_per_request"] = round(result["server_cpu_s"] * per, 2)
        result["server_cpu_user_us_per_request"] = round(result["server_cpu_user_s"] * per, 2)
        result["server_cpu_system_us_per_request"] = round(result["server_cpu_system_s"] * per, 2)
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


def sliders_body(daemon):
    """mixerd's GET /api/sliders body: the state the floor server and the Node peer start from."""
    status, body = get_raw(daemon.url("/api/sliders"))
    if status != 200:
        raise RuntimeError(f"mixerd answered GET /api/sliders with {status}")
    return body


def start_linked(binary, tmp, name, cfg, stack):
    """mixerd (binary) with a FakeDevice and a data folder of its own, started and linked to the
    device; (daemon, device), both stopped at exit at the latest."""
    device = fake_device(tmp, name, stack)
    data = os.path.join(tmp, f"{name}-data")
    os.makedirs(data)
    # Every benchmark client comes from 127.0.0.1, which may hold only 32 sessions by default.
    with open(os.path.join(data, "settings.json"), "w") as f:
        json.dump({"socketio_max_sessions_per_address": cfg["many"] + 16}, f)
    daemon = conftest.Daemon(data, ["--serial", device.path], binary=binary)
    stack.callback(daemon.stop)
    daemon.start()
    conftest.wait_until(lambda: conftest.get_json(daemon, "/api/status")["connected"],
                        timeout=10, what="the device link")
    return daemon, device


def idle_footprint(pid, cfg):
    """Memory and threads of a started, linked daemon left alone, and its CPU share over the
    second settle_s (the first lets the start-up's work end)."""
    time.sleep(cfg["settle_s"])
    cpu0 = footprint.cpu_seconds(pid)
    time.sleep(cfg["settle_s"])
    idle = footprint.memory(pid)
    idle["rss_by_mapping_kib"] = footprint.rss_by_mapping(pid)
    idle["cpu_percent"] = round((footprint.cpu_seconds(pid) - cpu0) / cfg["settle_s"] * 100, 2)
    return idle


def daemon_start(binary, data_dir, device_path):
    """start(port) for footprint.startup_times: mixerd (binary) on data_dir, not waited for."""
    def start(port):
        daemon = conftest.Daemon(data_dir, ["--serial", device_path, "--controller-port",
                                            str(port)], binary=binary)
        daemon.start(wait_ready=False)
        return daemon.proc, daemon.stop
    return start


def node_start(script, device_path, body):
    """start(port) for footprint.startup_times: the Node peer, not waited for."""
    def start(port):
        node = NodePeer(script, device_path, body, port=port, wait=False)
        return node.proc, node.close
    return start


def slider_values(daemon):
    return [s["value"] for s in conftest.get_json(daemon, "/api/sliders")["sliders"]]


def peer_slider_values(url):
    status, body = get_raw(url + "/api/sliders")
    if status != 200:
        raise RuntimeError(f"{url}/api/sliders answered {status}")
    return [s["value"] for s in json.loads(body)["sliders"]]


WRK_FIGURES = ("requests_per_s", "p50_ms", "p75_ms", "p90_ms", "p99_ms")
# Taken from the run(s) with the median CPU per request, so that user + system adds up.
WRK_CPU_FIGURES = ("server_cpu_us_per_request", "server_cpu_user_us_per_request",
                   "server_cpu_system_us_per_request", "server_cpu_s", "server_cpu_user_s",
                   "server_cpu_system_s")


def median_runs(runs, key):
    """The middle run (odd count) or the two middle runs (even count), ordered by key."""
    ordered = sorted((run for run in runs if run.get(key) is not None), key=lambda run: run[key])
    if not ordered:
        return []
    mid = len(ordered) // 2
    return ordered[mid:mid + 1] if len(ordered) % 2 else ordered[mid - 1:mid + 1]


def wrk_in_turn(servers, cfg):
    """servers: [(name, url, pid)]. One uncounted wrk run of wrk_warm_up_s each (node compiles
    its hot paths, every server grows its buffers), then wrk_rounds rounds in which the servers
    take turns, so that all see the same load from the rest of the machine. Every figure is the
    median over the rounds; each run is kept in "runs"."""
    out = {name: {"runs": []} for name, _, _ in servers}
    for name, url, pid in servers:
        out[name]["warm_up"] = run_wrk(url, cfg["wrk_warm_up_s"], pid)
    for r in range(cfg["wrk_rounds"]):
        for name, url, pid in servers:
            print(f"bench: wrk round {r + 1}/{cfg['wrk_rounds']}: {name}", flush=True)
            out[name]["runs"].append(run_wrk(url, cfg["wrk_seconds"], pid))
    for name, url, _ in servers:
        runs = out[name]["runs"]
        for key in WRK_FIGURES:
            values = [run[key] for run in runs if run.get(key) is not None]
            out[name][key] = round(statistics.median(values), 3) if values else None
        middle = median_runs(runs, "server_cpu_us_per_request")
        for key in WRK_CPU_FIGURES:
            out[name][key] = (round(statistics.mean(run[key] for run in middle), 3) if middle
                              else None)
        out[name]["command"] = runs[0]["command"]
        out[name]["rounds"] = len(runs)
        out[name]["seconds_each"] = cfg["wrk_seconds"]
        out[name]["requests"] = sum(run["requests"] or 0 for run in runs)
        out[name]["non_2xx"] = sum(run["non_2xx"] for run in runs)
        out[name]["socket_errors"] = [run["socket_errors"] for run in runs if run["socket_errors"]]
    return out


def measure_paths(tmp, daemon, device, args, cfg, stack, result):
    """The floor, the Node peer and mixerd take turns in chunks (floor, Node peer, mixerd, floor,
    ...) with the same clients connected throughout, so that all see the same machine load."""
    rate, seconds = cfg["rate"], cfg["seconds"]
    chunk, rounds = cfg["chunk_s"] * rate, seconds // cfg["chunk_s"]
    warm_up = cfg["warm_up_s"] * rate
    floor_out = result["floor"] = {}
    node_out = result["node"] = {"serial": {}, "memory_with_clients": {}}
    mixerd_out = result["mixerd"] = {"serial": {}, "rest": {}, "memory_with_clients": {}}
    body = sliders_body(daemon)
    floor_device = fake_device(tmp, "floor", stack)
    floor = FloorServer(args.floor_server, floor_device.path, body.decode())
    stack.callback(floor.close)
    node_device = fake_device(tmp, "node", stack)
    node = NodePeer(args.node_peer, node_device.path, body.decode())
    stack.callback(node.close)
    # The same bytes from all three, or the HTTP comparison is not one.
    for name, url in (("Node peer", node.url), ("floor server", floor.url)):
        if get_raw(url + "/api/sliders") != (200, body):
            raise RuntimeError(f"the {name}'s GET /api/sliders body differs from mixerd's")
    result["sliders_body"] = {"bytes": len(body), "same_from_all": True}
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
                print(f"bench: {n} client(s), {transport}: floor, Node peer and mixerd",
                      flush=True)
                with contextlib.closing(
                        lat.NodeClients(node.url, n, transport, None)) as node_clients, \
                     contextlib.closing(
                        lat.NodeClients(daemon.url(""), n, transport, "initial_state")) as clients:
                    node_series = lat.Series(node_clients, node.proc.pid)
                    node_send = serial_sender(node_device,
                                              lat.SliderPlan(peer_slider_values(node.url)))
                    node_series.warm_up(node_send, warm_up, rate)
                    series = lat.Series(clients, pid)
                    send = serial_sender(device, lat.SliderPlan(slider_values(daemon)))
                    series.warm_up(send, warm_up, rate)
                    for _ in range(rounds):
                        all_floor_sends += floor_series.chunk(
                            serial_sender(floor_device, floor_plan), chunk, rate)
                        node_series.chunk(node_send, chunk, rate)
                        series.chunk(send, chunk, rate)
                    beside = floor_series.chunk_p99_ms[-rounds:]
                    node_figures = node_series.summary()
                    node_figures["floor_chunk_p99_ms"] = beside
                    node_figures["p99_to_floor"] = lat.paired_ratios(node_series.chunk_p99_ms,
                                                                     beside)
                    node_out["serial"][f"{transport}_{n}"] = node_figures
                    node_out["memory_with_clients"][f"{transport}_{n}"] = footprint.memory(
                        node.proc.pid)
                    figures = series.summary()
                    figures["floor_chunk_p99_ms"] = beside
                    figures["p99_to_floor"] = lat.paired_ratios(series.chunk_p99_ms, beside)
                    figures["node_chunk_p99_ms"] = node_series.chunk_p99_ms
                    figures["p99_to_node"] = lat.paired_ratios(series.chunk_p99_ms,
                                                               node_series.chunk_p99_ms)
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

    servers = [("mixerd", daemon.url("/api/sliders"), pid),
               ("node", node.url + "/api/sliders", node.proc.pid),
               ("floor", floor.url + "/api/sliders", floor.proc.pid)]
    # The values moved apart in the serial phases: a body may now be a digit longer or shorter.
    body_bytes = {name: len(get_raw(url)[1]) for name, url, _ in servers}
    print("bench: wrk, in turn: mixerd, Node peer, floor", flush=True)
    http_out = wrk_in_turn(servers, cfg)
    for name, out in (("mixerd", mixerd_out), ("node", node_out), ("floor", floor_out)):
        out["http"] = http_out[name]
        out["http"]["body_bytes"] = body_bytes[name]
    time.sleep(0.5)  # closing 50 connections takes mixerd a few ms
    mixerd_out["memory_after_wrk"] = footprint.memory(pid)
    node_out["memory_after_wrk"] = footprint.memory(node.proc.pid)
    node.close()
    node_out["exit_code"] = node.proc.returncode

    reads = floor.pty_reads()
    expected = [f"SLIDER,{index - 1},{value}" for index, value, _ in all_floor_sends]
    if [line for _, line in reads] != expected:
        raise RuntimeError(f"floor_server read {len(reads)} lines, {len(expected)} sent, or "
                           "they differ: the pty lost or mangled lines")
    bare = [t - sent for (t, _), (_, _, sent) in zip(reads, bare_sends)]
    floor_out["pty"] = {"lines": len(bare), "rate_per_s": rate, "latency_ms": lat.stats(bare),
                        "send_lateness": lat.stats(late, scale=1e3, unit="us")}


def measure(args, cfg, stack):
    result = {"quick": args.quick, "config": cfg, "machine": machine.machine_info(args)}
    tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="mixerd-bench-"))

    # The minimal build first, alone and stopped once measured: its GET /api/sliders body (the
    # same API as the full build's) is the state the Node peer starts from in the start-up turns.
    print("bench: minimal build, idle", flush=True)
    minimal, minimal_device = start_linked(args.minimal, tmp, "minimal", cfg, stack)
    result["idle_minimal"] = idle_footprint(minimal.proc.pid, cfg)
    body = sliders_body(minimal).decode()
    code = minimal.stop()
    result["idle_minimal"]["exit_code"] = code
    if code != 0:
        result["idle_minimal"]["log_tail"] = minimal.log[-20:]
    minimal_device.close()

    startup_device = fake_device(tmp, "startup", stack)
    print("bench: start-up, in turn: mixerd, minimal build, Node peer", flush=True)
    startup = footprint.startup_times(
        [("mixerd", daemon_start(args.mixerd, os.path.join(tmp, "startup-data"),
                                 startup_device.path)),
         ("minimal", daemon_start(args.minimal, os.path.join(tmp, "startup-data-minimal"),
                                  startup_device.path)),
         ("node", node_start(args.node_peer, startup_device.path, body))],
        cfg["startup_runs"])
    result["startup"] = startup["mixerd"]
    result["startup_minimal"] = startup["minimal"]
    result["startup_node"] = startup["node"]
    startup_device.close()

    daemon, device = start_linked(args.mixerd, tmp, "mixerd", cfg, stack)
    result["idle"] = idle_footprint(daemon.proc.pid, cfg)

    measure_paths(tmp, daemon, device, args, cfg, stack, result)
    code = daemon.stop()
    result["mixerd"]["exit_code"] = code
    if code != 0:
        result["mixerd"]["log_tail"] = daemon.log[-20:]
    result["codec_ns_per_op"] = run_codec_bench(args.codec_bench)
    result["machine"]["loadavg_end"] = machine.loadavg()
    result["targets"] = report.targets(result)
    return result


def main():
    parser = argparse.ArgumentParser(description="mixerd benchmark driver")
    parser.add_argument("--quick", action="store_true", help="short phases, for a smoke check")
    parser.add_argument("--mixerd", default=os.path.join(ROOT, "build/release/tools/mixerd"))
    parser.add_argument("--minimal", default=os.path.join(ROOT, "build/minimal/tools/mixerd"),
                        help="the minimal build's mixerd (tools/build.sh minimal)")
    parser.add_argument("--floor-server",
                        default=os.path.join(ROOT, "build/release/tools/bench/floor_server"))
    parser.add_argument("--node-peer", default=os.path.join(HERE, "node_peer", "server.js"))
    parser.add_argument("--codec-bench",
                        default=os.path.join(ROOT, "build/release/tools/bench/codec_bench"))
    parser.add_argument("--out", default=os.path.join(ROOT, "build/bench/results.json"))
    args = parser.parse_args()
    args.mixerd = os.path.abspath(args.mixerd)
    args.minimal = os.path.abspath(args.minimal)
    for binary in (args.mixerd, args.minimal, args.floor_server):
        if not os.access(binary, os.X_OK):
            sys.exit(f"bench: {binary} is missing (tools/bench/run.sh builds it)")
    socket_io = os.path.join(os.path.dirname(os.path.abspath(args.node_peer)), "node_modules",
                             "socket.io")
    if not os.path.isdir(socket_io):
        sys.exit(f"bench: {socket_io} is missing (tools/bench/run.sh installs it with npm ci)")
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
