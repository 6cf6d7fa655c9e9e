"""The real OBS Studio (29, with its built-in obs-websocket 5) for the stream tests.

OBS runs headless under its own Xvfb, inside a private network namespace (`unshare -n`): it
listens on every interface and its services plugin tries to reach the internet, neither of
which a test may allow. Xvfb is in the namespace too (its abstract socket is per namespace).

mixerd and the tests' own OBS client stay outside. They reach OBS through a relay in this
process: a TCP listener on 127.0.0.1 (outside) whose every connection is paired with a
connection to 127.0.0.1:4455 made from a thread that entered OBS's namespace (setns(2) on a
network namespace changes only the calling thread). Running mixerd inside the namespace instead
would put it out of reach of the HTTP and Socket.IO clients of the tests.

Every `ObsStudio` gets a fresh HOME with a pristine configuration written here (OBS rewrites
global.ini and the scene collection while it runs): three scenes and two color sources, the
WebSocket server on with a password. `ObsClient` speaks obs-websocket 5 through the relay
(python3-websockets) to check what mixerd did and to act as a user would.
"""
import asyncio
import base64
import ctypes
import hashlib
import json
import os
import queue
import select
import shutil
import signal
import socket
import subprocess
import threading
import time

import pytest

from xserver_support import XServer

OBS = shutil.which("obs")
PASSWORD = "testpass123"
OBS_PORT = 4455
# The scene list as OBS's UI shows it (top first), and the sources of SCENES[0] as its sources
# list shows them (top first). In the collection file a scene's items are stored bottom first.
SCENES = ["Intro", "Live", "Outro"]
SOURCES = ["Banner", "Backdrop"]

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def missing_reason():
    """Why OBS cannot run here, or None."""
    for name, path in (("obs", OBS), ("Xvfb", shutil.which("Xvfb")), ("unshare", shutil.which("unshare")),
                       ("nsenter", shutil.which("nsenter"))):
        if not path:
            return f"{name} is not installed (tools/install-deps.sh --with-tests installs obs-studio)"
    return None


def auth_string(password, salt, challenge):
    """obs-websocket 5's authentication: base64(sha256(base64(sha256(password + salt)) + challenge))."""
    secret = base64.b64encode(hashlib.sha256((password + salt).encode()).digest())
    return base64.b64encode(hashlib.sha256(secret + challenge.encode()).digest()).decode()


def _color_source(name, abgr):
    return {"name": name, "id": "color_source_v3", "versioned_id": "color_source_v3",
            "settings": {"color": abgr, "width": 320, "height": 180}, "enabled": True,
            "volume": 1.0, "mixers": 0, "flags": 0, "muted": False, "sync": 0}


def _scene(name, items):
    """items: source names bottom first, as the collection file stores them."""
    return {"name": name, "id": "scene", "versioned_id": "scene", "enabled": True, "flags": 0,
            "mixers": 0, "volume": 1.0, "muted": False, "sync": 0,
            "settings": {"custom_size": False, "id_counter": len(items),
                         "items": [{"name": n, "id": i + 1, "visible": True, "locked": False,
                                    "pos": {"x": 0.0, "y": 0.0}, "scale": {"x": 1.0, "y": 1.0},
                                    "rot": 0.0, "align": 5, "bounds_type": 0,
                                    "bounds": {"x": 0.0, "y": 0.0}, "bounds_align": 0,
                                    "crop_left": 0, "crop_top": 0, "crop_right": 0,
                                    "crop_bottom": 0}
                                   for i, n in enumerate(items)]}}


def write_config(home, password=PASSWORD):
    """The pristine configuration of one OBS run in `home`."""
    conf = os.path.join(home, ".config", "obs-studio")
    os.makedirs(os.path.join(conf, "basic", "profiles", "Test"), exist_ok=True)
    os.makedirs(os.path.join(conf, "basic", "scenes"), exist_ok=True)
    with open(os.path.join(conf, "global.ini"), "w") as f:
        f.write("[General]\nFirstRun=true\nLastVersion=486539266\n"
                "[Basic]\nProfile=Test\nProfileDir=Test\nSceneCollection=Test\n"
                "SceneCollectionFile=Test\n"
                "[OBSWebSocket]\nFirstLoad=false\nServerEnabled=true\n"
                f"ServerPort={OBS_PORT}\nAlertsEnabled=false\nAuthRequired=true\n"
                f"ServerPassword={password}\n")
    with open(os.path.join(conf, "basic", "profiles", "Test", "basic.ini"), "w") as f:
        # Recordings (RecordStateChanged) go to a folder of this HOME.
        f.write("[General]\nName=Test\n[Video]\nBaseCX=320\nBaseCY=180\nOutputCX=320\n"
                "OutputCY=180\nFPSType=0\nFPSCommon=10\n[Output]\nMode=Simple\n"
                f"[SimpleOutput]\nFilePath={home}\nRecFormat=mkv\nRecQuality=Stream\n"
                "VBitrate=300\nABitrate=64\n")
    sources = [_color_source("Banner", 4278190335), _color_source("Backdrop", 4294901760)]
    # Every scene holds both sources, Backdrop at the bottom.
    sources += [_scene(name, list(reversed(SOURCES))) for name in SCENES]
    collection = {"name": "Test", "current_scene": SCENES[0], "current_program_scene": SCENES[0],
                  "scene_order": [{"name": n} for n in SCENES], "sources": sources,
                  "groups": [], "transitions": [], "current_transition": "Cut",
                  "transition_duration": 300, "quick_transitions": [], "saved_projectors": [],
                  "preview_locked": False, "scaling_enabled": False, "scaling_level": 0,
                  "scaling_off_x": 0.0, "scaling_off_y": 0.0, "modules": {}}
    with open(os.path.join(conf, "basic", "scenes", "Test.json"), "w") as f:
        json.dump(collection, f)


class Namespace:
    """A private network namespace with its loopback up, held by a sleeping process."""

    def __init__(self):
        self.proc = subprocess.Popen(
            ["unshare", "-n", "sh", "-c", "ip link set lo up && echo up && exec sleep 100000"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if line.strip() != "up":
            self.proc.kill()
            raise AssertionError("no network namespace: " + self.proc.stderr.read())
        self.path = f"/proc/{self.proc.pid}/ns/net"

    def command(self, args):
        return ["nsenter", f"--net={self.path}", "--", *args]

    def connect(self, port, timeout=2.0):
        """A TCP connection to 127.0.0.1:port inside the namespace (raises OSError)."""
        out = {}

        def run():
            fd = os.open(self.path, os.O_RDONLY)
            try:
                if _libc.setns(fd, CLONE_NEWNET) != 0:
                    out["error"] = OSError(ctypes.get_errno(), "setns failed")
                    return
            finally:
                os.close(fd)
            try:
                out["sock"] = socket.create_connection(("127.0.0.1", port), timeout=timeout)
                out["sock"].settimeout(None)
            except OSError as e:
                out["error"] = e

        t = threading.Thread(target=run, daemon=True)
        t.start()
        t.join()
        if "error" in out:
            raise out["error"]
        return out["sock"]

    def close(self):
        self.proc.kill()
        self.proc.wait()


class Relay:
    """127.0.0.1:<port> outside -> 127.0.0.1:<target> inside the namespace, byte for byte. A
    connection made while nothing listens inside is closed at once (as a refused one would be)."""

    def __init__(self, namespace, target):
        self.namespace = namespace
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self._stop = threading.Event()
        self._open = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self._stop.is_set():
            ready, _, _ = select.select([self.listener], [], [], 0.1)
            if not ready:
                continue
            try:
                outside, _ = self.listener.accept()
            except OSError:
                continue
            try:
                inside = self.namespace.connect(self.target)
            except OSError:
                outside.close()
                continue
            with self._lock:
                self._open.update((outside, inside))
            threading.Thread(target=self._pump, args=(outside, inside), daemon=True).start()

    def _pump(self, a, b):
        pair = [a, b]
        try:
            while not self._stop.is_set():
                ready, _, _ = select.select(pair, [], [], 0.1)
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    (b if s is a else a).sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                for s in pair:
                    self._open.discard(s)
                    s.close()

    def drop_all(self):
        """Cuts every relayed connection (as OBS vanishing from the network would)."""
        with self._lock:
            for s in list(self._open):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        self._stop.set()
        self.drop_all()
        self.listener.close()


class ObsStudio:
    """Xvfb and OBS inside `namespace`, HOME a fresh folder under `base`."""

    def __init__(self, namespace, base):
        self.namespace = namespace
        self.base = base
        self.xvfb = None
        self.display = None
        self.proc = None
        self.runs = 0
        self.log_path = None

    def start(self, fresh_home=True, timeout=30):
        """Starts OBS (a fresh HOME unless `fresh_home` is false) and waits until its WebSocket
        server identifies a client."""
        if self.xvfb is None:
            self.xvfb = XServer(screen="640x480x24", wrap=self.namespace.command)
            self.display = self.xvfb.display
        self.runs += 1
        if fresh_home or not hasattr(self, "home"):
            self.home = os.path.join(self.base, f"home{self.runs}")
            os.makedirs(self.home)
            write_config(self.home)
        env = {"HOME": self.home, "DISPLAY": self.display, "LIBGL_ALWAYS_SOFTWARE": "1",
               "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
               "XDG_RUNTIME_DIR": self.home}
        self.log_path = os.path.join(self.base, f"obs{self.runs}.log")
        log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            self.namespace.command([OBS, "--multi", "--minimize-to-tray",
                                    "--disable-missing-files-check", "--disable-updater"]),
            env=env, cwd=self.home, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
        log.close()
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"OBS exited with {self.proc.returncode}: " + self.log_tail())
            try:
                sock = self.namespace.connect(OBS_PORT, timeout=1)
                sock.close()
                return self
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("OBS's WebSocket server never listened: " + self.log_tail())
            time.sleep(0.1)  # OBS gives no readiness signal but its listening socket

    def log_tail(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-3000:]
        except OSError:
            return ""

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def close(self):
        self.stop()
        if self.xvfb:
            self.xvfb.stop()
            self.xvfb = None


class ObsClient:
    """An obs-websocket 5 client (python3-websockets, on its own asyncio loop in a thread).
    `request` waits for the answer; every event lands in `events` as (eventType, eventData)."""

    def __init__(self, url, password=PASSWORD, timeout=10):
        self.events = queue.Queue()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._pending = {}
        self._ids = 0
        self._ws = self._run(self._open(url, password), timeout)

    def _run(self, coro, timeout):
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    async def _open(self, url, password):
        import websockets
        ws = await websockets.connect(url, subprotocols=["obswebsocket.json"])
        hello = json.loads(await ws.recv())
        assert hello["op"] == 0, hello
        identify = {"rpcVersion": 1}
        auth = hello["d"].get("authentication")
        if auth:
            identify["authentication"] = auth_string(password, auth["salt"], auth["challenge"])
        await ws.send(json.dumps({"op": 1, "d": identify}))
        identified = json.loads(await ws.recv())
        assert identified["op"] == 2, identified
        self._reader = self._loop.create_task(self._read(ws))
        return ws

    async def _read(self, ws):
        try:
            async for text in ws:
                msg = json.loads(text)
                if msg["op"] == 5:
                    self.events.put((msg["d"]["eventType"], msg["d"].get("eventData", {})))
                elif msg["op"] == 7:
                    fut = self._pending.pop(msg["d"]["requestId"], None)
                    if fut:
                        fut.set_result(msg["d"])
        except Exception:  # noqa: BLE001 - a closed connection ends the reader
            pass

    async def _request(self, request_type, data):
        self._ids += 1
        rid = str(self._ids)
        fut = self._loop.create_future()
        self._pending[rid] = fut
        body = {"requestType": request_type, "requestId": rid}
        if data is not None:
            body["requestData"] = data
        await self._ws.send(json.dumps({"op": 6, "d": body}))
        return await fut

    def request(self, request_type, data=None, timeout=10):
        """responseData of a successful request; AssertionError otherwise."""
        answer = self._run(self._request(request_type, data), timeout)
        status = answer["requestStatus"]
        assert status["result"], (request_type, status)
        return answer.get("responseData", {})

    def scene_names(self):
        """The scene list as OBS's UI shows it (GetSceneList gives it bottom first)."""
        return [s["sceneName"] for s in reversed(self.request("GetSceneList")["scenes"])]

    def program_scene(self):
        return self.request("GetSceneList")["currentProgramSceneName"]

    def items(self, scene):
        """[(sourceName, enabled)] top first (GetSceneItemList gives them bottom first)."""
        listed = self.request("GetSceneItemList", {"sceneName": scene})["sceneItems"]
        return [(i["sourceName"], i["sceneItemEnabled"]) for i in reversed(listed)]

    def event(self, event_type, predicate=lambda data: True, timeout=10):
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"OBS never sent {event_type}; got {seen}")
            try:
                kind, data = self.events.get(timeout=left)
            except queue.Empty:
                continue
            seen.append(kind)
            if kind == event_type and predicate(data):
                return data

    def close(self):
        if self._loop.is_closed():
            return

        async def shut():
            await self._ws.close()
        try:
            self._run(shut(), 5)
        except Exception:  # noqa: BLE001 - OBS may be gone already
            pass
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()


@pytest.fixture(scope="module")
def obs(tmp_path_factory):
    """OBS running in its namespace for one test module; `.relay.port` is where to reach it."""
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    base = str(tmp_path_factory.mktemp("obs"))
    namespace = Namespace()
    studio = ObsStudio(namespace, base)
    relay = Relay(namespace, OBS_PORT)
    studio.relay = relay
    studio.url = f"ws://127.0.0.1:{relay.port}"
    try:
        studio.start()
        yield studio
    finally:
        relay.close()
        studio.close()
        namespace.close()
