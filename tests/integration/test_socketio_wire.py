"""Engine.IO / Socket.IO on the wire, checked byte by byte against the captures of the reference
server: handshake, errors, polling payloads, the upgrade
probe, pings."""
import base64
import json
import os
import re
import threading
import time

import pytest
import websocket

from conftest import get_json, http
from socketio_support import RS, PollingSession, event_packet, raw


def ws_url(daemon, query):
    return daemon.url(f"/socket.io/?{query}").replace("http://", "ws://")


def joined(daemon):
    """A polling session connected to the default namespace, its initial_state read."""
    s = PollingSession(daemon)
    assert s.post("40")[:2] == (200, "ok")
    s.until(lambda p: event_packet(p)[0] == "initial_state")
    return s


@pytest.fixture
def daemon(daemon_factory):
    return daemon_factory("--serial", "none")


def test_open_packet_matches_the_reference(daemon):
    s = PollingSession(daemon)
    assert s.open_headers["Content-Type"] == "text/plain; charset=UTF-8"
    assert s.open_headers["Access-Control-Allow-Origin"] == "*"
    assert list(s.open) == ["sid", "upgrades", "pingInterval", "pingTimeout", "maxPayload"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{20}", s.sid)
    assert s.open["upgrades"] == ["websocket"]
    assert (s.open["pingInterval"], s.open["pingTimeout"]) == (25000, 20000)
    assert s.open["maxPayload"] == 65536  # the HTTP body limit: what a POST may really carry
    assert PollingSession(daemon).sid != s.sid


def test_page_origin_gets_credentialed_cors(daemon):
    origin = daemon.url("").rstrip("/")
    s = PollingSession(daemon, headers={"Origin": origin})
    assert s.open_headers["Access-Control-Allow-Origin"] == origin
    assert s.open_headers["Access-Control-Allow-Credentials"] == "true"


@pytest.mark.parametrize("query,method,body", [
    ("EIO=4&transport=polling&sid=AAAAAAAAAAAAAAAAAAAA", "GET",
     {"code": 1, "message": "Session ID unknown"}),
    ("EIO=4&transport=polling&sid=nope", "POST", {"code": 1, "message": "Session ID unknown"}),
    ("EIO=3&transport=polling", "GET", {"code": 5, "message": "Unsupported protocol version"}),
    ("transport=polling", "GET", {"code": 5, "message": "Unsupported protocol version"}),
    ("EIO=4&transport=carrier-pigeon", "GET", {"code": 0, "message": "Transport unknown"}),
    ("EIO=4&transport=polling", "POST", {"code": 2, "message": "Bad handshake method"}),
    ("EIO=4&transport=websocket", "GET", {"code": 3, "message": "Bad request"}),
])
def test_errors_are_400_with_the_reference_bodies(daemon, query, method, body):
    status, text, headers = raw(method, daemon.url(f"/socket.io/?{query}"),
                                body="40" if method == "POST" else None)
    assert status == 400
    assert headers["Content-Type"] == "application/json"
    assert json.loads(text) == body


def test_several_packets_in_one_poll_and_one_post(daemon):
    s = joined(daemon)
    # Acks of unknown events are queued while the POST is handled, before the next GET.
    status, text, headers = s.post('425["nope"]', '426["nope",1]')
    assert (status, text) == (200, "ok") and headers["Content-Type"] == "text/html"
    assert s.get()[1] == "435[]" + RS + "436[]"
    # get_state with and without ack id in one POST: both are answered
    s.post('42["get_state"]', '427["get_state"]')
    seen = []
    while not ({"event", "ack"} <= {k for k, _ in seen}):
        for p in s.packets():
            if event_packet(p)[0] == "initial_state":
                seen.append(("event", event_packet(p)[1]))
            elif p.startswith("437["):
                seen.append(("ack", json.loads(p[3:])[0]))
    assert seen[0][1] == seen[1][1]
    assert seen[0][1]["sliders"] == get_json(daemon, "/api/sliders")["sliders"]


def test_poll_is_held_until_something_is_queued(daemon):
    s = joined(daemon)
    result = {}
    poll = threading.Thread(target=lambda: result.update(packets=s.packets()))
    poll.start()
    poll.join(0.5)
    assert poll.is_alive()  # nothing to send yet
    assert http("POST", daemon.url("/api/sliders/1"), {"value": 9})[0] == 200
    poll.join(5)
    assert event_packet(result["packets"][0]) == ("slider_change", {"index": 1, "value": 9, "position": None, "pickup": True})


def test_a_second_concurrent_poll_closes_the_session(daemon):
    s = joined(daemon)
    first = {}
    poll = threading.Thread(target=lambda: first.update(r=s.get()))
    poll.start()
    poll.join(0.3)
    status, text, _ = s.get()
    assert status == 400 and json.loads(text)["code"] == 3
    poll.join(5)
    assert first["r"][:2] == (200, "1")  # the held poll learns that the server closed
    assert s.get()[0] == 400


def test_upgrade_probe_answers_the_held_poll_then_switches(daemon):
    s = joined(daemon)
    held = {}
    poll = threading.Thread(target=lambda: held.update(r=s.get()))
    poll.start()
    poll.join(0.3)
    ws = websocket.create_connection(ws_url(daemon, f"EIO=4&transport=websocket&sid={s.sid}"),
                                     timeout=10)
    try:
        ws.send("2probe")
        assert ws.recv() == "3probe"
        poll.join(5)
        assert held["r"][:2] == (200, "6")  # so that the client can pause polling
        ws.send("5")
        assert http("POST", daemon.url("/api/sliders/4"), {"value": 61})[0] == 200
        assert event_packet(ws.recv()) == ("slider_change", {"index": 4, "value": 61, "position": None, "pickup": True})
        # after the upgrade, polling requests of the session are refused
        status, text, _ = s.get()
        assert status == 400 and json.loads(text) == {"code": 3, "message": "Bad request"}
        # a second websocket for the same session is refused
        with pytest.raises(websocket.WebSocketBadStatusException):
            websocket.create_connection(
                ws_url(daemon, f"EIO=4&transport=websocket&sid={s.sid}"), timeout=10)
        ws.send('421["get_state"]')
        assert ws.recv().startswith('431[{"')
        ws.send("41")
        ws.send("1")
    finally:
        ws.close()
    deadline = time.monotonic() + 5
    while s.get()[0] != 400 or json.loads(s.get()[1])["code"] != 1:
        assert time.monotonic() < deadline, "session still known after close"
        time.sleep(0.05)


def test_websocket_only_handshake(daemon):
    ws = websocket.create_connection(ws_url(daemon, "EIO=4&transport=websocket"), timeout=10)
    try:
        first = ws.recv()
        assert first.startswith("0{")
        opened = json.loads(first[1:])
        assert list(opened) == ["sid", "upgrades", "pingInterval", "pingTimeout", "maxPayload"]
        assert opened["upgrades"] == []
        ws.send("40")
        ack = ws.recv()
        assert re.fullmatch(r'40\{"sid":"[A-Za-z0-9_-]{20}"\}', ack)
        assert json.loads(ack[2:])["sid"] != opened["sid"]  # namespace id != engine id
        assert event_packet(ws.recv())[0] == "initial_state"
        # other namespaces do not exist
        ws.send("40/admin,")
        assert ws.recv() == '44/admin,{"message":"Invalid namespace"}'
    finally:
        ws.close()


def test_websocket_upgrade_elsewhere_is_404(daemon):
    with pytest.raises(websocket.WebSocketBadStatusException) as e:
        websocket.create_connection(daemon.url("/api/sliders").replace("http", "ws"), timeout=10)
    assert e.value.status_code == 404


def test_silent_session_is_closed_after_ping_timeout(daemon_factory, data_dir):
    os.makedirs(data_dir, exist_ok=True)
    with open(os.path.join(data_dir, "settings.json"), "w") as f:
        json.dump({"socketio_ping_interval_ms": 1000, "socketio_ping_timeout_ms": 1000}, f)
    d = daemon_factory("--serial", "none")
    s = PollingSession(d)
    assert (s.open["pingInterval"], s.open["pingTimeout"]) == (1000, 1000)
    started = time.monotonic()
    assert s.get()[:2] == (200, "2")  # the server pings after pingInterval
    assert 0.8 < time.monotonic() - started < 3
    # no pong: after pingTimeout the held poll ends with a close packet and the session is gone
    assert s.get()[:2] == (200, "1")
    assert 1.8 < time.monotonic() - started < 5
    assert json.loads(s.get()[1]) == {"code": 1, "message": "Session ID unknown"}


# ---- the connect timeout (socketio_connect_timeout_ms) -------------------------------------------

def daemon_with_settings(daemon_factory, data_dir, settings):
    os.makedirs(data_dir, exist_ok=True)
    with open(os.path.join(data_dir, "settings.json"), "w") as f:
        json.dump(settings, f)
    return daemon_factory("--serial", "none")


# Pings every second, so that a client has answered two of them when the connect timeout ends.
CONNECT_TIMEOUT = 2.5


@pytest.fixture
def quick_connect(daemon_factory, data_dir):
    return daemon_with_settings(daemon_factory, data_dir, {
        "socketio_ping_interval_ms": 1000, "socketio_ping_timeout_ms": 1000,
        "socketio_connect_timeout_ms": int(CONNECT_TIMEOUT * 1000)})


def test_polling_client_that_never_joins_is_closed(quick_connect):
    s = PollingSession(quick_connect)
    started = time.monotonic()
    pings = 0
    while True:
        packets = s.packets()  # held until the server has something: a ping or the close
        if "1" in packets:
            break
        assert time.monotonic() - started < CONNECT_TIMEOUT + 3, "never closed"
        assert packets == ["2"], packets
        pings += 1
        assert s.post("3")[:2] == (200, "ok")
    assert pings >= 2  # alive all along: it is the missing namespace connect that counts
    assert CONNECT_TIMEOUT - 0.2 < time.monotonic() - started < CONNECT_TIMEOUT + 1.5
    assert json.loads(s.get()[1]) == {"code": 1, "message": "Session ID unknown"}


def test_websocket_client_that_never_joins_is_closed(quick_connect):
    ws = websocket.create_connection(ws_url(quick_connect, "EIO=4&transport=websocket"),
                                     timeout=10)
    try:
        assert ws.recv().startswith("0{")
        started = time.monotonic()
        pings = 0
        while (packet := ws.recv()) != "":  # "": the server's close frame
            assert packet == "2", packet
            assert time.monotonic() - started < CONNECT_TIMEOUT + 3, "never closed"
            pings += 1
            ws.send("3")
        assert pings >= 2
        assert CONNECT_TIMEOUT - 0.2 < time.monotonic() - started < CONNECT_TIMEOUT + 1.5
    finally:
        ws.close()


def test_client_that_joins_is_not_closed_by_the_connect_timeout(quick_connect):
    s = joined(quick_connect)
    started = time.monotonic()
    # Answer pings until well past the connect timeout...
    while time.monotonic() - started < CONNECT_TIMEOUT + 1:
        packet, _ = s.until(lambda p: p == "2")
        assert s.post("3")[:2] == (200, "ok")
    # ...and the session still answers.
    s.post('427["get_state"]')
    packet, seen = s.until(lambda p: p.startswith("437["))
    assert "1" not in seen
    assert json.loads(packet[3:])[0]["sliders"]


def test_leaving_the_namespace_does_not_restart_the_connect_timeout(quick_connect):
    s = joined(quick_connect)
    assert s.post("41")[:2] == (200, "ok")
    started = time.monotonic()
    while time.monotonic() - started < CONNECT_TIMEOUT + 1:
        s.until(lambda p: p == "2")
        assert s.post("3")[:2] == (200, "ok")
    assert s.post("40")[:2] == (200, "ok")
    s.until(lambda p: event_packet(p)[0] == "initial_state")


# ---- binary packets ------------------------------------------------------------------------------

# socket.emit("get_state", Buffer.from([1, 2, 3]), ack) with ack id 5, as socket.io-client 4
# writes it: the packet with a placeholder, then the attachment.
BINARY_GET_STATE = '451-5["get_state",{"_placeholder":true,"num":0}]'


def test_binary_get_state_over_polling(daemon):
    s = joined(daemon)
    assert s.post(BINARY_GET_STATE, "bAQID")[:2] == (200, "ok")
    packet, _ = s.until(lambda p: p.startswith("435["))
    assert json.loads(packet[3:])[0]["sliders"] == get_json(daemon, "/api/sliders")["sliders"]
    # The attachment may also come in a POST of its own.
    assert s.post(BINARY_GET_STATE.replace("-5", "-6"))[:2] == (200, "ok")
    assert s.post("bAQID")[:2] == (200, "ok")
    s.until(lambda p: p.startswith("436["))


def ws_joined(daemon):
    ws = websocket.create_connection(ws_url(daemon, "EIO=4&transport=websocket"), timeout=10)
    assert ws.recv().startswith("0{")
    ws.send("40")
    assert ws.recv().startswith("40{")
    assert event_packet(ws.recv())[0] == "initial_state"
    return ws


def test_binary_get_state_over_websocket(daemon):
    ws = ws_joined(daemon)
    try:
        # The attachment as a binary frame, as both stock clients send it...
        ws.send(BINARY_GET_STATE)
        ws.send_binary(b"\x01\x02\x03")
        answer = ws.recv()
        assert answer.startswith("435[")
        assert json.loads(answer[3:])[0]["sliders"] == get_json(daemon, "/api/sliders")["sliders"]
        # ...or as a `b` packet in a text frame, which the reference reads too.
        ws.send('452-6["get_state",{"_placeholder":true,"num":1},{"_placeholder":true,"num":0}]')
        ws.send("bAQID")
        ws.send_binary(b"")
        assert ws.recv().startswith("436[")
    finally:
        ws.close()


def test_binary_packet_over_max_payload_closes_the_websocket(daemon):
    ws = ws_joined(daemon)
    try:
        # Exactly maxPayload with the Socket.IO text (without the Engine.IO "4"): answered.
        room = 65536 - len(BINARY_GET_STATE[1:])
        ws.send(BINARY_GET_STATE)
        ws.send_binary(b"\0" * room)
        assert ws.recv().startswith("435[")
        # One byte more: refused as an oversized payload, the connection closes.
        ws.send(BINARY_GET_STATE)
        ws.send_binary(b"\0" * (room + 1))
        assert ws.recv() == ""
    finally:
        ws.close()


def test_websocket_message_over_max_payload_closes_with_1009(daemon):
    """The announced maxPayload bounds a websocket message as it bounds a POST (the reference
    gives ws its maxHttpBufferSize); over it the socket closes with 1009, as ws does."""
    ws = ws_joined(daemon)
    try:
        def message(size):
            head = '42["chat","'
            return head + "a" * (size - len(head) - 2) + '"]'
        ws.send(message(65536))  # an event nobody handles: ignored
        ws.send('421["get_state"]')
        assert ws.recv().startswith("431[")
        # The server closes as soon as it has read the frame's length, so sending the rest may
        # fail, and its close frame may be lost to the reset that unread bytes cause.
        try:
            ws.send(message(65537))
            opcode, data = ws.recv_data(control_frame=True)
            ended = int.from_bytes(data[:2], "big") if opcode == websocket.ABNF.OPCODE_CLOSE else opcode
        except (BrokenPipeError, ConnectionResetError):
            ended = "reset"
        assert ended in (1009, "reset")
    finally:
        ws.close()


def test_binary_packet_over_max_payload_closes_the_polling_session(daemon):
    s = joined(daemon)
    # Each POST is under the 64 KiB body limit; the packet's attachments together are not.
    two = '452-7["get_state",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]'
    assert s.post(two, "b" + base64.b64encode(b"\0" * 40000).decode())[:2] == (200, "ok")
    # The POST is answered before its packets are read; the session is gone when it arrives.
    assert s.post("b" + base64.b64encode(b"\0" * 30000).decode())[:2] == (200, "ok")
    status, body, _ = s.get()
    assert (status, json.loads(body)) == (400, {"code": 1, "message": "Session ID unknown"})


@pytest.mark.parametrize("messages", [
    [b"\x01"],                                  # binary data that no packet announced
    [BINARY_GET_STATE, '42["get_state"]'],       # a text packet before the attachment
    ['451-["get_state",{"_placeholder":true,"num":1}]', b"\x01"],  # no attachment 1
    ['4511-["get_state"]'],                     # more than 10 attachments
], ids=["stray-binary", "text-between", "bad-placeholder", "too-many"])
def test_broken_binary_packets_close_the_connection(daemon, messages):
    ws = ws_joined(daemon)
    try:
        for m in messages:
            ws.send_binary(m) if isinstance(m, bytes) else ws.send(m)
        assert ws.recv() == ""
    finally:
        ws.close()
