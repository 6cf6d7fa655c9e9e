"""Live events to many clients at once (docs/architecture.md, "Two data paths"), and the bounded queues
that drop a client which stops reading without slowing the others."""
import os
import socket
import time

import websocket

from conftest import http, wait_until
from socketio_support import PollingSession, event_packet
from socketio_support import clients  # noqa: F401 (a fixture)


def socket_inode(local_port, remote_port):
    """The inode of the TCP socket local_port -> remote_port on this machine."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                local, remote = (int(a.rsplit(":", 1)[1], 16) for a in fields[1:3])
                if (local, remote) == (local_port, remote_port):
                    return fields[9]
    raise AssertionError(f"no socket {local_port} -> {remote_port}")


def holds_socket(pid, inode):
    """Whether process `pid` still has the socket open. A closed socket's unsent bytes stay with
    the kernel, so the client could not tell without reading them first."""
    target = f"socket:[{inode}]"
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                return True
        except FileNotFoundError:
            pass
    return False


def test_every_client_gets_the_same_event(connected, clients):
    daemon, device = connected
    url = daemon.url("")
    everyone = [clients("python", url, "polling"), clients("python", url, "websocket"),
                clients("python", url, "default"), clients("node", url, "polling"),
                clients("node", url, "websocket"), clients("node", url, "default")]
    for c in everyone:
        c.event("initial_state")
    raw_session = PollingSession(daemon)
    raw_session.post("40")
    raw_session.until(lambda p: event_packet(p)[0] == "initial_state")

    device.send("SLIDER,3,77")
    for c in everyone:
        assert c.event("slider_change") == {"index": 4, "value": 77, "position": 77, "pickup": False}
    packet, _ = raw_session.until(lambda p: event_packet(p)[0] == "slider_change")
    assert packet == '42["slider_change",{"index":4,"pickup":false,"position":77,"value":77}]'


def test_a_polling_client_that_never_polls_is_dropped(connected, clients):
    daemon, device = connected
    # python-engineio hands each message to a new thread, so only node shows the order. Both
    # on websocket: a burst of 1200 events in a few ms is more than a poll cycle may queue.
    in_order = clients("node", daemon.url(""), "websocket")
    counted = clients("python", daemon.url(""), "websocket")
    for c in (in_order, counted):
        c.event("initial_state")
    stuck = PollingSession(daemon)
    stuck.post("40")
    # From here on `stuck` never polls: its queue (1000 packets) fills and it is closed. The
    # device sends in bursts of 100 lines, each awaited: a burst of a thousand frames within
    # one write cycle would fill the websocket clients' queues too.
    def received():
        return [m["args"][0]["value"] for m in in_order.messages.seen
                if m["type"] == "event" and m["name"] == "slider_change"]

    values = [10 + i % 2 for i in range(1200)] + [99]
    started = time.monotonic()
    for burst in range(0, len(values), 100):
        for v in values[burst:burst + 100]:
            device.send(f"SLIDER,0,{v}")
        wait_until(lambda: len(received()) >= min(burst + 100, len(values)), timeout=10,
                   what=f"burst {burst // 100} at the node client")
    assert time.monotonic() - started < 15
    got = received()
    assert got == values  # every event, in order
    wait_until(lambda: sum(e[0] == "slider_change" for e in counted.events.seen) == len(values),
               timeout=10, what="every event at the python client")
    daemon.wait_log("stopped polling")
    status, text, _ = stuck.get()
    assert (status, text) == (400, '{"code":1,"message":"Session ID unknown"}')


def test_a_websocket_client_that_never_reads_is_dropped(connected, clients):
    daemon, device = connected
    url = daemon.url("")
    healthy = [clients("node", url, "websocket"), clients("python", url, "polling")]
    for c in healthy:
        c.event("initial_state")
    # A small receive buffer, so the server's frames pile up in its queue rather than in ours.
    stuck = websocket.create_connection(
        daemon.url("/socket.io/?EIO=4&transport=websocket").replace("http://", "ws://"), timeout=10,
        sockopt=((socket.SOL_SOCKET, socket.SO_RCVBUF, 4096),))
    try:
        assert stuck.recv().startswith("0{")
        stuck.send("40")
        server_side = socket_inode(daemon.ports["controller"], stuck.sock.getsockname()[1])
        assert holds_socket(daemon.proc.pid, server_side)
        # Never read again, but ask for ~1 KB answers, far more than the kernel buffers hold, so
        # the server's frame queue (1000) must overflow. A few at a time: more than 16 answers
        # on their way at once closes the session for another reason (tested below).
        try:
            for _ in range(2500):
                for _ in range(8):
                    stuck.send('42["get_state"]')
                time.sleep(0.002)
        except (BrokenPipeError, ConnectionResetError, websocket.WebSocketException):
            pass
        started = time.monotonic()
        status, _, _ = http("POST", daemon.url("/api/sliders/1"), {"value": 3})
        assert status == 200
        for c in healthy:
            assert c.event("slider_change") == {"index": 1, "value": 3, "position": None, "pickup": True}
        assert time.monotonic() - started < 2  # the stuck client delays nobody
        wait_until(lambda: not holds_socket(daemon.proc.pid, server_side), timeout=20,
                   what="the server to drop the client that does not read")
        # Which bound closes it depends on how fast mixerd answers (a sanitized build is slower
        # and lets more than 16 answers be on their way); tests/faults checks the frame queue
        # alone, with the requests paced to what mixerd answers.
        wait_until(lambda: any("a websocket client stopped reading (1000 frames, " in line
                               or "state requests unanswered: closing it" in line
                               for line in daemon.log), what="the log to say why it was dropped")
        # What was queued before the drop still arrives; then the connection ends.
        stuck.sock.settimeout(15)
        while True:
            try:
                if not stuck.sock.recv(1 << 16):
                    break
            except ConnectionResetError:
                break
    finally:
        stuck.shutdown()


def test_a_client_that_floods_state_requests_is_dropped(connected, clients):
    daemon, device = connected
    healthy = clients("node", daemon.url(""), "websocket")
    healthy.event("initial_state")
    flood = PollingSession(daemon)
    assert flood.post("40")[:2] == (200, "ok")
    flood.until(lambda p: event_packet(p)[0] == "initial_state")
    # One POST holding nothing but state requests: mixerd handles the whole payload in one turn,
    # so all of them are asked before the first answer can come back, however fast it is.
    assert flood.post(*['42["get_state"]'] * 200)[:2] == (200, "ok")
    daemon.wait_log("state requests unanswered: closing it")
    status, _, _ = http("POST", daemon.url("/api/sliders/2"), {"value": 9})
    assert status == 200
    assert healthy.event("slider_change") == {"index": 2, "value": 9, "position": None, "pickup": True}
    status, _, _ = flood.get()
    assert status == 400  # the session is gone