"""Socket.IO with login on (docs/api.md: a connection without a valid session is refused at
namespace connect). A session counts from the page's own origin cookie or from the CONNECT
auth payload {"token": <session id>}."""
import json
import os
import subprocess
import time

import pytest
import socketio

from conftest import MIXERD_BIN, http
from socketio_support import NodeClient, PollingSession, PyClient, event_packet
from socketio_support import clients  # noqa: F401 (a fixture)


@pytest.fixture
def secured(daemon_factory, data_dir):
    os.makedirs(data_dir, exist_ok=True)
    r = subprocess.run([MIXERD_BIN, "set-password", "admin", "--data-dir", data_dir],
                       input="correct horse\n", capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return daemon_factory("--serial", "none")


@pytest.fixture
def session_id(secured):
    status, body, headers = http("POST", secured.url("/api/auth/login"),
                                 {"username": "admin", "password": "correct horse"})
    assert status == 200, body
    return headers["Set-Cookie"].split(";")[0].split("=", 1)[1]


# python-socketio 5.7 notices a refused namespace only when its wait_timeout runs out.
REFUSAL_WAIT = 2


@pytest.mark.parametrize("transport", ["polling", "websocket", "default"])
def test_python_client_is_refused_without_a_session(secured, transport):
    with pytest.raises(socketio.exceptions.ConnectionError):
        PyClient(secured.url(""), transport, wait_timeout=REFUSAL_WAIT)


def test_python_client_is_refused_with_an_unknown_token(secured):
    with pytest.raises(socketio.exceptions.ConnectionError):
        PyClient(secured.url(""), "websocket", auth={"token": "0" * 64},
                 wait_timeout=REFUSAL_WAIT)


@pytest.mark.parametrize("transport", ["polling", "websocket"])
def test_node_client_is_refused_without_a_session(secured, transport):
    c = NodeClient(secured.url(""), transport, token="not-a-session")
    try:
        assert c.expect("connect_error")["message"] == "Authentication required"
        assert not any(m["type"] == "connect" for m in c.messages.seen)
    finally:
        c.close()


def test_refusal_on_the_wire(secured):
    s = PollingSession(secured)
    assert s.post("40")[:2] == (200, "ok")
    assert s.packets() == ['44{"message":"Authentication required"}']
    # the engine session stays; a later CONNECT with a token is judged again
    status, _, headers = http("POST", secured.url("/api/auth/login"),
                              {"username": "admin", "password": "correct horse"})
    token = headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
    s.post('40{"token":"%s"}' % token)
    packet, _ = s.until(lambda p: event_packet(p)[0] == "initial_state")
    assert event_packet(packet)[1]["sliders"]


@pytest.mark.parametrize("kind,transport", [("python", "polling"), ("python", "websocket"),
                                            ("python", "default"), ("node", "polling"),
                                            ("node", "websocket")])
def test_session_cookie_is_accepted(session_id, secured, clients, kind, transport):
    c = clients(kind, secured.url(""), transport, cookie=f"controller_session={session_id}")
    assert c.event("initial_state")["sliders"]


@pytest.mark.parametrize("kind,transport", [("python", "polling"), ("python", "websocket"),
                                            ("node", "default")])
def test_auth_token_is_accepted(session_id, secured, clients, kind, transport):
    c = clients(kind, secured.url(""), transport, token=session_id)
    assert c.event("initial_state")["sliders"]
    assert c.call("get_state")["sliders"]


def test_refused_client_is_closed_after_the_connect_timeout(daemon_factory, data_dir):
    # As socket.io's connectTimeout: only a namespace joined stops it, a refusal does not.
    os.makedirs(data_dir, exist_ok=True)
    r = subprocess.run([MIXERD_BIN, "set-password", "admin", "--data-dir", data_dir],
                       input="correct horse\n", capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    path = os.path.join(data_dir, "settings.json")
    with open(path) as f:
        settings = json.load(f)
    settings["socketio_connect_timeout_ms"] = 1000
    with open(path, "w") as f:
        json.dump(settings, f)
    s = PollingSession(daemon_factory("--serial", "none"))
    started = time.monotonic()
    assert s.post("40")[:2] == (200, "ok")
    assert s.packets() == ['44{"message":"Authentication required"}']
    assert s.packets() == ["1"]  # the held poll ends with the close
    assert 0.8 < time.monotonic() - started < 3


def test_cookie_from_another_origin_does_not_count(session_id, secured):
    c = NodeClient(secured.url(""), "polling", cookie=f"controller_session={session_id}",
                   origin="http://evil.example")
    try:
        assert c.expect("connect_error")["message"] == "Authentication required"
    finally:
        c.close()


def test_logged_out_session_is_refused(session_id, secured):
    cookie = {"Cookie": f"controller_session={session_id}"}
    assert http("POST", secured.url("/api/auth/logout"), b"", headers=cookie)[0] == 200
    with pytest.raises(socketio.exceptions.ConnectionError):
        PyClient(secured.url(""), "websocket", auth={"token": session_id},
                 wait_timeout=REFUSAL_WAIT)
