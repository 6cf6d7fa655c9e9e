"""The streaming-software capability against the real OBS Studio 29 (obs_support.py): the scene
and source lists in OBS's order, switches through mixerd's API checked back through OBS's own
API, OBS's own changes reaching Socket.IO clients and the device, a refused password, OBS
stopped and started again, and the stream_scene / stream_source macros."""
import asyncio
import json
import os
import signal
import subprocess
import threading
import time

import pytest

from conftest import MIXERD_BIN, get_json, http, macro_set, wait_until, write_settings
from obs_support import PASSWORD, SCENES, SOURCES, ObsClient, obs  # noqa: F401 (a fixture)
from socketio_support import clients  # noqa: F401 (a fixture)

NOT_CONNECTED = {"error": "Streaming software not connected"}


def stream_settings(obs, password=PASSWORD):  # noqa: F811
    return {"stream": {"url": obs.url, "password": password}}


@pytest.fixture
def obs_client(obs):  # noqa: F811
    """A client of OBS's own API, with OBS put back to its start: program scene Intro, every
    source of it visible, not recording."""
    client = ObsClient(obs.url)
    client.request("SetCurrentProgramScene", {"sceneName": SCENES[0]})
    for item in client.request("GetSceneItemList", {"sceneName": SCENES[0]})["sceneItems"]:
        client.request("SetSceneItemEnabled", {"sceneName": SCENES[0],
                                               "sceneItemId": item["sceneItemId"],
                                               "sceneItemEnabled": True})
    yield client
    client.close()


def stream_connected(daemon):
    return http("GET", daemon.url("/api/stream/scenes"))[0] == 200


@pytest.fixture
def started(daemon_factory, device, data_dir, obs, obs_client, clients):  # noqa: F811
    """start(extra_settings) -> (daemon, socket.io client): mixerd linked to the fake device and
    to OBS, a python Socket.IO client joined."""

    def make(extra=None):
        write_settings(data_dir, {**stream_settings(obs), **(extra or {})})
        daemon = daemon_factory("--serial", device.path)
        wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="device connected")
        wait_until(lambda: stream_connected(daemon), timeout=15, what="OBS connected")
        client = clients("python", daemon.url(""), "websocket")
        return daemon, client

    return make


def test_scenes_and_sources_come_in_the_order_obs_shows_them(started, obs_client):
    daemon, client = started()
    assert obs_client.scene_names() == SCENES  # the UI's order, as the collection lists them
    assert get_json(daemon, "/api/stream/scenes") == {"scenes": SCENES, "current": "Intro"}
    assert [name for name, _ in obs_client.items("Intro")] == SOURCES
    assert get_json(daemon, "/api/stream/sources") == {"sources": SOURCES}
    state = client.event("initial_state")
    assert state["stream"] == {"connected": True, "streaming": False, "recording": False,
                               "scenes": SCENES, "current": "Intro", "sources": SOURCES}


def test_scene_and_source_switches_through_the_api_reach_obs(started, obs_client):
    daemon, client = started()
    status, body, _ = http("POST", daemon.url("/api/stream/scene"), {"scene_name": "Live"})
    assert (status, body) == (200, {"success": True, "scene": "Live"})
    assert obs_client.program_scene() == "Live"
    assert client.event("stream_change") == {"scene": "Live"}
    assert get_json(daemon, "/api/stream/scenes")["current"] == "Live"

    status, body, _ = http("POST", daemon.url("/api/stream/source"),
                           {"source_name": "Banner", "visible": False})
    assert (status, body) == (200, {"success": True, "source": "Banner", "visible": False})
    assert obs_client.items("Live") == [("Banner", False), ("Backdrop", True)]
    assert obs_client.items("Intro") == [("Banner", True), ("Backdrop", True)]  # not in Intro
    status, body, _ = http("POST", daemon.url("/api/stream/source"),
                           {"source_name": "Banner", "visible": True})
    assert (status, body) == (200, {"success": True, "source": "Banner", "visible": True})
    assert obs_client.items("Live") == [("Banner", True), ("Backdrop", True)]

    assert http("POST", daemon.url("/api/stream/scene"), {"scene_name": "Nope"})[:2] == (
        404, {"error": "Scene 'Nope' not found"})
    assert http("POST", daemon.url("/api/stream/source"),
                {"source_name": "Nope", "visible": True})[:2] == (
        404, {"error": "Source 'Nope' not found in scene 'Live'"})
    assert http("POST", daemon.url("/api/stream/source"), {"source_name": "Banner"})[:2] == (
        400, {"error": "Missing field: visible"})
    assert http("POST", daemon.url("/api/stream/scene"), {"scene_name": 3})[:2] == (
        400, {"error": "scene_name must be a string"})
    assert obs_client.program_scene() == "Live"


def test_changes_made_in_obs_reach_clients_and_the_device(started, obs_client, device):
    daemon, client = started()
    client.event("initial_state")
    obs_client.request("SetCurrentProgramScene", {"sceneName": "Outro"})
    assert client.event("stream_change", lambda e: e["scene"] == "Outro") == {"scene": "Outro"}
    assert device.expect(lambda l: l.startswith("TOAST,") and ",Outro," in l,
                         what="the scene toast").endswith(",9146FF,Outro,Scene switched")
    wait_until(lambda: get_json(daemon, "/api/stream/scenes")["current"] == "Outro",
               what="the new program scene")

    item = obs_client.request("GetSceneItemId", {"sceneName": "Outro", "sourceName": "Backdrop"})
    obs_client.request("SetSceneItemEnabled", {"sceneName": "Outro", "sceneItemEnabled": False,
                                               "sceneItemId": item["sceneItemId"]})
    obs_client.request("StartRecord")
    assert client.event("stream_status", lambda e: e["recording"]) == {
        "connected": True, "streaming": False, "recording": True}
    assert device.expect(lambda l: l.startswith("TOAST,") and "Recording started" in l,
                         what="the recording toast")
    obs_client.request("StopRecord")
    assert client.event("stream_status", lambda e: not e["recording"])["connected"] is True
    device.expect(lambda l: l.startswith("TOAST,") and "Recording stopped" in l,
                  what="the recording-stopped toast")
    # A state read now says what OBS says.
    state = client.call("get_state")
    assert state["stream"]["current"] == "Outro" and state["stream"]["sources"] == SOURCES


def test_a_wrong_password_is_refused_and_never_shown(daemon_factory, data_dir, obs, clients):  # noqa: F811
    secret = "wrong-secret-4711"
    write_settings(data_dir, stream_settings(obs, secret))
    daemon = daemon_factory()
    daemon.wait_log("refused the password", timeout=15)
    client = clients("python", daemon.url(""), "websocket")
    state = client.event("initial_state")
    assert state["stream"] == {"connected": False, "streaming": False, "recording": False,
                               "scenes": [], "current": None, "sources": []}
    bodies = [json.dumps(state)]
    for method, path, body in (("GET", "/api/stream/scenes", None),
                               ("GET", "/api/stream/sources", None),
                               ("POST", "/api/stream/scene", {"scene_name": "Live"}),
                               ("POST", "/api/stream/source",
                                {"source_name": "Banner", "visible": False})):
        status, answer, _ = http(method, daemon.url(path), body)
        assert (status, answer) == (400, NOT_CONNECTED), path
        bodies.append(json.dumps(answer))
    for path in ("/api/status", "/api/macros"):
        bodies.append(json.dumps(get_json(daemon, path)))
    daemon.stop()
    assert not any(secret in b for b in bodies)
    assert not any(secret in line for line in daemon.log), "the password is in the log"


def test_obs_stopped_and_started_again(started, obs, obs_client):  # noqa: F811
    daemon, client = started()
    client.event("initial_state")
    obs_client.close()
    obs.stop()
    assert client.event("stream_status", lambda e: not e["connected"]) == {
        "connected": False, "streaming": False, "recording": False}
    assert http("GET", daemon.url("/api/stream/scenes"))[:2] == (400, NOT_CONNECTED)
    daemon.wait_log("lost")
    obs.start()  # a fresh HOME: Intro is the program scene again
    assert client.event("stream_status", lambda e: e["connected"], timeout=40)["connected"]
    assert client.event("stream_change", lambda e: e["scene"] == "Intro")
    assert get_json(daemon, "/api/stream/scenes") == {"scenes": SCENES, "current": "Intro"}
    # And it still works.
    assert http("POST", daemon.url("/api/stream/scene"), {"scene_name": "Outro"})[0] == 200
    fresh = ObsClient(obs.url)
    try:
        assert fresh.program_scene() == "Outro"
    finally:
        fresh.close()


def test_stream_scene_and_stream_source_macros(started, obs_client):
    daemon, client = started({"macros": macro_set({
        0: {"type": "stream_scene", "name": "Live", "icon": "", "scene_name": "Live"},
        1: {"type": "stream_source", "name": "Banner", "icon": "", "source_name": "Banner",
            "visible": "toggle"},
        2: {"type": "stream_source", "name": "Hide", "icon": "", "source_name": "Backdrop",
            "visible": False},
        3: {"type": "stream_scene", "name": "Nope", "icon": "", "scene_name": "Nope"}})})

    def run(index):
        assert http("POST", daemon.url("/api/macros/trigger"), {"index": index})[0] == 200
        return client.event("macro_executed", lambda e: e["index"] == index)

    assert run(0)["ok"] is True
    assert obs_client.program_scene() == "Live"
    assert run(1)["ok"] is True
    assert obs_client.items("Live") == [("Banner", False), ("Backdrop", True)]
    assert run(1)["ok"] is True
    assert obs_client.items("Live") == [("Banner", True), ("Backdrop", True)]
    assert run(2)["ok"] is True
    assert obs_client.items("Live") == [("Banner", True), ("Backdrop", False)]
    failed = run(3)
    assert (failed["ok"], failed["error"]) == (False, "Scene 'Nope' not found")
    assert obs_client.program_scene() == "Live"


def test_a_bad_url_stops_start_up_with_exit_2(data_dir):
    write_settings(data_dir, {"stream": {"url": "http://127.0.0.1:4455", "password": "hidden-pw"}})
    r = subprocess.run([MIXERD_BIN, "--data-dir", data_dir, "--serial", "none"],
                       capture_output=True, text=True, timeout=20)
    assert r.returncode == 2
    assert "key 'stream.url' must be a ws:// or wss:// URL" in r.stderr
    assert "hidden-pw" not in r.stderr + r.stdout


def test_a_reload_reconnects_on_a_change_and_refuses_a_bad_url(daemon_factory, data_dir, obs,  # noqa: F811
                                                                 clients):  # noqa: F811
    write_settings(data_dir, stream_settings(obs, "wrong-password"))
    daemon = daemon_factory()
    daemon.wait_log("refused the password", timeout=15)
    client = clients("python", daemon.url(""), "websocket")
    assert client.event("initial_state")["stream"]["connected"] is False
    with open(os.path.join(data_dir, "settings.json")) as f:
        settings = json.load(f)
    settings.update(stream_settings(obs))
    write_settings(data_dir, settings)
    # At once, not after the back-off of the refused attempts.
    daemon.proc.send_signal(signal.SIGHUP)
    assert client.event("stream_status", lambda e: e["connected"], timeout=5)["connected"]
    assert get_json(daemon, "/api/stream/scenes")["scenes"] == SCENES

    settings["stream"]["url"] = "ftp://nowhere"
    write_settings(data_dir, settings)
    daemon.proc.send_signal(signal.SIGHUP)
    daemon.wait_log("reload ignored")
    assert get_json(daemon, "/api/stream/scenes")["scenes"] == SCENES
    assert daemon.proc.poll() is None


class SilentObs:
    """A WebSocket server that accepts OBS's subprotocol, sends three unreadable messages and then
    nothing: no Hello. Records the subprotocols each client asked for."""

    def __init__(self):
        import websockets
        self.asked = []
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, daemon=True).start()

        async def handler(ws, _path=None):
            self.asked.append(ws.request_headers.get("Sec-WebSocket-Protocol"))
            for text in ("not json", '{"op": 42, "d": {}}', '{"op": 0, "d": {"rpcVersion": "1"}}'):
                await ws.send(text)
            await ws.wait_closed()

        async def start():
            return await websockets.serve(handler, "127.0.0.1", 0,
                                          subprotocols=["obswebsocket.json"])
        self._server = asyncio.run_coroutine_threadsafe(start(), self._loop).result(10)
        self.url = f"ws://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    def close(self):
        async def stop():
            self._server.close()
            await self._server.wait_closed()
        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)


def test_a_server_that_never_says_hello_holds_nothing_up(daemon_factory, data_dir):
    fake = SilentObs()
    try:
        write_settings(data_dir, {"stream": {"url": fake.url, "password": "pw"}})
        daemon = daemon_factory()
        wait_until(lambda: fake.asked, what="mixerd's connection")
        assert fake.asked[0] == "obswebsocket.json"
        daemon.wait_log("cannot read")
        started = time.monotonic()
        assert http("GET", daemon.url("/api/stream/scenes"))[:2] == (400, NOT_CONNECTED)
        assert http("POST", daemon.url("/api/stream/scene"), {"scene_name": "A"})[:2] == (
            400, NOT_CONNECTED)
        assert get_json(daemon, "/api/status")["connected"] is False
        assert time.monotonic() - started < 2
        daemon.wait_log("no Hello and Identified within 10 s", timeout=15)
        wait_until(lambda: len(fake.asked) >= 2, timeout=5, what="a new attempt after 1 s")
        # Three unreadable messages per connection, one log line per connection.
        assert 1 <= sum("cannot read" in line for line in daemon.log) <= len(fake.asked)
    finally:
        fake.close()
