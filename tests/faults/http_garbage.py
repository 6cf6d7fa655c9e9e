"""Malformed HTTP for the fault tests: a catalogue of request builders (bad request lines and
headers, oversized headers and bodies, bad chunked encoding, truncated requests, bad JSON to every
POST endpoint, bad Socket.IO polling and websocket traffic, random mutations) and a raw-socket
exchange that sends one, half-closes, and reads until mixerd closes.

What each case may get back (`allow`): "4xx" for requests that are wrong, "2xx" where the
endpoint ignores its body (mute toggles, logout), "101" for a websocket upgrade that is itself
valid. Never a 5xx; never silence. Every request names this machine in Host (127.0.0.1), so that
it meets the check it is about rather than the Host check (421).
"""
import base64
import json
import os
import re
import socket
import struct
from dataclasses import dataclass, field

CONTROLLER, NOTIFICATION, PLANTS = "controller", "notification API", "plant store"
STATUS_RE = re.compile(rb"HTTP/1\.[01] (\d{3}) ")


@dataclass
class Case:
    name: str
    listener: str
    chunks: list
    allow: set = field(default_factory=lambda: {"4xx"})
    source: str = "127.0.0.1"


@dataclass
class Outcome:
    statuses: list
    closed: bool  # mixerd closed the connection (after answering or not)
    raw: bytes


def exchange(port, case, timeout=10.0):
    """Sends the case's bytes on a new connection from case.source, half-closes, reads to EOF."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(case.source, 0))
    raw = b""
    closed = False
    try:
        try:
            for chunk in case.chunks:
                s.sendall(chunk)
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # mixerd refused the rest (431 after 16 KiB) or closed already; read what it said
        while True:
            try:
                data = s.recv(65536)
            except ConnectionResetError:
                closed = True
                break
            except socket.timeout:
                break
            if not data:
                closed = True
                break
            raw += data
    finally:
        s.close()
    return Outcome([int(m) for m in STATUS_RE.findall(raw)], closed, raw)


def acceptable(case, outcome):
    """None when the outcome is one the case allows, else why not."""
    if not outcome.closed:
        return "no answer and not closed within the timeout"
    for status in outcome.statuses:
        kind = "101" if status == 101 else f"{status // 100}xx"
        if kind not in case.allow:
            return f"status {status} (allowed {sorted(case.allow)})"
    return None


def request(method, path, headers=(), body=b"", version="HTTP/1.1", host="127.0.0.1"):
    head = f"{method} {path} {version}\r\nHost: {host}\r\n".encode()
    for name, value in headers:
        head += (name if isinstance(name, bytes) else name.encode()) + b": " + \
                (value if isinstance(value, bytes) else value.encode()) + b"\r\n"
    return head + b"\r\n" + body


def with_body(method, path, body, extra=()):
    return request(method, path, [("Content-Type", "application/json"),
                                  ("Content-Length", str(len(body))), *extra], body)


# ---- the builders: each takes (rng, ctx) and returns a Case -------------------------------------

def bad_request_line(rng, ctx):
    line = rng.choice([
        b"GARBAGE", b"GET", b"GET /api/status", b"GET /api/status HTTP/9.9",
        b"GET /api/status HTTP/1.1 extra", b"GET  /api/status  HTTP/1.1", b"/api/status HTTP/1.1",
        b"GET /api/status FOO/1.1", b"G\x00T /api/status HTTP/1.1", b"GET /api/\x00status HTTP/1.1",
        b"GET /api/status HTTP/1.1x", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  # TLS hello
        b"GET /api/st atus HTTP/1.1", b"GET http://[::1 HTTP/1.1", b"PRI * HTTP/2.0",
        b" GET /api/status HTTP/1.1", b"GET /api/status HTTP/1.", b"\xff\xfe\xfd"])
    return Case("bad request line", CONTROLLER, [line + b"\r\nHost: 127.0.0.1\r\n\r\n"])


def bad_headers(rng, ctx):
    header = rng.choice([
        b"NoColon", b"Bad Name: x", b"X-A\x00: y", b": empty-name", b"X-A: b\r\n c",
        b"Content-Length: -1", b"Content-Length: 1, 2", b"Content-Length: abc",
        b"Content-Length: 99999999999999999999999", b"Transfer-Encoding: gzip",
        b"Transfer-Encoding: chunked\r\nContent-Length: 5", b"Content-Length: 3\r\nContent-Length: 4",
        b"Host: a\r\nHost: b", b"X-A: \x7f\x00\x01", b"\x80\x81: x"])
    return Case("bad headers", rng.choice([CONTROLLER, NOTIFICATION, PLANTS]),
                [b"POST /api/sliders/1 HTTP/1.1\r\nHost: 127.0.0.1\r\n" + header + b"\r\n\r\n{}"],
                allow={"4xx"})


def huge_headers(rng, ctx):
    kind = rng.randrange(4)
    if kind == 0:
        head = request("GET", "/api/status", [("X-Big", "a" * rng.randrange(17000, 70000))])
    elif kind == 1:
        head = request("GET", "/api/status", [(f"X-{i}", "v" * 20) for i in range(rng.randrange(700, 3000))])
    elif kind == 2:
        head = request("GET", "/api/" + "a" * rng.randrange(17000, 40000))
    else:  # a header line that never ends
        head = b"GET /api/status HTTP/1.1\r\nX-Endless: " + b"z" * rng.randrange(17000, 200000)
    return Case("huge headers", rng.choice([CONTROLLER, NOTIFICATION, PLANTS]), [head])


def bad_chunked(rng, ctx):
    body = rng.choice([
        b"zz\r\n{}\r\n0\r\n\r\n", b"ffffffffffffffffffff\r\nx\r\n0\r\n\r\n", b"2\r\n{}",
        b"2\r\n{}\r\n", b"2;ext=\x00\r\n{}\r\n0\r\n\r\n", b"-2\r\n{}\r\n0\r\n\r\n",
        b"5\r\n{}\r\n0\r\n\r\n", b"2\r\n{}XX0\r\n\r\n", b"\r\n\r\n", b"0\r\nX-Trailer\r\n\r\n"])
    head = b"POST /api/volume/master HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
    return Case("bad chunked", CONTROLLER, [head + body])


def truncated(rng, ctx):
    full = with_body("POST", "/api/sliders/2", b'{"value": 57}')
    cut = rng.randrange(1, len(full) - 1)
    if rng.random() < 0.5:  # body shorter than its Content-Length
        full = with_body("POST", "/api/sliders/2", b'{"value": 57}' + b" " * 100)
        cut = len(full) - rng.randrange(1, 100)
    return Case("truncated", CONTROLLER, [full[:cut]])


# The POST endpoints and bodies that are wrong for each. Paths with {i} take a random index.
BAD_JSON = [b"", b"{", b"[]", b"null", b"1", b'"str"', b'{"value":', b'{"value": 1e999}',
            b'{"value": NaN}', b'{"value": 50,}', b'{"value": 50.0}', b'{"value": "57"}',
            b'{"value": true}', b'{"value": -1}', b'{"value": 101}', b'{"value": 123456789012345678901234567890}',
            b'{"value": "\xff\xfe"}', b"\x00\x01\x02", b"{'value': 5}", b'{"value": 5} x',
            b"[" * 5000, b'{"a":' * 3000, b'{"value": [' + b"[" * 200 + b"]"]
BAD_ASSIGNMENT = [b'{"type": "app"}', b'{"type": "app", "names": []}', b'{"type": 5}',
                  b'{"type": "bogus"}', b'{"type": "app", "names": [""]}',
                  b'{"type": "app", "names": ["' + b"n" * 300 + b'"]}',
                  b'{"type": "app", "names": ' + json.dumps(["a"] * 33).encode() + b"}",
                  b'{"type": "unassigned", "label": "' + b"l" * 65 + b'"}',
                  b'{"type": "unassigned", "enforce_volume": "yes"}', b'{"names": ["a"]}']
BAD_LOGIN = [b'{"username": 1, "password": "x"}', b'{"username": "u"}', b'{"password": "p"}',
             b'{"username": "u", "password": "p", "remember": "yes"}']
BAD_TOAST = [b'{}', b'{"message": null}', b'{"message": ""}', b'{"message": 5}',
             b'{"message": "' + b"m" * 31 + b'"}', b'{"message": "hi", "icon": "nope"}',
             b'{"message": "hi", "color": "#12345"}', b'{"message": "hi", "duration_ms": "5000"}',
             b'{"message": "hi", "duration_ms": 999}', b'{"message": "hi", "subtitle": "' + b"s" * 41 + b'"}']
BAD_HANDLER = [b'{}', b'{"enabled": null}', b'{"enabled": "yes"}', b'{"enabled": 1}']


def bad_json(rng, ctx):
    i = rng.randrange(1, 5)
    target = rng.randrange(9)
    body = rng.choice(BAD_JSON)
    if target == 0:
        return Case("bad json", CONTROLLER, [with_body("POST", f"/api/sliders/{i}", body)])
    if target == 1:
        body = rng.choice(BAD_JSON + BAD_ASSIGNMENT)
        return Case("bad json", CONTROLLER, [with_body("POST", f"/api/sliders/{i}/assignment", body)])
    if target == 2:
        return Case("bad json", CONTROLLER, [with_body("POST", "/api/volume/master", body)])
    if target == 3:
        return Case("bad json", CONTROLLER, [with_body("POST", "/api/auth/login", rng.choice(BAD_JSON + BAD_LOGIN))])
    if target == 4:  # these take no body: they answer 200 and toggle / log out
        path = rng.choice([f"/api/mutes/{i}", "/api/mutes/master", "/api/auth/logout"])
        return Case("bad json (body ignored)", CONTROLLER, [with_body("POST", path, body)], {"2xx", "4xx"})
    key = [("X-API-Key", ctx.api_key)]
    if target in (5, 6):
        return Case("bad json", NOTIFICATION,
                    [with_body("POST", "/api/toast/send", rng.choice(BAD_JSON + BAD_TOAST), key)],
                    source=ctx.fresh_source())
    if target == 7:
        handler = rng.choice(["api", "music", "nope"])
        return Case("bad json", NOTIFICATION, [with_body("POST", f"/api/toast/handlers/{handler}",
                                                         rng.choice(BAD_JSON + BAD_HANDLER), key)],
                    source=ctx.fresh_source())
    # regenerate ignores its body: sent with a wrong key, so the key stays
    return Case("bad json", NOTIFICATION, [with_body("POST", "/api/toast/regenerate", body,
                                                     [("X-API-Key", "wrong")])],
                source=ctx.fresh_source())


def oversized(rng, ctx):
    kind = rng.randrange(3)
    path = rng.choice(["/api/sliders/1", "/api/volume/master", "/api/auth/login"])
    if kind == 0:
        body = b'{"value": "' + b"x" * rng.randrange(65 * 1024, 300 * 1024) + b'"}'
        return Case("oversized body", CONTROLLER, [with_body("POST", path, body)])
    if kind == 1:  # announced, never sent: refused on the header
        head = request("POST", path, [("Content-Length", str(rng.randrange(65537, 1 << 40)))])
        return Case("oversized body", CONTROLLER, [head])
    chunk = b"x" * 8192
    body = b"".join(b"2000\r\n" + chunk + b"\r\n" for _ in range(rng.randrange(9, 40))) + b"0\r\n\r\n"
    head = request("POST", path, [("Transfer-Encoding", "chunked")])
    return Case("oversized chunked body", CONTROLLER, [head + body])


def bad_polling(rng, ctx):
    kind = rng.randrange(3)
    if kind == 0:
        path = rng.choice(["/socket.io/?EIO=3&transport=polling", "/socket.io/?EIO=4&transport=pigeon",
                           "/socket.io/?EIO=4&transport=polling&sid=bogus", "/socket.io/?transport=polling",
                           "/socket.io/?EIO=4&transport=polling&sid=" + "A" * 5000,
                           "/socket.io/?EIO=4&transport=websocket"])
        method = rng.choice(["GET", "POST", "PUT", "DELETE"])
        return Case("bad polling", CONTROLLER, [request(method, path)])
    sid = ctx.new_polling_sid()
    payload = rng.choice([b"", b"\x1e", b"9", b"4", b"42[", b'42["get_state"', b"4" + b"[" * 100,
                          b"\xff\xfe\x00", b"\x1e\x1e", b"40/x,", b'42["connect"]', b"3\x1e9",
                          b'42["slider_change",{"index":1,"value":5}]\x1e\x1e4'])
    path = f"/socket.io/?EIO=4&transport=polling&sid={sid}"
    post = request("POST", path, [("Content-Type", "text/plain"), ("Content-Length", str(len(payload)))],
                   payload)
    if kind == 2:  # and a poll on the same connection: the session is gone by then
        post += request("GET", path)
    return Case("bad polling", CONTROLLER, [post], {"2xx", "4xx"})


def ws_frame(payload, opcode=1, fin=True, masked=True, length=None):
    n = len(payload) if length is None else length
    head = bytes([(0x80 if fin else 0) | opcode])
    mask_bit = 0x80 if masked else 0
    if n < 126:
        head += bytes([mask_bit | n])
    elif n < 65536:
        head += bytes([mask_bit | 126]) + struct.pack(">H", n)
    else:
        head += bytes([mask_bit | 127]) + struct.pack(">Q", n)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def bad_websocket(rng, ctx):
    path = "/socket.io/?EIO=4&transport=websocket"
    key = base64.b64encode(os.urandom(16)).decode()
    good = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", key),
            ("Sec-WebSocket-Version", "13")]
    if rng.random() < 0.3:
        broken = rng.choice([
            [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13")],
            good[:3] + [("Sec-WebSocket-Version", "8")],
            good[:2] + [("Sec-WebSocket-Key", "x" * 40), ("Sec-WebSocket-Version", "13")]])
        return Case("bad websocket upgrade", CONTROLLER,
                    [request(rng.choice(["GET", "POST"]), rng.choice([path, "/elsewhere"]), broken)])
    frames = rng.choice([
        [os.urandom(rng.randrange(1, 200))],
        [ws_frame(b"40", masked=False)],
        [ws_frame(b"40"), ws_frame(b"\xff\xfe", opcode=1)],
        [ws_frame(b"40"), ws_frame(b"\x00\x01", opcode=2)],
        [ws_frame(b"40"), ws_frame(b"x", opcode=rng.choice([3, 4, 5, 6, 7, 11, 15]))],
        [ws_frame(b"40"), ws_frame(b"", length=1 << 40)],
        [ws_frame(b"4" + b"x" * 70000)],
        [ws_frame(b"9")],
        [ws_frame(b"40"), ws_frame(b"42[")],
        [ws_frame(b"40"), ws_frame(b"40/x,")],
        [ws_frame(b"40"), ws_frame(b'42["connect"]')],
        [ws_frame(b"40", fin=False), ws_frame(b"40", fin=False, opcode=1)],
        [ws_frame(b"x" * 200, opcode=9)],  # a control frame over 125 bytes
    ])
    return Case("bad websocket traffic", CONTROLLER, [request("GET", path, good)] + frames, {"101", "4xx"})


def mutation(rng, ctx):
    """A valid GET with a few random bytes flipped, inserted or removed: any answer but 5xx."""
    data = bytearray(request("GET", rng.choice(["/api/status", "/api/sliders", "/socket.io/?EIO=4&transport=polling"]),
                             [("Accept", "*/*"), ("Connection", "keep-alive")]))
    for _ in range(rng.randrange(1, 6)):
        pos = rng.randrange(len(data))
        op = rng.randrange(3)
        if op == 0:
            data[pos] = rng.randrange(256)
        elif op == 1:
            data.insert(pos, rng.randrange(256))
        elif len(data) > 1:
            del data[pos]
    return Case("mutated request", rng.choice([CONTROLLER, NOTIFICATION, PLANTS]), [bytes(data)],
                {"1xx", "2xx", "3xx", "4xx", "101"})


def random_bytes(rng, ctx):
    data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000)))
    return Case("random bytes", rng.choice([CONTROLLER, NOTIFICATION, PLANTS]), [data])


def bad_plants(rng, ctx):
    token = ctx.plant_store_token if rng.random() < 0.5 else "wrong"
    path = rng.choice(["/plants/", "/plants//1", "/plants/1/", "/plants/+1", "/plants/1e3",
                       "/plants/99999999999999999999999", "/plants/%zz", "/plants/%00", "/plants/-0x1",
                       "/plants/" + "9" * 40])
    auth = rng.choice([f"Bearer {token}", f"Bearer  {token}\x00", "Basic abc", "Bearer", "Bearer a b"])
    return Case("bad plant delete", PLANTS, [request(rng.choice(["DELETE", "POST", "GET"]), path,
                                                     [("Authorization", auth)])])


BUILDERS = [(bad_request_line, 10), (bad_headers, 10), (huge_headers, 4), (bad_chunked, 8),
            (truncated, 8), (bad_json, 25), (oversized, 4), (bad_polling, 8), (bad_websocket, 8),
            (mutation, 8), (random_bytes, 4), (bad_plants, 5)]


def json_sweep(ctx):
    """Every wrong body to every JSON endpoint once, so that each validation is hit in every run
    (the random cases reach each pair only by chance)."""
    key = [("X-API-Key", ctx.api_key)]
    cases = []
    for i, body in enumerate(BAD_JSON):
        cases.append(Case("bad json", CONTROLLER, [with_body("POST", f"/api/sliders/{i % 4 + 1}", body)]))
        cases.append(Case("bad json", CONTROLLER, [with_body("POST", "/api/volume/master", body)]))
    for i, body in enumerate(BAD_JSON + BAD_ASSIGNMENT):
        cases.append(Case("bad json", CONTROLLER, [with_body("POST", f"/api/sliders/{i % 4 + 1}/assignment", body)]))
    for body in BAD_JSON + BAD_LOGIN:
        cases.append(Case("bad json", CONTROLLER, [with_body("POST", "/api/auth/login", body)]))
    for body in BAD_JSON + BAD_TOAST:
        cases.append(Case("bad json", NOTIFICATION, [with_body("POST", "/api/toast/send", body, key)],
                          source=ctx.fresh_source()))
    for body in BAD_JSON + BAD_HANDLER:
        cases.append(Case("bad json", NOTIFICATION, [with_body("POST", "/api/toast/handlers/music", body, key)],
                          source=ctx.fresh_source()))
    return cases


def build(rng, ctx):
    builder = rng.choices([b for b, _ in BUILDERS], weights=[w for _, w in BUILDERS])[0]
    return builder(rng, ctx)
