"""Socket.IO event latency: from a `SLIDER` line written on the device's pty to the slider_change
event arriving at socket.io-client websocket clients, with 1 and with 100 clients connected.

Run (Release build, node modules installed once):
    tools/build.sh release mixerd
    (cd tests/integration/node && npm ci)
    /usr/bin/python3 tools/bench/sio_latency.py [path/to/mixerd] [--lines 200] [--clients 1,100]

Each line is written only after every client has the previous event (closed loop), so the figures
are latencies, not throughput. "per client" covers every (line, client) pair; "last client" is
the time until all clients of a line have it. Both include the node client's own parsing, done in
one process for all clients: at 100 clients the last one waits for node to handle 99 others.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "tests", "integration"))


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def run(binary, clients, lines, warmup=20):
    os.environ["MIXERD_BIN"] = binary
    from conftest import Daemon, FakeDevice, get_json, wait_until  # noqa: E402 (needs MIXERD_BIN)

    with tempfile.TemporaryDirectory() as tmp:
        device = FakeDevice(tmp)
        daemon = Daemon(os.path.join(tmp, "data"), ["--serial", device.path])
        daemon.start()
        try:
            wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="device")
            node = subprocess.Popen(
                ["node", os.path.join(root, "tools", "bench", "sio_clients.js"), daemon.url(""),
                 str(clients)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            try:
                assert json.loads(node.stdout.readline()) == {"ready": clients}
                per_client, last_client = [], []
                value = 50  # the mixer starts there; each line must change the value
                for i in range(warmup + lines):
                    value = (value + 1) % 101
                    sent = time.monotonic_ns()
                    device.send(f"SLIDER,0,{value}")
                    got = json.loads(node.stdout.readline())
                    assert got["value"] == value, got
                    if i < warmup:
                        continue
                    times = [(int(t) - sent) / 1e6 for t in got["t"]]
                    per_client += times
                    last_client.append(max(times))
            finally:
                node.stdin.close()
                node.wait(timeout=10)
        finally:
            daemon.stop()
            device.close()
    return {
        "clients": clients,
        "lines": lines,
        "median": statistics.median(per_client),
        "p99": percentile(per_client, 99),
        "last_median": statistics.median(last_client),
        "last_p99": percentile(last_client, 99),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary", nargs="?", default=os.path.join(root, "build/release/tools/mixerd"))
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--clients", default="1,100")
    args = parser.parse_args()
    rows = [run(args.binary, int(n), args.lines) for n in args.clients.split(",")]
    print(f"SLIDER line on the pty -> slider_change at socket.io-client (websocket), "
          f"{args.lines} lines, ms")
    print("| clients | per client median | per client p99 | last client median | last client p99 |")
    print("|--------:|------------------:|---------------:|-------------------:|----------------:|")
    for r in rows:
        print(f"| {r['clients']:7} | {r['median']:17.2f} | {r['p99']:14.2f} | "
              f"{r['last_median']:18.2f} | {r['last_p99']:15.2f} |")


if __name__ == "__main__":
    main()
