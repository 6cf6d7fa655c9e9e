"""The machine a benchmark ran on and the versions it measured, for the results' header."""
import json
import os
import platform
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def version_of(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return None


def machine_info(args):
    with open("/proc/cpuinfo") as f:
        model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), None)
    return {"cpus": os.cpu_count(), "cpu_model": model, "kernel": platform.release(),
            "mixerd": args.mixerd, "mixerd_version": version_of([args.mixerd, "--version"]),
            "mixerd_minimal": args.minimal,
            "mixerd_minimal_version": version_of([args.minimal, "--version"]),
            "node": version_of(["node", "--version"]), "wrk": version_of(["wrk", "-v"]),
            "socket_io": socket_io_version(),
            "loadavg_start": loadavg()}


def socket_io_version():
    try:
        path = os.path.join(HERE, "node_peer", "node_modules", "socket.io", "package.json")
        with open(path) as f:
            return json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        return None


def audio_machine_info(mixerd):
    """The audio benchmark's header: the machine, mixerd and the two audio servers."""
    with open("/proc/cpuinfo") as f:
        model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), None)
    return {"cpus": os.cpu_count(), "cpu_model": model, "kernel": platform.release(),
            "mixerd": mixerd, "mixerd_version": version_of([mixerd, "--version"]),
            "pulseaudio": version_of(["pulseaudio", "--version"]),
            "pipewire": linked_version("pipewire"), "wireplumber": linked_version("wireplumber"),
            "loadavg_start": loadavg()}


def linked_version(program):
    """`pipewire 0.3.65` from `program --version`'s "Linked with libpipewire 0.3.65"."""
    try:
        out = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"Linked with lib\S+ (\S+)", out.stdout)
    return f"{program} {m.group(1)}" if m else None
