"""Start-up time, idle memory, threads, idle CPU and REST latency of `mixerd --simulate`.

Run: /usr/bin/python3 tools/bench/footprint.py [path/to/mixerd]   (default: the Release build)
"""
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build/release/tools/mixerd")


def proc_status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


with tempfile.TemporaryDirectory() as data:
    started = time.monotonic()
    proc = subprocess.Popen([binary, "--simulate", "--data-dir", data, "--bind", "127.0.0.1",
                             "--controller-port", "0", "--toast-port", "0", "--plants-port", "0"],
                            stderr=subprocess.PIPE, text=True)
    port = None
    for line in proc.stderr:
        m = re.search(r"controller listening on \S+:(\d+)", line)
        if m:
            port = int(m.group(1))
        if line.rstrip().endswith("mixerd: ready"):
            break
    ready = time.monotonic() - started
    conn = http.client.HTTPConnection("127.0.0.1", port)

    def status():
        conn.request("GET", "/api/status")
        return json.loads(conn.getresponse().read())

    while not status()["connected"]:
        time.sleep(0.005)
    connected = time.monotonic() - started

    n = 2000
    t0 = time.monotonic()
    for _ in range(n):
        conn.request("GET", "/api/sliders")
        conn.getresponse().read()
    per_request_us = (time.monotonic() - t0) / n * 1e6

    time.sleep(1)
    cpu0 = cpu_seconds(proc.pid)
    time.sleep(10)
    idle_cpu = (cpu_seconds(proc.pid) - cpu0) / 10 * 100
    st = proc_status(proc.pid)
    proc.terminate()
    proc.wait(timeout=10)

print(f"ready after            {ready * 1000:7.0f} ms")
print(f"device connected after {connected * 1000:7.0f} ms")
print(f"GET /api/sliders       {per_request_us:7.0f} us per request (keep-alive, {n} requests)")
print(f"idle RSS               {st['VmRSS']:>10}  (peak {st['VmHWM']})")
print(f"threads                {st['Threads']:>10}")
print(f"idle CPU               {idle_cpu:7.2f} % of one core over 10 s")
