"""What a process costs the machine, read from /proc, and how fast a server starts (for run.py)."""
import os
import socket
import statistics
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _kib_fields(path, wanted):
    out = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in wanted:
                out[key] = int(value.split()[0]) if value.split()[0].isdigit() else value.strip()
    return out


def _thread_names(pid):
    names = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/comm") as f:
                names.append(f.read().strip())
        except OSError:  # the thread ended meanwhile
            pass
    return names


def memory(pid):
    """RSS counts every resident page, shared-library pages included; PSS divides each shared
    page by the number of processes mapping it, so it is the fairer "what this daemon costs"."""
    st = _kib_fields(f"/proc/{pid}/status", {"VmRSS", "VmHWM", "Threads", "RssAnon", "RssFile"})
    roll = _kib_fields(f"/proc/{pid}/smaps_rollup",
                       {"Pss", "Pss_Anon", "Pss_File", "Pss_Shmem", "Anonymous"})
    return {
        "rss_kib": st.get("VmRSS"),
        "rss_peak_kib": st.get("VmHWM"),
        "rss_anon_kib": st.get("RssAnon"),
        "rss_file_kib": st.get("RssFile"),
        "pss_kib": roll.get("Pss"),
        "pss_anon_kib": roll.get("Pss_Anon"),
        "pss_file_kib": roll.get("Pss_File"),
        "threads": st.get("Threads"),
        "thread_names": sorted(_thread_names(pid)),
        "open_fds": len(os.listdir(f"/proc/{pid}/fd")),
    }


def rss_by_mapping(pid, top=10):
    """The largest resident mappings from /proc/PID/smaps: {file or [heap]/[anon]: KiB}."""
    sizes = {}
    name = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            first = line.split(None, 1)[0]
            if "-" in first and not first.endswith(":"):  # a mapping's header line
                parts = line.split()
                name = os.path.basename(parts[5]) if len(parts) > 5 else "[anon]"
            elif first == "Rss:":
                sizes[name] = sizes.get(name, 0) + int(line.split()[1])
    biggest = sorted(sizes.items(), key=lambda kv: -kv[1])[:top]
    return dict(biggest)


def cpu_times(pid):
    """(user, system) CPU seconds of every thread of the process, from /proc/PID/stat. On
    loopback, the kernel work of delivering a TCP segment to the receiver is mostly done in the
    sender's write(), so a server's system time includes its clients' receive path."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS


def cpu_seconds(pid):
    """utime + stime."""
    return sum(cpu_times(pid))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def first_answer(port, alive, path="/api/status", timeout=10.0):
    """Polls until GET `path` answers 200; returns monotonic ns at the end of that answer's
    header. A refused connect costs microseconds on loopback, so the poll is a tight loop with a
    0.2 ms pause."""
    deadline = time.monotonic() + timeout
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
    while time.monotonic() < deadline:
        try:
            conn = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        except ConnectionRefusedError:
            if not alive():
                raise RuntimeError(f"the server for port {port} exited before answering")
            time.sleep(0.0002)
            continue
        with conn:
            conn.sendall(request)
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                head += chunk
            if head.startswith(b"HTTP/1.1 200"):
                return time.monotonic_ns()
        time.sleep(0.0002)
    raise TimeoutError(f"no 200 from 127.0.0.1:{port}{path} within {timeout} s")


def startup_times(servers, runs, path="/api/sliders"):
    """Exec to the first 200 answer of GET `path` (the path every server of run.py serves, and
    mixerd answers it from its first moment, before any device line). servers: [(name, start)];
    start(port) starts one server on 127.0.0.1:port without waiting for it and returns (its
    Popen, a function that stops it). runs + 1 rounds in which the servers take turns, so that
    all see the same machine load; the first round (a mixerd creates settings.json and
    plants.json in its data folder, files may still be read from disk) is reported on its own.
    Returns {name: figures}."""
    times_ms = {name: [] for name, _ in servers}
    for _ in range(runs + 1):
        for name, start in servers:
            port = free_port()
            started = time.monotonic_ns()
            proc, stop = start(port)
            try:
                answered = first_answer(port, lambda: proc.poll() is None, path)
            finally:
                stop()
            times_ms[name].append((answered - started) / 1e6)
    out = {}
    for name, times in times_ms.items():
        steady = times[1:]
        out[name] = {
            "runs": runs,
            "path": path,
            "first_start_ms": round(times[0], 2),
            "median_ms": round(statistics.median(steady), 2),
            "min_ms": round(min(steady), 2),
            "max_ms": round(max(steady), 2),
            "all_ms": [round(t, 2) for t in steady],
        }
    return out
