"""Plugins and macros: on_macro_execute answering True stops the host's own run, False or too
late (over 1 s) lets it run; a `plugin` macro runs the handler its plugin registered with
register_macro_type (protocol/README.md, "Plugins"; docs/api.md, "Macros")."""
import pytest

from conftest import get_json, http, macro_set
from plugin_support import PluginError, install, start_connected
from socketio_support import clients  # noqa: F401 (a fixture)



def touch_macro(name, path):
    return {"type": "command", "name": name, "icon": "", "argv": ["touch", str(path)]}


def test_on_macro_execute_true_stops_the_macro_false_and_late_let_it_run(
        daemon_factory, device, data_dir, tmp_path, clients):  # noqa: F811
    files = {name: tmp_path / name for name in ("stop", "go", "slow")}
    plugin = install(data_dir, "test.macros.gate",
                     act={"on_macro_execute": {"Stop": {"return": True},
                                               "Go": {"return": False},
                                               "Slow": {"sleep": 2.5, "return": True}}})
    settings = {"macros": macro_set({0: touch_macro("Stop", files["stop"]),
                                       1: touch_macro("Go", files["go"]),
                                       2: touch_macro("Slow", files["slow"])})}
    daemon = start_connected(daemon_factory, device, plugin, settings=settings, data_dir=data_dir)
    client = clients("python", daemon.url(""), "websocket")
    client.event("initial_state")

    # Handled by the plugin: the host does not run it (a press on the device, as a user would).
    device.send("MACRO,0,PRESS")
    plugin.wait_hook("on_macro_execute", [get_json(daemon, "/api/macros")["pages"]["0"][0]])
    # Not handled: it runs. Started after the first, so once its file is there the first would
    # have had the same time to run.
    assert http("POST", daemon.url("/api/macros/trigger"), {"index": 1})[0] == 200
    assert client.event("macro_executed", lambda e: e["index"] == 1)["ok"] is True
    assert files["go"].exists()
    assert not files["stop"].exists()

    # The plugin answers True after 2.5 s: too late, the host ran it after about 1 s.
    assert http("POST", daemon.url("/api/macros/trigger"), {"index": 2}, timeout=10)[0] == 200
    done = client.event("macro_executed", lambda e: e["index"] == 2, timeout=10)
    assert done["ok"] is True and files["slow"].exists()
    plugin.wait_hook("on_macro_execute", [get_json(daemon, "/api/macros")["pages"]["0"][2]])


def test_a_plugin_macro_runs_the_registered_handler(daemon_factory, device, data_dir, clients):  # noqa: F811
    owner = install(data_dir, "test.macros.owner")
    other = install(data_dir, "test.macros.other")
    daemon = start_connected(daemon_factory, device, owner, other)
    client = clients("python", daemon.url(""), "websocket")
    client.event("initial_state")
    assert owner.call("register_macro_type", "counter", handler_returns=True) is True
    assert owner.call("register_macro_type", "failing", handler_returns=False) is True
    with pytest.raises(PluginError) as e:
        other.call("register_macro_type", "counter")
    assert e.value.kind == "ValueError"
    with pytest.raises(PluginError) as e:
        other.call("register_macro_type", "bad name!")
    assert e.value.kind == "ValueError"

    macro = {"type": "plugin", "name": "Count", "icon": "", "plugin_type": "counter", "step": 3}
    status, body = http("PUT", daemon.url("/api/macros/0/4"), macro)[:2]
    assert status == 200, body
    assert http("POST", daemon.url("/api/macros/trigger"), {"index": 4})[0] == 200
    assert client.event("macro_executed", lambda e: e["index"] == 4)["ok"] is True
    assert owner.wait_hook("macro_type")["args"] == ["counter", body["macro"]]
    assert body["macro"]["step"] == 3
    assert other.hooks("macro_type") == []

    failing = {**macro, "name": "Fail", "plugin_type": "failing"}
    assert http("PUT", daemon.url("/api/macros/0/5"), failing)[0] == 200
    device.send("MACRO,5,PRESS")
    result = client.event("macro_executed", lambda e: e["index"] == 5)
    assert result["ok"] is False and result["error"], result
    owner.wait_hook("macro_type", ["failing", {**failing}])

    # A type nobody registered fails with a reason, and nothing else happens.
    nobody = {**macro, "name": "Nobody", "plugin_type": "unowned"}
    assert http("PUT", daemon.url("/api/macros/0/6"), nobody)[0] == 200
    assert http("POST", daemon.url("/api/macros/trigger"), {"index": 6})[0] == 200
    result = client.event("macro_executed", lambda e: e["index"] == 6)
    assert result["ok"] is False and result["error"], result
