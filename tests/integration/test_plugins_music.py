"""on_music_track_change from a real MPRIS player (mpv on a private session bus,
mpris_support.py), get_music_state compared with GET /api/music, and the now_playing example."""
import os
import shutil

from conftest import get_json, wait_until, write_settings
from mpris_support import mpv_factory, session_bus  # noqa: F401 (fixtures)
from plugin_support import PLUGINS_DIR, install, wait_state
from test_plugins_examples import EXAMPLES


def test_a_track_change_reaches_the_hook_and_a_pause_does_not(daemon_factory, session_bus,  # noqa: F811
                                                              mpv_factory, data_dir):  # noqa: F811
    plugin = install(data_dir, "test.music.tracks")
    player = mpv_factory()
    daemon = daemon_factory("--serial", "none", env={"DBUS_SESSION_BUS_ADDRESS": session_bus.address})
    wait_state(daemon, plugin.id, "running")
    wait_until(lambda: (get_json(daemon, "/api/music")["state"] or {}).get("title") == "First Tone",
               what="the first track's tags")
    assert plugin.call("get_music_state") == get_json(daemon, "/api/music")["state"]

    after = plugin.mark()
    player.command("playlist-next")
    entry = plugin.wait_hook("on_music_track_change", after=after)
    while entry["args"][0]["title"] != "Second Tone":  # the file name may come before the tags
        entry = plugin.wait_hook("on_music_track_change", after=plugin.hooks().index(entry) + 1)
    state = wait_until(lambda: (lambda s: s if s and s["title"] == "Second Tone" else None)(
        get_json(daemon, "/api/music")["state"]), what="the second track in the API")
    assert entry["args"] == [state]
    assert state["artist"] == "Bob Example"

    # A pause is no track change: the next hook is the next track's.
    after = plugin.mark()
    player.command("set_property", "pause", True)
    wait_until(lambda: get_json(daemon, "/api/music")["state"]["status"] == "Paused",
               what="paused")
    assert plugin.call("get_music_state")["status"] == "Paused"
    player.command("playlist-prev")
    entry = plugin.wait_hook("on_music_track_change", after=after)
    assert entry["args"][0]["title"] == "First Tone", plugin.hooks()[after:]


def test_the_now_playing_example_shows_the_new_track_on_the_device(
        daemon_factory, session_bus, mpv_factory, device, data_dir):  # noqa: F811
    shutil.copytree(os.path.join(EXAMPLES, "now_playing"),
                    os.path.join(data_dir, PLUGINS_DIR, "now_playing"))
    # The music handler would show the same text: only the plugin's toast may reach the device.
    write_settings(data_dir, {"toast_handlers": {"music": False}})
    player = mpv_factory()
    daemon = daemon_factory("--serial", device.path,
                            env={"DBUS_SESSION_BUS_ADDRESS": session_bus.address})
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="connected")
    wait_state(daemon, "io.mixerd.example.now_playing", "running")
    wait_until(lambda: (get_json(daemon, "/api/music")["state"] or {}).get("title") == "First Tone",
               what="the first track's tags")
    player.command("playlist-next")
    line = device.expect(lambda l: l.startswith("TOAST,") and "Second Tone" in l, timeout=10,
                         what="the plugin's toast")
    assert line.endswith(",Second Tone,Bob Example"), line
