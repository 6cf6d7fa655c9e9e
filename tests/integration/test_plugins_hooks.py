"""Plugin hooks from their real sources (protocol/README.md, "Plugins", "Hooks and their
sources"): device lines on the pty, the link going and coming, a macro run and a profile load
over REST, settings.json edited and SIGHUP. The plugin is a real python3 process with the SDK
and records every hook it gets (plugin_support.py)."""
import json
import os
import signal

from conftest import get_json, http, wait_until
from plugin_support import install, start_connected

SCHEMA = {"threshold": {"type": "integer", "default": 50, "min": 0, "max": 100,
                        "description": "when to react"},
          "label": {"type": "string", "default": "hi", "description": "a text"}}


def test_device_lines_reach_the_hooks_with_the_contracts_arguments(daemon_factory, device, data_dir):
    plugin = install(data_dir, "test.hooks.recorder")
    daemon = start_connected(daemon_factory, device, plugin)
    cases = [("SLIDER,0,57", "on_slider_change", [1, 57]),
             ("SLIDER,3,0", "on_slider_change", [4, 0]),
             ("MACRO,2,PRESS", "on_macro_button", [2, 0]),
             ("ENCODER,-2", "on_encoder_turn", [-2]),
             ("ENCODER,3", "on_encoder_turn", [3]),
             ("ENCODER,PRESS", "on_encoder_press", ["press"]),
             ("ENCODER,RELEASE", "on_encoder_press", ["release"]),
             ("PAGE,Home Screen", "on_page_change", ["Home Screen"]),
             ("MPAGE,2", "on_macro_page_change", [2]),
             # The page of a button press is the page the device is on now.
             ("MACRO,4,PRESS", "on_macro_button", [4, 2]),
             ("MUTE,1,PRESS", "on_mute_button", [2, True]),
             ("MUTE,1,PRESS", "on_mute_button", [2, False]),
             ("MUTE,MASTER,PRESS", "on_mute_button", ["master", True]),
             ("ADC: OK", "on_serial_receive", ["ADC: OK"])]
    for line, hook, args in cases:
        after = plugin.mark()
        device.send(line)
        plugin.wait_hook(hook, args, after=after)
        # Every device line is also raw serial data for the plugins.
        plugin.wait_hook("on_serial_receive", [line])
    # The mute presses acted on the mixer, and the hook said the result.
    assert get_json(daemon, "/api/mutes") == {"individual": [False, False, False, False],
                                              "master": True}
    # Heartbeat answers and acknowledgements are not handed on; the device sent both meanwhile
    # (ACK for every MUTE/MASTER line above, PONG every 2 s).
    acks = [line for _, line in device.timeline if line.startswith(("MUTE,", "MASTER,"))]
    assert acks, "the host sent no MUTE line, so the device acknowledged nothing"
    raw = [e["args"][0] for e in plugin.hooks("on_serial_receive")]
    assert not [r for r in raw if r.startswith(("ACK", "PONG"))], raw
    # Hooks arrive in the order of their sources.
    sliders = [e["args"] for e in plugin.hooks("on_slider_change")]
    assert sliders == [[1, 57], [4, 0]]


def test_the_link_going_and_coming_back_fires_disconnect_and_connect(daemon_factory, device,
                                                                      data_dir):
    plugin = install(data_dir, "test.hooks.link")
    daemon = start_connected(daemon_factory, device, plugin)
    after = plugin.mark()
    device.unplug()
    plugin.wait_hook("on_device_disconnect", [], after=after)
    after = plugin.mark()
    device.plug()
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], timeout=10, what="reconnect")
    port = get_json(daemon, "/api/status")["port"]
    assert port
    plugin.wait_hook("on_device_connect", [port], after=after)


def test_a_rest_macro_run_and_a_profile_load_reach_their_hooks(daemon_factory, device, data_dir,
                                                               tmp_path):
    touched = tmp_path / "touched"
    macro = {"type": "command", "name": "Touch", "icon": "", "argv": ["touch", str(touched)]}
    pages = {str(p): [{"type": "none", "name": "", "icon": ""}] * 9 for p in range(4)}
    pages["0"] = [macro] + pages["0"][1:]
    plugin = install(data_dir, "test.hooks.macro")
    settings = {"macros": {"current_page": 0, "pages": pages,
                           "page_names": {str(p): f"Page {p + 1}" for p in range(4)}}}
    daemon = start_connected(daemon_factory, device, plugin, settings=settings, data_dir=data_dir)

    status, body = http("POST", daemon.url("/api/macros/trigger"), {"index": 0})[:2]
    assert status == 200, body
    stored = get_json(daemon, "/api/macros")["pages"]["0"][0]
    assert plugin.wait_hook("on_macro_execute")["args"] == [stored]
    # The plugin said False: the macro ran.
    wait_until(touched.exists, what="the command macro's file")

    status, body = http("POST", daemon.url("/api/profiles"), {"name": "Gaming"})[:2]
    assert status == 201, body
    after = plugin.mark()
    status, body = http("POST", daemon.url("/api/profiles/load"), {"name": "Gaming"})[:2]
    assert status == 200, body
    plugin.wait_hook("on_profile_change", ["Gaming"], after=after)


def test_an_edited_own_setting_reaches_on_settings_change_after_sighup(daemon_factory, device,
                                                                       data_dir):
    plugin_id = "test.hooks.settings"
    plugin = install(data_dir, plugin_id, manifest={"settings_schema": SCHEMA})
    settings = {"plugins": {plugin_id: {"enabled": True, "settings": {"threshold": 10}}}}
    daemon = start_connected(daemon_factory, device, plugin, settings=settings, data_dir=data_dir)
    path = os.path.join(data_dir, "settings.json")

    def edit(change):
        with open(path) as f:
            data = json.load(f)
        change(data["plugins"][plugin_id]["settings"])
        with open(path, "w") as f:
            json.dump(data, f)
        daemon.proc.send_signal(signal.SIGHUP)

    after = plugin.mark()
    edit(lambda s: s.update(threshold=20, label="changed"))
    plugin.wait_hook("on_settings_change", ["threshold", 20], after=after)
    plugin.wait_hook("on_settings_change", ["label", "changed"], after=after)
    after = plugin.mark()
    edit(lambda s: s.pop("label"))
    plugin.wait_hook("on_settings_change", ["label", None], after=after)
    # Only what changed: threshold stayed 20.
    assert [e["args"][0] for e in plugin.hooks("on_settings_change")[2:]] == ["label"]
