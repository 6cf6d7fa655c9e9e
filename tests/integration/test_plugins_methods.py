"""Plugin methods, each observed from outside (protocol/README.md, "Plugins", "Methods"): lines on
the pty, REST state, settings.json, the daemon log. The calls come from a thread of the plugin's
own (its control socket, plugin_support.py), as the SDK allows from any thread."""
import pytest

from conftest import get_json, http, macro_set, wait_until
from plugin_support import PluginError, install, read_settings, start_connected
from socketio_support import clients  # noqa: F401 (a fixture)

SCHEMA = {"threshold": {"type": "integer", "default": 50, "min": 0, "max": 100,
                        "description": "when to react"},
          "ratio": {"type": "number", "default": 0.5, "description": "a number"},
          "label": {"type": "string", "default": "hi", "description": "a text"},
          "loud": {"type": "boolean", "default": False, "description": "a switch"}}


def raises(kind, plugin, method, *args, **kwargs):
    with pytest.raises(PluginError) as e:
        plugin.call(method, *args, **kwargs)
    assert e.value.kind == kind, e.value
    return e.value


def test_send_serial_and_show_notification_reach_the_device(daemon_factory, device, data_dir):
    plugin = install(data_dir, "test.methods.device")
    start_connected(daemon_factory, device, plugin)
    assert plugin.call("send_serial", "BRIGHTNESS,40") is True
    device.expect("BRIGHTNESS,40")
    for bad in ("", "A\nB", "A\x01B", "X" * 256):
        raises("ValueError", plugin, "send_serial", bad)
    assert plugin.call("show_notification", "Plugin says", "hello there") is True
    toast = device.expect(lambda line: line.startswith("TOAST,") and "Plugin says" in line,
                          what="the plugin's toast")
    assert toast.endswith(",Plugin says,hello there"), toast
    raises("ValueError", plugin, "show_notification", "", "x")
    raises("ValueError", plugin, "show_notification", "T" * 31, "x")
    raises("ValueError", plugin, "show_notification", "T", "m" * 41)
    # Nothing of the refused calls reached the device.
    device.send("ADC: OK")  # a line back and forth, so the queue has everything sent so far
    plugin.wait_hook("on_serial_receive", ["ADC: OK"])
    assert plugin.call("send_serial", "VER") is True
    device.expect("VER")
    sent = [line for _, line in device.timeline]
    assert not [s for s in sent if s.startswith("A") or s.startswith("XXXX")], sent
    assert len([s for s in sent if s.startswith("TOAST,") and "Plugin says" in s]) == 1


def test_send_serial_without_a_device_is_false(daemon_factory, data_dir):
    plugin = install(data_dir, "test.methods.nodevice")
    daemon_factory("--serial", "none")
    plugin.wait_hook("on_enable")
    assert plugin.call("send_serial", "PING") is False
    assert plugin.call("get_device_state")["connected"] is False


def test_getters_agree_with_the_rest_api(daemon_factory, device, data_dir):
    plugin = install(data_dir, "test.methods.getters")
    macro = {"type": "mute", "name": "Mic", "icon": "mic", "target": 2}
    daemon = start_connected(daemon_factory, device, plugin, data_dir=data_dir,
                             settings={"macros": macro_set({3: macro})})
    assert http("POST", daemon.url("/api/sliders/3"), {"value": 61})[0] == 200
    assert http("POST", daemon.url("/api/mutes/2"))[0] == 200
    assert http("POST", daemon.url("/api/volume/master"), {"value": 37})[0] == 200
    wait_until(lambda: get_json(daemon, "/api/volume/master")["volume"] == 37, what="volume")
    assert plugin.call("get_slider_value", 3) == 61
    assert plugin.call("get_slider_value", 1) == get_json(daemon, "/api/sliders")["sliders"][0]["value"]
    for bad in (0, 5):
        raises("ValueError", plugin, "get_slider_value", bad)
    status = get_json(daemon, "/api/status")
    expected = {"connected": True, "port": status["port"], "page": status["page"],
                "firmware_version": status["firmware_version"],
                "sliders": get_json(daemon, "/api/sliders")["sliders"],
                "mutes": get_json(daemon, "/api/mutes"),
                "volume": 37}
    assert plugin.call("get_device_state") == expected
    assert expected["mutes"]["individual"][1] is True and expected["sliders"][2]["value"] == 61
    assert plugin.call("get_all_macros") == get_json(daemon, "/api/macros")
    assert plugin.call("get_all_macros")["pages"]["0"][3] == macro
    # No player on the (absent) session bus.
    assert plugin.call("get_music_state") is None


def test_settings_are_checked_saved_and_read_back(daemon_factory, device, data_dir):
    plugin_id = "test.methods.settings"
    plugin = install(data_dir, plugin_id, manifest={"settings_schema": SCHEMA})
    start_connected(daemon_factory, device, plugin)
    defaults = {"threshold": 50, "ratio": 0.5, "label": "hi", "loud": False}
    assert plugin.call("get_all_settings") == defaults
    assert plugin.call("get_setting", "threshold") == 50
    assert plugin.call("get_setting", "nothing", "fallback") == "fallback"
    assert plugin.call("set_setting", "threshold", 70) is True
    assert plugin.call("set_setting", "label", "bright") is True
    assert plugin.call("set_setting", "ratio", 2) is True  # an integer is a number
    assert plugin.call("get_setting", "threshold") == 70
    assert plugin.call("get_all_settings") == {**defaults, "threshold": 70, "label": "bright",
                                               "ratio": 2}
    for key, value in (("threshold", 101), ("threshold", -1), ("threshold", "70"),
                       ("threshold", 7.5), ("threshold", True), ("label", 3), ("loud", 1),
                       ("ratio", "x"), ("unknown", 1)):
        raises("ValueError", plugin, "set_setting", key, value)
    wait_until(lambda: read_settings(data_dir).get("plugins", {}).get(plugin_id, {})
               .get("settings") == {"threshold": 70, "label": "bright", "ratio": 2},
               what="the plugin's settings in settings.json")


def test_settings_without_a_schema_are_bounded_in_all(daemon_factory, data_dir):
    plugin_id = "test.methods.free_settings"
    plugin = install(data_dir, plugin_id)
    daemon_factory("--serial", "none")
    plugin.wait_hook("on_enable")
    chunk = "x" * (60 * 1024)
    for i in range(4):  # 240 KiB in all: kept
        assert plugin.call("set_setting", f"k{i}", chunk) is True
    raises("ValueError", plugin, "set_setting", "k4", chunk)  # would pass 256 KiB
    raises("ValueError", plugin, "set_setting", "big", "x" * (65 * 1024))  # one over 64 KiB
    assert plugin.call("set_setting", "k0", "small") is True  # replacing one makes room
    assert plugin.call("set_setting", "k4", chunk) is True
    wait_until(lambda: sorted(read_settings(data_dir).get("plugins", {}).get(plugin_id, {})
                              .get("settings", {})) == ["k0", "k1", "k2", "k3", "k4"],
               what="the plugin's five settings in settings.json")


def test_log_lands_in_the_daemon_log_tagged_with_the_plugin(daemon_factory, data_dir):
    plugin = install(data_dir, "test.methods.log")
    daemon = daemon_factory("--serial", "none")
    plugin.wait_hook("on_enable")
    assert plugin.call("log", "hello from the plugin") is None
    assert plugin.call("log", "careful now", level="warning") is None
    line = daemon.wait_log("hello from the plugin")
    assert "test.methods.log" in line, line
    assert "test.methods.log" in daemon.wait_log("careful now")
    raises("ValueError", plugin, "log", "x", level="loud")


def test_trigger_macro_runs_the_macro(daemon_factory, device, data_dir, tmp_path, clients):  # noqa: F811
    touched = tmp_path / "touched"
    slow = tmp_path / "slow-go"
    plugin = install(data_dir, "test.methods.trigger")
    macros = macro_set({
        0: {"type": "command", "name": "Touch", "icon": "", "argv": ["touch", str(touched)]},
        1: {"type": "command", "name": "Wait", "icon": "",
            "argv": ["sh", "-c", f"while [ ! -e {slow} ]; do sleep 0.05; done"]}})
    daemon = start_connected(daemon_factory, device, plugin, data_dir=data_dir,
                             settings={"macros": macros})
    client = clients("python", daemon.url(""), "websocket")
    client.event("initial_state")
    assert plugin.call("trigger_macro", 0) is True
    assert client.event("macro_executed", lambda e: e["index"] == 0)["ok"] is True
    assert touched.exists()
    assert plugin.call("trigger_macro", 1, page=0) is True
    assert plugin.call("trigger_macro", 1) is False  # still running
    slow.touch()
    assert client.event("macro_executed", lambda e: e["index"] == 1)["ok"] is True
    assert plugin.call("trigger_macro", 5) is False  # empty slot
    for args in ((9,), (-1,), (0, 4)):
        raises("ValueError", plugin, "trigger_macro", *args)
