"""mDNS: the controller advertised through a real Avahi daemon, in a private network namespace
(mdns_netns.py: only `lo`, a private system bus), browsed with avahi-browse."""
import json
import os
import shutil
import socket
import subprocess
import time

import pytest

from conftest import MIXERD_BIN, make_cert_pair, wait_until, write_settings

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mdns_netns.py")
TYPES = ("_http._tcp", "_mixerd._tcp")

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not all(shutil.which(t) for t in ("unshare", "avahi-daemon",
                                                           "avahi-browse", "dbus-daemon")),
    reason="needs root (a network namespace) and avahi-daemon, avahi-utils, dbus-daemon")


class Netns:
    """The driver inside `unshare`; each call sends one command and returns its answer."""

    def __init__(self, work):
        self.proc = subprocess.Popen(
            ["unshare", "-n", "-m", "--propagation", "private", "/usr/bin/python3", DRIVER, work],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.logs = []
        assert self._answer()["ready"]

    def _answer(self):
        line = self.proc.stdout.readline()
        assert line, "the namespace driver ended"
        return json.loads(line)

    def __call__(self, what, **args):
        self.proc.stdin.write(json.dumps({"do": what, **args}) + "\n")
        out = self._answer()
        assert out["ok"], out["error"]
        return out

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.write(json.dumps({"do": "quit"}) + "\n")
            self.proc.stdin.flush()
            self.logs = self._answer().get("logs", [])
            self.proc.wait(timeout=20)


@pytest.fixture
def netns(tmp_path):
    ns = Netns(str(tmp_path))
    yield ns
    ns.close()


def services(ns, type_):
    """{instance name: (port, set of TXT strings)} of the resolved services of a type."""
    found = {}
    for row in ns("browse", type=type_)["rows"]:
        fields = row.split(";")
        name = fields[3].replace("\\032", " ")
        txt = {t.strip('"') for t in fields[9].split('" "')} if len(fields) > 9 else set()
        found[name] = (int(fields[8]), txt)
    return found


def mixerd_services(ns):
    """Both types' mixerd entries, once both are there; None before."""
    both = {}
    for t in TYPES:
        entries = {n: v for n, v in services(ns, t).items() if n.startswith("mixerd on ")}
        if not entries:
            return None
        both[t] = entries
    return both


def expect_advertised(ns, port):
    found = wait_until(lambda: mixerd_services(ns), timeout=10, interval=0.1,
                       what="both services resolved")
    version = subprocess.run([MIXERD_BIN, "--version"], capture_output=True,
                             text=True).stdout.split()[-1]
    name = "mixerd on " + socket.gethostname()
    for t in TYPES:
        assert found[t] == {name: (port, {"path=/", "version=" + version})}, (t, found)
    return found


def test_both_types_resolve_with_the_port_and_txt_and_come_back_after_avahi_restarts(
        netns, data_dir):
    os.makedirs(data_dir, exist_ok=True)
    netns("avahi_start")
    port = netns("mixerd_start", bin=MIXERD_BIN, data_dir=data_dir)["port"]
    expect_advertised(netns, port)
    netns("avahi_stop")
    netns("wait_log", text="waiting for the daemon")
    netns("avahi_start")
    expect_advertised(netns, port)


def test_mixerd_started_before_avahi_registers_once_it_appears(netns, data_dir):
    os.makedirs(data_dir, exist_ok=True)
    port = netns("mixerd_start", bin=MIXERD_BIN, data_dir=data_dir)["port"]
    netns("wait_log", text="no Avahi daemon yet")
    netns("avahi_start")
    expect_advertised(netns, port)


def test_with_tls_the_web_type_is_https(netns, data_dir):
    make_cert_pair(os.path.join(data_dir, "certs"))
    netns("avahi_start")
    port = netns("mixerd_start", bin=MIXERD_BIN, data_dir=data_dir)["port"]
    netns("wait_log", text="advertised as")
    name = "mixerd on " + socket.gethostname()
    https = wait_until(lambda: services(netns, "_https._tcp"), timeout=10, interval=0.1,
                       what="the https service")
    assert https[name][0] == port and "path=/" in https[name][1]
    assert services(netns, "_mixerd._tcp")[name][0] == port
    assert name not in services(netns, "_http._tcp")


def test_mdns_false_advertises_nothing_and_sighup_switches(netns, data_dir):
    write_settings(data_dir, {"mdns": False})
    netns("avahi_start")
    netns("publish_marker")
    port = netns("mixerd_start", bin=MIXERD_BIN, data_dir=data_dir)["port"]
    # Avahi answers (the marker resolves), and mixerd is not among its services.
    wait_until(lambda: services(netns, "_marker._tcp"), timeout=10, interval=0.1, what="the marker service")
    assert mixerd_services(netns) is None
    assert not any(n.startswith("mixerd on ") for n in services(netns, "_http._tcp"))
    # On with SIGHUP, then off again: withdrawn.
    write_settings(data_dir, {"mdns": True})
    netns("mixerd_signal", signal="SIGHUP")
    expect_advertised(netns, port)
    write_settings(data_dir, {"mdns": False})
    netns("mixerd_signal", signal="SIGHUP")
    netns("wait_log", text="mdns off")
    wait_until(lambda: not any(n.startswith("mixerd on ") for n in services(netns, "_http._tcp")),
               timeout=10, interval=0.1, what="the services withdrawn")


def test_without_a_system_bus_one_info_line_and_no_delay(daemon_factory):
    started = time.monotonic()
    d = daemon_factory("--serial", "none",
                       env={"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/mixerd-tests/system"})
    assert time.monotonic() - started < 5
    d.wait_log(" mdns: ", timeout=5)  # the actor logs on its own thread, maybe after "ready"
    lines = [line for line in d.log if " mdns: " in line]
    assert len(lines) == 1 and "no Avahi daemon" in lines[0], lines
    assert lines[0].split()[2].lower() == "info", lines
