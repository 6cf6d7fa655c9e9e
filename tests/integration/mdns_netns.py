"""Runs inside `unshare -n -m --propagation private` (as root), started by test_mdns.py: a private
network namespace with only `lo`, a private system D-Bus and an Avahi daemon that publishes on
`lo` alone, so nothing is multicast on the machine's network.

usage: mdns_netns.py <work dir>
Reads commands from stdin, one JSON object a line, and answers each with one JSON line on
stdout: {"ok": true, ...} or {"ok": false, "error": "..."}.
  {"do": "avahi_start"} / {"do": "avahi_stop"}
  {"do": "mixerd_start", "bin": path, "data_dir": path}  -> {"port": controller port}
  {"do": "mixerd_signal", "signal": "SIGHUP"}            (the last mixerd started)
  {"do": "wait_log", "text": "...", "timeout": s}        -> {"line": the last mixerd's log line}
  {"do": "browse", "type": "_http._tcp"}                 -> {"rows": [resolved rows]}
  {"do": "publish_marker"}  an unrelated service, proving Avahi answers browses
  {"do": "quit"}
"""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

DBUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_type="method_return"/>
    <allow send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="signal"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
  </policy>
</busconfig>
"""

AVAHI_CONFIG = """[server]
allow-interfaces=lo
use-ipv4=yes
use-ipv6=no
enable-dbus=yes
ratelimit-interval-usec=0
[wide-area]
enable-wide-area=no
[publish]
publish-workstation=no
publish-hinfo=no
publish-addresses=yes
[reflector]
[rlimits]
"""

LISTEN_RE = re.compile(r"controller listening on \S+:(\d+)")


class Namespace:
    def __init__(self, work):
        self.work = work
        self.env = dict(os.environ)
        self.dbus = None
        self.avahi = None
        self.mixerds = []  # every mixerd started, the current one last
        self.marker = None
        self.logs = []  # their logs, same order
        self.log_cond = threading.Condition()

    def setup(self):
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
        # A tmpfs over /run in this mount namespace only: Avahi's pid file and socket go there.
        subprocess.run(["mount", "-t", "tmpfs", "tmpfs", "/run"], check=True)
        os.makedirs("/run/avahi-daemon")
        socket = os.path.join(self.work, "system_bus_socket")
        conf = os.path.join(self.work, "dbus.conf")
        with open(conf, "w") as f:
            f.write(DBUS_CONFIG.format(socket=socket))
        self.env["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=" + socket
        self.dbus = subprocess.Popen(["dbus-daemon", "--config-file=" + conf, "--nofork",
                                      "--print-address"], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.dbus.stdout.readline()  # the address: it listens
        with open(os.path.join(self.work, "avahi.conf"), "w") as f:
            f.write(AVAHI_CONFIG)

    def avahi_start(self):
        self.avahi = subprocess.Popen(
            ["avahi-daemon", "-f", os.path.join(self.work, "avahi.conf"), "--no-drop-root",
             "--no-chroot", "--no-rlimits", "--no-proc-title"],
            env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            r = subprocess.run(["avahi-daemon", "--check"], env=self.env)
            if r.returncode == 0:
                return {}
            time.sleep(0.05)
        raise RuntimeError("avahi-daemon did not start")

    def avahi_stop(self):
        self.avahi.terminate()
        self.avahi.wait(timeout=10)
        self.avahi = None
        return {}

    def mixerd_start(self, bin, data_dir):
        args = [bin, "--data-dir", data_dir, "--serial", "none", "--bind", "127.0.0.1",
                "--controller-port", "0", "--toast-port", "0", "--plants-port", "0"]
        env = {**self.env, "PULSE_SERVER": "unix:/nonexistent/pulse",
               "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"}
        proc = subprocess.Popen(args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace")
        log = []
        self.mixerds.append(proc)
        self.logs.append(log)
        threading.Thread(target=self._pump, args=(proc, log), daemon=True).start()
        line = self.wait_log("controller listening", 15)["line"]
        self.wait_log("ready", 15)
        return {"port": int(LISTEN_RE.search(line).group(1))}

    def _pump(self, proc, log):
        for line in proc.stdout:
            with self.log_cond:
                log.append(line.rstrip("\n"))
                self.log_cond.notify_all()

    def wait_log(self, text, timeout=10):
        deadline = time.monotonic() + timeout
        with self.log_cond:
            while True:
                for line in self.logs[-1]:
                    if text in line:
                        return {"line": line}
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(f"log never said {text!r}: " + " | ".join(self.logs[-1]))
                self.log_cond.wait(left)

    def mixerd_signal(self, signal_name):
        self.mixerds[-1].send_signal(getattr(signal, signal_name))
        return {}

    def browse(self, type):
        r = subprocess.run(["avahi-browse", "-rpt", type], env=self.env, capture_output=True,
                           text=True, timeout=20)
        return {"rows": [line for line in r.stdout.splitlines() if line.startswith("=")],
                "output": r.stdout}

    def publish_marker(self):
        self.marker = subprocess.Popen(["avahi-publish", "-s", "marker", "_marker._tcp", "9"],
                                       env=self.env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        return {}

    def close(self):
        for p in (*self.mixerds, self.marker, self.avahi, self.dbus):
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        return {"logs": self.logs}


def main():
    ns = Namespace(sys.argv[1])
    try:
        ns.setup()
        print(json.dumps({"ok": True, "ready": True}), flush=True)
        for raw in sys.stdin:
            cmd = json.loads(raw)
            what = cmd.pop("do")
            if what == "quit":
                break
            if what == "mixerd_signal":
                cmd = {"signal_name": cmd["signal"]}
            try:
                out = {"ok": True, **getattr(ns, what)(**cmd)}
            except Exception as e:  # reported to the test, which fails with it
                out = {"ok": False, "error": f"{type(e).__name__}: {e}"}
            print(json.dumps(out), flush=True)
    finally:
        print(json.dumps({"ok": True, **ns.close()}), flush=True)


if __name__ == "__main__":
    main()
