"""The music capability against real MPRIS players: mpv with the mpv-mpris plugin on a private
session D-Bus (mpris_support.py). What mixerd reports (GET /api/music, music_change,
initial_state) is checked against what mpv plays; what `media` macros do is checked through
mpv's own IPC; track changes reach the device as toasts (docs/api.md, section 2.14)."""
import json
import os
import queue
import signal
import socket
import subprocess
import threading
import time

from conftest import get_json, http, wait_until
from mpris_support import Mpv, SessionBus, make_tracks, mpv_factory, session_bus  # noqa: F401
from socketio_support import clients  # noqa: F401 (a fixture)

EMPTY = {"type": "none", "name": "", "icon": ""}
FIRST = {"player": "mpv", "status": "Playing", "title": "First Tone", "artist": "Alice Example",
         "album": "Test Tones", "art_url": "", "length_ms": 600000}


def media(action):
    return {"type": "media", "name": action, "icon": "music", "action": action}


def write_macros(data_dir, actions):
    """settings.json with page 0's slots 0.. holding media macros of `actions`."""
    slots = [media(a) for a in actions] + [EMPTY] * (9 - len(actions))
    pages = {str(p): slots if p == 0 else [EMPTY] * 9 for p in range(4)}
    os.makedirs(data_dir, exist_ok=True)
    with open(os.path.join(data_dir, "settings.json"), "w") as f:
        json.dump({"macros": {"current_page": 0,
                              "page_names": {str(p): f"Page {p + 1}" for p in range(4)},
                              "pages": pages}}, f)


def titled(body, title):
    return body["state"] is not None and body["state"]["title"] == title


def music(daemon):
    return get_json(daemon, "/api/music")


def trigger(daemon, index):
    return http("POST", daemon.url("/api/macros/trigger"), {"index": index})[:2]


def executed(client, index):
    return client.event("macro_executed", lambda e: e["index"] == index)


class Changes:
    """music_change events of one client that arrive after mark() (an action's own events, not
    earlier ones that happen to match too)."""

    def __init__(self, client):
        self.client = client
        self.mark()

    def mark(self):
        self.old = {id(item) for item in list(self.client.events.seen)}

    def next(self, predicate, timeout=10):
        return self.client.events.expect(
            lambda e: id(e) not in self.old and e[0] == "music_change" and predicate(e[1]),
            timeout, "music_change")[1]


def paused(state):
    return state is not None and state["status"] == "Paused"


def playing(state):
    return state is not None and state["status"] == "Playing"


def start(daemon_factory, clients, bus, *args):  # noqa: F811
    daemon = daemon_factory(*args, env={"DBUS_SESSION_BUS_ADDRESS": bus.address})
    client = clients("python", daemon.url(""), "websocket")
    return daemon, client


def test_metadata_and_status_reach_the_api_the_events_and_initial_state(
        daemon_factory, clients, session_bus, mpv_factory):  # noqa: F811
    player = mpv_factory()
    daemon, client = start(daemon_factory, clients, session_bus)
    # mpv is on the bus before it has read the file's tags: its first title is the file name.
    wait_until(lambda: titled(music(daemon), "First Tone"), what="the track's tags")
    assert music(daemon) == {"connected": True, "state": FIRST}
    # A client joining now gets it in initial_state.
    late = clients("python", daemon.url(""), "websocket")
    assert late.event("initial_state")["music"] == {"connected": True, "state": FIRST}

    changes = Changes(client)
    player.command("set_property", "pause", True)
    assert changes.next(paused) == {**FIRST, "status": "Paused"}
    assert music(daemon)["state"]["status"] == "Paused"
    changes.mark()
    player.command("set_property", "pause", False)
    assert changes.next(playing) == FIRST


def test_media_macros_pause_and_skip_the_player_from_the_api_and_the_device(
        daemon_factory, clients, session_bus, mpv_factory, device, data_dir):  # noqa: F811
    player = mpv_factory()
    write_macros(data_dir, ["pause", "next", "play_pause", "previous"])
    daemon, client = start(daemon_factory, clients, session_bus, "--serial", device.path)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="device connected")
    wait_until(lambda: titled(music(daemon), "First Tone"), what="the track's tags")
    changes = Changes(client)

    # pause, by the API's trigger: mpv itself is paused.
    assert trigger(daemon, 0)[0] == 200
    assert executed(client, 0)["ok"] is True
    wait_until(lambda: player.get("pause") is True, what="mpv paused")
    assert changes.next(paused) == {**FIRST, "status": "Paused"}

    # next, by the device's button: mpv plays the second file, the device shows its toast.
    changes.mark()
    device.send("MACRO,1,PRESS")
    assert executed(client, 1)["ok"] is True
    wait_until(lambda: player.get("playlist-pos") == 1, what="mpv on the second file")
    changed = changes.next(lambda s: s and s["title"] == "Second Tone")
    assert (changed["artist"], changed["status"]) == ("Bob Example", "Paused")
    toast = device.expect(lambda line: line.startswith("TOAST,") and "Second Tone" in line,
                          what="the track change's toast")
    assert toast == "TOAST,3000,play,1DB954,Second Tone,Bob Example"
    assert music(daemon)["state"]["title"] == "Second Tone"

    # play_pause resumes it; previous goes back to the first track.
    changes.mark()
    device.send("MACRO,2,PRESS")
    assert executed(client, 2)["ok"] is True
    wait_until(lambda: player.get("pause") is False, what="mpv playing")
    assert changes.next(playing)["title"] == "Second Tone"
    changes.mark()
    assert trigger(daemon, 3)[0] == 200
    assert executed(client, 3)["ok"] is True
    wait_until(lambda: player.get("playlist-pos") == 0, what="mpv on the first file")
    assert changes.next(lambda s: s and s["title"] == "First Tone") == FIRST


def test_a_media_macro_fails_clearly_without_a_player_or_without_a_bus(
        daemon_factory, clients, session_bus, data_dir, tmp_path):  # noqa: F811
    write_macros(data_dir, ["play_pause"])
    daemon, client = start(daemon_factory, clients, session_bus)
    wait_until(lambda: music(daemon)["connected"], what="connected to the bus")
    assert music(daemon) == {"connected": True, "state": None}
    assert trigger(daemon, 0)[0] == 200
    assert executed(client, 0) == {"page": 0, "index": 0, "name": "play_pause", "ok": False,
                                   "error": "No music player running"}

    # The harness's default: a bus address where there is none.
    other_data = str(tmp_path / "other")
    write_macros(other_data, ["play_pause"])
    other = daemon_factory(data=other_data)
    assert music(other) == {"connected": False, "state": None}
    watcher = clients("python", other.url(""), "websocket")
    assert watcher.event("initial_state")["music"] == {"connected": False, "state": None}
    assert trigger(other, 0)[0] == 200
    assert executed(watcher, 0)["error"] == "Music not available: no session D-Bus"


def test_no_bus_is_connected_false_until_one_appears_and_a_lost_bus_clears_the_state(
        daemon_factory, clients, tmp_path):  # noqa: F811
    bus = SessionBus(tmp_path / "later")
    daemon, client = start(daemon_factory, clients, bus)
    assert client.event("initial_state")["music"] == {"connected": False, "state": None}
    assert music(daemon) == {"connected": False, "state": None}

    # The bus starts after mixerd: found on a retry (back-off from 1 s).
    bus.start()
    try:
        player = Mpv(bus, tmp_path, make_tracks(tmp_path)).wait_on_bus()
        changes = Changes(client)
        assert changes.next(lambda s: s and s["title"] == "First Tone", timeout=15) == FIRST
        assert music(daemon)["connected"] is True

        # The bus goes away: no player, not connected.
        changes.mark()
        bus.proc.send_signal(signal.SIGKILL)
        bus.proc.wait()
        assert changes.next(lambda s: s is None) is None
        assert music(daemon) == {"connected": False, "state": None}
        player.kill()
    finally:
        bus.stop()


def test_a_player_that_quits_leaves_no_state_and_the_active_one_is_the_last_started(
        daemon_factory, clients, session_bus, mpv_factory, tmp_path):  # noqa: F811
    daemon, client = start(daemon_factory, clients, session_bus)
    wait_until(lambda: music(daemon)["connected"], what="connected to the bus")
    changes = Changes(client)
    first = mpv_factory()
    assert changes.next(lambda s: s and s["title"] == "First Tone") == FIRST

    # A second player that starts paused does not take over; once it plays, it does.
    second_dir = tmp_path / "second"
    second_dir.mkdir()
    second = Mpv(session_bus, second_dir, list(reversed(make_tracks(tmp_path))), pause=True)
    try:
        wait_until(lambda: sum(name.startswith("org.mpris.MediaPlayer2.mpv") for name in
                               session_bus.busctl("list", "--no-legend").stdout.split()) == 2,
                   timeout=10, what="the second player on the bus")
        assert music(daemon)["state"] == FIRST
        wait_until(lambda: second.get("media-title") == "Second Tone", what="its tags read")
        changes.mark()
        second.command("set_property", "pause", False)
        assert changes.next(lambda s: s and s["title"] == "Second Tone") == {
            **FIRST, "title": "Second Tone", "artist": "Bob Example"}

        # The first one quits: the second stays active; then it quits too.
        first.quit()
        changes.mark()
        second.command("set_property", "pause", True)
        assert changes.next(paused)["title"] == "Second Tone"
        changes.mark()
        second.quit()  # mpv may say Stopped on its way out
        assert changes.next(lambda s: s is None) is None
        assert music(daemon) == {"connected": True, "state": None}
    finally:
        second.kill()


def test_a_bus_that_accepts_and_stays_silent_holds_nothing_up_and_is_tried_again(
        daemon_factory, tmp_path):
    path = str(tmp_path / "silent-bus")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen(8)
    accepted = queue.Queue()

    def accept():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            accepted.put((time.monotonic(), conn))

    threading.Thread(target=accept, daemon=True).start()
    try:
        daemon = daemon_factory(env={"DBUS_SESSION_BUS_ADDRESS": "unix:path=" + path})
        first, _ = accepted.get(timeout=10)
        # The daemon answers at once while its bus attempt hangs.
        asked = time.monotonic()
        assert music(daemon) == {"connected": False, "state": None}
        assert time.monotonic() - asked < 1
        # The attempt is given up (5 s) and a new one made after the back-off (1 s).
        second, _ = accepted.get(timeout=15)
        assert 5 <= second - first < 10
        daemon.wait_log("session D-Bus did not answer within 5000 ms")
        assert music(daemon) == {"connected": False, "state": None}
    finally:
        listener.close()


def test_a_player_that_could_not_be_read_at_first_is_read_again_on_its_next_signal(
        daemon_factory, clients, session_bus, tmp_path):  # noqa: F811
    daemon, client = start(daemon_factory, clients, session_bus)
    wait_until(lambda: music(daemon)["connected"], what="connected to the bus")
    script = os.path.join(os.path.dirname(__file__), "mpris_late_player.py")
    player = subprocess.Popen(["/usr/bin/python3", script, session_bus.address],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert player.stdout.readline().strip() == "ready"
        # mixerd reads it as soon as the name appears; both reads fail.
        assert [player.stdout.readline().strip() for _ in range(2)] == [
            "refused org.mpris.MediaPlayer2", "refused org.mpris.MediaPlayer2.Player"]
        assert music(daemon) == {"connected": True, "state": None}

        changes = Changes(client)
        for command in ("serve", "play"):
            player.stdin.write(command + "\n")
            player.stdin.flush()
            assert player.stdout.readline().strip() == "done " + command
        late = {"player": "Late Player", "status": "Playing", "title": "Late Tone", "artist": "",
                "album": "", "art_url": "", "length_ms": 0}
        assert changes.next(lambda s: s is not None) == late
        assert music(daemon) == {"connected": True, "state": late}
    finally:
        player.kill()
        player.wait()
