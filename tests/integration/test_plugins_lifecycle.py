"""Enabling and disabling plugins through the API (protocol/README.md, "Plugins"; docs/api.md,
"Plugins"): the lifecycle hooks in order, the switch persisted in settings.json and honoured at
the next start, plugin_status at a Socket.IO client, the `plugins` toast handler's `loaded`, and
no plugin process left behind."""
import signal

from conftest import http, wait_until
from plugin_support import install, plugin_info, plugin_list, plugin_processes, read_settings, \
    start_connected, switch, wait_state, zombie_children
from socketio_support import clients  # noqa: F401 (a fixture)


def plugins_loaded(daemon):
    key = read_settings(daemon.data_dir)["toast_api_key"]
    status, body, _ = http("GET", daemon.url("/api/toast/handlers", "notification API"),
                           headers={"X-API-Key": key})
    assert status == 200, body
    return next(h for h in body["handlers"] if h["id"] == "plugins")["loaded"]


def test_disable_and_enable_call_the_lifecycle_hooks_in_order_and_persist(
        daemon_factory, device, data_dir, clients):  # noqa: F811
    plugin = install(data_dir, "test.life.switch")
    daemon = start_connected(daemon_factory, device, plugin)
    assert [n for n in plugin.names() if n.startswith("on_") and n.endswith(("load", "able"))] \
        == ["on_load", "on_enable"]
    info = plugin_info(daemon, plugin.id)
    assert info == {"id": plugin.id, "name": "Switch", "version": "1.0.0", "api_version": "1.0",
                    "enabled": True, "state": "running", "restarts": 0, "last_error": "",
                    "settings_schema": {}}, info
    assert plugins_loaded(daemon) is True
    client = clients("python", daemon.url(""), "websocket")
    client.event("initial_state")
    first_pid = plugin.hooks()[0]["pid"]

    after = plugin.mark()
    status, body = switch(daemon, plugin.id, False)
    assert status == 200 and body["success"] is True and body["plugin"]["enabled"] is False, body
    wait_state(daemon, plugin.id, "stopped")
    plugin.wait_hook("on_unload", after=after)
    assert [e["hook"] for e in plugin.hooks()[after:]] == ["on_disable", "on_unload"]
    assert client.event("plugin_status", lambda p: p["id"] == plugin.id and p["state"] == "stopped")
    wait_until(lambda: first_pid not in plugin_processes(data_dir), what="the process to end")
    wait_until(lambda: not zombie_children(daemon.proc.pid), what="the process to be reaped")
    wait_until(lambda: plugins_loaded(daemon) is False, what="loaded false")
    wait_until(lambda: read_settings(data_dir).get("plugins", {}).get(plugin.id, {})
               .get("enabled") is False, what="enabled false in settings.json")

    # Honoured at the next start: listed, not run.
    daemon.stop()
    after = plugin.mark()
    daemon = daemon_factory("--serial", device.path)
    info = wait_state(daemon, plugin.id, "stopped")
    assert info["enabled"] is False
    assert plugin.hooks()[after:] == [] and plugin_processes(data_dir) == []

    client = clients("python", daemon.url(""), "websocket")
    client.event("initial_state")
    status, body = switch(daemon, plugin.id, True)
    assert status == 200 and body["plugin"]["enabled"] is True, body
    wait_state(daemon, plugin.id, "running")
    assert [e["hook"] for e in plugin.hooks()[after:]][:3] == ["import", "on_load", "on_enable"]
    assert client.event("plugin_status", lambda p: p["id"] == plugin.id and p["state"] == "running")
    wait_until(lambda: plugins_loaded(daemon) is True, what="loaded true")
    wait_until(lambda: read_settings(data_dir)["plugins"][plugin.id]["enabled"] is True,
               what="enabled true in settings.json")


def test_the_daemon_stop_unloads_plugins_and_leaves_no_process(daemon_factory, device, data_dir):
    first = install(data_dir, "test.life.first")
    # One that ignores the end of its input and would run on: killed after the 2 s grace.
    stubborn = install(data_dir, "test.life.stubborn", act={"on_unload": "hang"})
    daemon = start_connected(daemon_factory, device, first, stubborn)
    assert len(plugin_processes(data_dir)) == 2
    after = first.mark()
    assert daemon.stop(signal.SIGTERM) == 0
    assert [e["hook"] for e in first.hooks()[after:]] == ["on_unload"]
    stubborn.wait_hook("on_unload", timeout=1)
    wait_until(lambda: plugin_processes(data_dir) == [], timeout=3, what="no plugin process left")


def test_unknown_plugin_and_bad_bodies(daemon_factory, data_dir):
    install(data_dir, "test.life.known")
    daemon = daemon_factory("--serial", "none")
    wait_state(daemon, "test.life.known", "running")
    status, body = switch(daemon, "test.life.unknown", True)
    assert (status, body) == (404, {"error": "No plugin 'test.life.unknown'"})
    for bad in ({}, {"enabled": "yes"}, {"enabled": 1}, []):
        status, body = http("POST", daemon.url("/api/plugins/test.life.known"), bad)[:2]
        assert status == 400, (bad, body)
    assert [p["state"] for p in plugin_list(daemon)] == ["running"]
