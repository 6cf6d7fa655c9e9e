"""Hardening 5. Transfer-Encoding mixerd cannot frame (RFC 9112 section 6.3): a request whose
Transfer-Encoding does not end with chunked gets 400, and the connection closes without an
answer to the request sent behind it (which would otherwise be smuggled past whatever sits in
front of mixerd). A coding before a final chunked (`gzip, chunked`) is 501: mixerd decodes none.
Transfer-Encoding on HTTP/1.0 is 400. All three listeners, and the WebSocket upgrade path.
"""
import base64
import os
import socket

from fault_support import figures, stop_cleanly
from http_garbage import STATUS_RE
from integration_harness import daemon_factory, data_dir  # noqa: F401 (fixtures)

# (Transfer-Encoding value, the body bytes that follow the header, the expected status).
CASES = [
    ("gzip", b"", 400),
    ("xchunked", b"", 400),
    ("identity", b"", 400),
    ("chunked, gzip", b"", 400),
    ("chunked;x=1", b"0\r\n\r\n", 400),
    ("gzip, chunked", b"0\r\n\r\n", 501),
]
# Per listener: a request line to smuggle the second request behind, and that second request.
LISTENERS = {
    "controller": (b"POST /api/volume/master HTTP/1.1", b"GET /api/status HTTP/1.1"),
    "notification API": (b"POST /api/toast/send HTTP/1.1", b"GET /api/toast/health HTTP/1.1"),
    "plant store": (b"DELETE /plants/1 HTTP/1.1", b"DELETE /plants/2 HTTP/1.1"),
}


def exchange(port, data, timeout=5.0):
    """Sends `data`, half-closes, reads until mixerd closes; (statuses, raw, closed)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    raw, closed = b"", False
    try:
        s.sendall(data)
        try:
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                closed = True
                break
            except socket.timeout:
                break
            if not chunk:
                closed = True
                break
            raw += chunk
    finally:
        s.close()
    return [int(m) for m in STATUS_RE.findall(raw)], raw, closed


def request(line, extra=b"", body=b""):
    return line + b"\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + extra + b"\r\n" + body


def test_transfer_encoding_other_than_chunked_is_refused_and_nothing_behind_it_answered(daemon_factory):
    daemon = daemon_factory("--serial", "none")
    outcomes = []
    for listener, (first, second) in LISTENERS.items():
        port = daemon.ports[listener]
        for coding, body, expected in CASES:
            data = request(first, b"Transfer-Encoding: " + coding.encode() + b"\r\n", body) + request(second)
            statuses, raw, closed = exchange(port, data)
            outcomes.append((listener, coding, expected, statuses, closed, raw[:200]))
        # HTTP/1.0 with Transfer-Encoding, even chunked.
        data = request(first.replace(b"HTTP/1.1", b"HTTP/1.0"),
                       b"Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n", b"0\r\n\r\n") + request(second)
        statuses, raw, closed = exchange(port, data)
        outcomes.append((listener, "chunked (HTTP/1.0)", 400, statuses, closed, raw[:200]))

    # The WebSocket upgrade path: no 101, no upgrade.
    key = base64.b64encode(os.urandom(16))
    upgrade = request(b"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1",
                      b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
                      b"\r\nSec-WebSocket-Version: 13\r\nTransfer-Encoding: gzip\r\n")
    statuses, raw, closed = exchange(daemon.ports["controller"], upgrade + request(b"GET /api/status HTTP/1.1"))
    outcomes.append(("controller upgrade", "gzip", 400, statuses, closed, raw[:200]))

    wrong = [o for o in outcomes if o[3] != [o[2]] or not o[4]]
    smuggled = sum(max(0, len(o[3]) - 1) for o in outcomes)
    figures("transfer encoding", cases=len(outcomes), as_expected=len(outcomes) - len(wrong),
            answered_behind=smuggled,
            statuses=";".join(f"{o[0]}/{o[1]}={','.join(map(str, o[3])) or '-'}" for o in outcomes[:8]))
    assert not wrong, "\n".join(f"{l} TE {c!r}: expected [{e}] then close, got {s} closed={cl} {raw!r}"
                                for l, c, e, s, cl, raw in wrong)
    stop_cleanly(daemon)
