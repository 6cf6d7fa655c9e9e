"""The example plugins of plugins/examples, copied into DATA_DIR as a user would, against the
real binary and the pty device: a slider line makes slider_alerts show a toast, a `toast_text`
macro runs toast_macro's handler (the now_playing example is in test_plugins_music.py)."""
import os
import shutil

from conftest import get_json, http, wait_until
from plugin_support import PLUGINS_DIR, install, read_settings, wait_state
from socketio_support import clients  # noqa: F401 (a fixture)

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../plugins/examples")


def copy_example(data_dir, name):
    """Copies plugins/examples/<name> into DATA_DIR/plugins/executable/ and returns its id."""
    target = os.path.join(data_dir, PLUGINS_DIR, name)
    shutil.copytree(os.path.join(EXAMPLES, name), target)
    return "io.mixerd.example." + name


def toast(device, text):
    return device.expect(lambda line: line.startswith("TOAST,") and text in line,
                         what=f"a TOAST with {text!r}")


def test_slider_alerts_shows_a_toast_when_a_slider_line_passes_the_threshold(
        daemon_factory, device, data_dir):
    plugin_id = copy_example(data_dir, "slider_alerts")
    daemon = daemon_factory("--serial", device.path)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="connected")
    wait_state(daemon, plugin_id, "running")
    device.send("SLIDER,1,40")
    device.send("SLIDER,1,95")
    assert toast(device, "Slider 2 loud").endswith(",Slider 2 loud,95 is over 90")
    daemon.wait_log("slider 2 rose to 95")
    device.send("ENCODER,2")
    device.send("ENCODER,PRESS")
    assert plugin_id in daemon.wait_log("encoder pressed after +2 detents")


def test_toast_macro_runs_its_macro_type_and_counts_in_its_settings(daemon_factory, device,
                                                                   data_dir, clients):  # noqa: F811
    plugin_id = copy_example(data_dir, "toast_macro")
    daemon = daemon_factory("--serial", device.path)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="connected")
    wait_state(daemon, plugin_id, "running")
    client = clients("python", daemon.url(""), "websocket")
    client.event("initial_state")
    macro = {"type": "plugin", "plugin_type": "toast_text", "name": "Hello", "icon": "",
             "title": "Break time", "text": "Stand up and stretch"}
    status, body = http("PUT", daemon.url("/api/macros/0/2"), macro)[:2]
    assert status == 200, body
    device.send("MACRO,2,PRESS")
    assert client.event("macro_executed", lambda e: e["index"] == 2)["ok"] is True
    assert toast(device, "Break time").endswith(",Break time,Stand up and stretch")
    wait_until(lambda: read_settings(data_dir).get("plugins", {}).get(plugin_id, {})
               .get("settings", {}).get("runs") == 1, what="runs 1 in settings.json")


def test_the_plugin_list_shows_each_manifests_settings_schema(daemon_factory, device, data_dir):
    """GET /api/plugins carries the manifest's settings_schema, so a settings page can draw the
    plugin's fields; a manifest without one shows {}; a PATCH of a setting reaches the plugin."""
    plugin_id = copy_example(data_dir, "slider_alerts")
    bare = install(data_dir, "com.example.bare")
    daemon = daemon_factory("--serial", device.path)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="connected")
    wait_state(daemon, plugin_id, "running")
    listed = {p["id"]: p for p in get_json(daemon, "/api/plugins")["plugins"]}
    assert listed[plugin_id]["settings_schema"] == {
        "alerts": {"type": "boolean", "default": True,
                   "description": "show a notification on the device (else only log)"},
        "threshold": {"type": "integer", "default": 90, "min": 1, "max": 100,
                      "description": "the slider value that raises an alert"}}
    assert listed[bare.id]["settings_schema"] == {}
    status, body = http("PATCH", daemon.url("/api/settings"),
                        {"plugins": {plugin_id: {"settings": {"threshold": 50}}}})[:2]
    assert status == 200, body
    device.send("SLIDER,1,10")
    device.send("SLIDER,1,60")
    assert toast(device, "Slider 2 loud").endswith(",Slider 2 loud,60 is over 50")


def test_a_plugin_setting_its_manifest_refuses_is_refused_by_the_settings_api(
        daemon_factory, device, data_dir):
    plugin_id = copy_example(data_dir, "slider_alerts")
    daemon = daemon_factory("--serial", device.path)
    wait_state(daemon, plugin_id, "running")
    url = daemon.url("/api/settings")
    for value, problem in ((500, "must be at most 100"), ("loud", "must be an integer, not string")):
        status, body, _ = http("PATCH", url, {"plugins": {plugin_id: {"settings": {"threshold": value}}}})
        assert (status, body) == (400, {"error": f"plugins.{plugin_id}.settings.threshold {problem}"})
    status, body, _ = http("PATCH", url, {"plugins": {plugin_id: {"settings": {"volume": 3}}}})
    assert status == 400 and "not in the plugin's settings_schema" in body["error"], body
    assert "plugins" not in read_settings(data_dir)
    # An import is checked the same way, before anything changes.
    exported = get_json(daemon, "/api/config/export")
    exported["settings"]["plugins"] = {plugin_id: {"enabled": True, "settings": {"threshold": 0}}}
    status, body, _ = http("POST", daemon.url("/api/config/import"), exported)
    assert (status, body) == (400, {"error": f"settings.plugins.{plugin_id}.settings.threshold "
                                             "must be at least 1"})
