"""What the fault tests share: the integration harness (tests/integration/conftest.py: Daemon,
FakeDevice, http, fixtures), loaded from its file under the name `integration_harness` so that
tests/integration and tests/faults can even be collected in one pytest run; the scale knob; /proc
readings of the daemon (RSS, fds, threads, TCP sockets); latency histograms; the printed figures.

Environment: MIXERD_BIN the binary under test; MIXERD_FAULT_SCALE short (default, CI) or full;
MIXERD_FAULT_SEED repeats the random choices of a run.
"""
import atexit
import importlib.util
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
INTEGRATION_DIR = os.path.normpath(os.path.join(HERE, "..", "integration"))
if INTEGRATION_DIR not in sys.path:
    sys.path.insert(0, INTEGRATION_DIR)  # socketio_support


def _load_harness():
    if "integration_harness" in sys.modules:
        return sys.modules["integration_harness"]
    spec = importlib.util.spec_from_file_location("integration_harness",
                                                  os.path.join(INTEGRATION_DIR, "conftest.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["integration_harness"] = module
    spec.loader.exec_module(module)
    return module


def _pin_binary(harness):
    """Runs a private link (or copy) of MIXERD_BIN, so that a rebuild during a long run (the
    linker replaces the file) does not pull the binary away between two starts."""
    source = os.path.abspath(harness.MIXERD_BIN)
    if not os.path.isfile(source) or getattr(harness, "PINNED_FROM", None):
        return
    folder = tempfile.mkdtemp(prefix="mixerd-faults-")
    atexit.register(shutil.rmtree, folder, True)
    pinned = os.path.join(folder, "mixerd")
    try:
        os.link(source, pinned)
    except OSError:
        shutil.copy2(source, pinned)
    harness.MIXERD_BIN = pinned
    harness.PINNED_FROM = source


integration_harness = _load_harness()
_pin_binary(integration_harness)

SCALE_NAME = os.environ.get("MIXERD_FAULT_SCALE", "short")
if SCALE_NAME not in ("short", "full"):
    raise RuntimeError(f"MIXERD_FAULT_SCALE must be short or full, not {SCALE_NAME!r}")
FULL = SCALE_NAME == "full"


def scaled(full, short):
    """The figure of the current scale."""
    return full if FULL else short


def _sanitized(binary):
    """Whether the binary is an ASan build (gcc links libasan dynamically)."""
    try:
        out = subprocess.run(["ldd", binary], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "libasan" in out


SANITIZED = _sanitized(integration_harness.MIXERD_BIN)
# ASan keeps freed memory in a quarantine (256 MiB by default) before reusing it, so RSS grows
# with every allocation until the quarantine is full: a bound on growth would measure ASan, not
# mixerd. Under ASan the RSS figures are printed and only a loose bound is checked; leaks are
# caught by LeakSanitizer when the daemon exits (see stop_cleanly).
RSS_GROWTH_LIMIT_ASAN = 512 * 1024 * 1024


def figures(title, **values):
    """Prints one line of measured figures, for the lead to quote (pytest -s shows it)."""
    parts = ", ".join(f"{k}={v}" for k, v in values.items())
    print(f"\n[figures] {title}: {parts}", flush=True)


# ---- /proc ----------------------------------------------------------------------------------------

def status_field(pid, name):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(name + ":"):
                return int(line.split()[1])
    raise AssertionError(f"/proc/{pid}/status has no {name}")


def rss_kib(pid):
    return status_field(pid, "VmRSS")


def thread_count(pid):
    return status_field(pid, "Threads")


def fd_targets(pid):
    """What each open fd of `pid` points at (sockets, the pty, files)."""
    out = {}
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            out[int(fd)] = os.readlink(f"/proc/{pid}/fd/{fd}")
        except FileNotFoundError:
            pass
    return out


def tcp_socket(local_port, remote_port):
    """(state, tx_queue bytes) of the IPv4/IPv6 TCP socket local_port -> remote_port, or None.
    State is the kernel's hex code: 01 established, 04 FIN_WAIT1 (closed by its owner with data
    still queued), ..."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                local, remote = (int(a.rsplit(":", 1)[1], 16) for a in fields[1:3])
                if (local, remote) == (local_port, remote_port):
                    return fields[3], int(fields[4].split(":")[0], 16)
    return None


def socket_info(local_port, remote_port):
    """From `ss -tmi`, for a TCP socket local_port -> remote_port: written (every byte the owner
    wrote into it: bytes_acked + send queue), wmem (bytes queued, skmem w) and sndbuf (skmem tb);
    None once it is gone or no longer established."""
    out = subprocess.run(["ss", "-tmiHn", "state", "all",
                          f"( sport = :{local_port} and dport = :{remote_port} )"],
                         capture_output=True, text=True, timeout=10).stdout.split()
    if not out or out[0] != "ESTAB":
        return None
    text = " ".join(out)
    acked = re.search(r"bytes_acked:(\d+)", text)
    memory = re.search(r"tb(\d+),.*?w(\d+)", text)
    return {"written": int(out[2]) + (int(acked.group(1)) if acked else 0),
            "wmem": int(memory.group(2)), "sndbuf": int(memory.group(1))}


class RssSampler:
    """Samples the daemon's VmRSS every `interval` seconds in a thread: (monotonic time, KiB)."""

    def __init__(self, pid, interval=0.5):
        self.pid = pid
        self.interval = interval
        self.samples = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=5)
        # One sample at the end: a phase shorter than the interval still has one after any point
        # inside it (a run with none after its warm-up point had nothing to compare).
        try:
            self.samples.append((time.monotonic(), rss_kib(self.pid)))
        except (FileNotFoundError, ProcessLookupError, AssertionError):
            pass

    def _run(self):
        while not self._stop.is_set():
            try:
                self.samples.append((time.monotonic(), rss_kib(self.pid)))
            except (FileNotFoundError, ProcessLookupError, AssertionError):
                return
            self._stop.wait(self.interval)

    def after(self, t0):
        return [kib for t, kib in self.samples if t >= t0]


def check_rss_flat(what, warm_kib, later_kib, limit_kib):
    """Asserts that no sample after warm-up exceeds the warm-up RSS by more than limit_kib
    (looser under ASan, see RSS_GROWTH_LIMIT_ASAN). Returns the growth in KiB."""
    assert later_kib, f"{what}: no RSS samples after warm-up"
    growth = max(later_kib) - warm_kib
    limit = RSS_GROWTH_LIMIT_ASAN // 1024 if SANITIZED else limit_kib
    assert growth <= limit, (f"{what}: RSS grew by {growth} KiB after warm-up "
                             f"({warm_kib} -> max {max(later_kib)} KiB), limit {limit} KiB")
    return growth


def stop_cleanly(daemon):
    """SIGTERM; the daemon must exit 0 with no sanitizer report (an ASan build aborts on a leak
    or an error when ASAN_OPTIONS has abort_on_error=1, and prints its report either way)."""
    code = daemon.stop()
    time.sleep(0.5)  # the harness's log pump reads the last lines
    report = [line for line in daemon.log if "Sanitizer" in line or "runtime error:" in line]
    assert code == 0 and not report, f"mixerd exit {code}:\n" + "\n".join(daemon.log[-60:])


# ---- latency histograms (tests/faults/node/load_clients.js) -------------------------------------

def merge_histograms(parts):
    """{bucket: count} merged over processes; each part is load_clients.js's window histogram."""
    merged = {"count": 0, "max": 0.0, "buckets": {}}
    for h in parts:
        merged["count"] += h["count"]
        merged["max"] = max(merged["max"], h["max"])
        for b, n in h["buckets"].items():
            merged["buckets"][int(b)] = merged["buckets"].get(int(b), 0) + n
    return merged


def percentile_ms(hist, q):
    """The q-quantile (0..1) of a merged histogram, in ms, as the upper edge of its 2 % bucket."""
    if hist["count"] == 0:
        return math.nan
    rank = math.ceil(q * hist["count"])
    seen = 0
    for b in sorted(hist["buckets"]):
        seen += hist["buckets"][b]
        if seen >= rank:
            return round(1.02 ** (b + 1) / 1000, 2)
    return round(hist["max"] * 1000, 2)
