"""A plugin that misbehaves (raises in a hook, exits, hangs, floods, has a broken or incompatible
manifest) leaves the daemon and the other plugins unaffected (protocol/README.md, "Plugins",
"Isolation"). The daemon's responsiveness is the latency from a REST slider set to the
slider_change a stock socket.io-client gets, measured before and during the misbehaviour."""
import json
import os
import time

import pytest

from plugin_support import figures, install, latencies, plugin_list, slider_latency, \
    start_connected, wait_state
from socketio_support import clients  # noqa: F401 (a fixture)

# Generous: on 2 busy cores an idle daemon answers within a few ms; a daemon that waited on a
# plugin would take seconds (a hook's 5 s timeout).
MAX_LATENCY = 1.0
PACE = 0.01


# kind -> a part of last_error once the daemon replaced the process (raising is no crash)
OUTCOMES = {
    "exit": "exited with status 3",
    "hang": "did not return within 5 s",
    "flood": "flooding",
}


@pytest.mark.parametrize("kind", ["raise", "exit", "hang", "flood"])
def test_a_misbehaving_plugin_leaves_the_daemon_and_the_others_unaffected(
        kind, daemon_factory, device, data_dir, clients):  # noqa: F811
    good = install(data_dir, "test.iso.good")
    bad = install(data_dir, "test.iso.bad", act={"on_serial_receive": kind})
    daemon = start_connected(daemon_factory, device, good, bad)
    client = clients("node", daemon.url(""), "websocket")
    client.event("initial_state")
    before = latencies(daemon, client, 15, 10)

    began = time.monotonic()
    device.send("BOOM " + kind)
    bad.wait_hook("on_serial_receive", ["BOOM " + kind])
    # The good plugin keeps getting its hooks meanwhile, at once (the bad one may still hang).
    after = good.mark()
    device.send("SLIDER,0,33")
    good_hook = good.wait_hook("on_slider_change", [1, 33], after=after, timeout=3)
    assert good_hook["t"] - began < 3, "the good plugin waited for the bad one"

    during = []
    value = 40
    if kind == "raise":
        # The traceback went to the daemon log, tagged with the plugin.
        line = daemon.wait_log("test plugin raised in on_serial_receive")
        assert f"plugin {bad.id}: " in line, line
        during = latencies(daemon, client, 10, value)
        # Still the same process, and it gets the next hook.
        after = bad.mark()
        device.send("SLIDER,1,20")
        assert bad.wait_hook("on_slider_change", [2, 20], after=after)["pid"] == bad.hooks()[0]["pid"]
        info = wait_state(daemon, bad.id, "running")
        assert info["restarts"] == 0
    else:
        # Sample while the daemon deals with it: until the bad plugin is back up after a restart.
        def back(info):
            return info["restarts"] >= 1 and info["last_error"]
        deadline = time.monotonic() + 20
        while True:
            time.sleep(PACE)  # a sample every few ms, not a busy loop on shared cores
            during.append(slider_latency(daemon, client, value % 101))
            value += 1
            info = next(p for p in plugin_list(daemon) if p["id"] == bad.id)
            if info["state"] == "running" and back(info):
                break
            assert time.monotonic() < deadline, f"the bad plugin never came back: {info}"
        assert OUTCOMES[kind] in info["last_error"], info
        pids = {e["pid"] for e in bad.hooks("on_enable")}
        assert len(pids) == 2, bad.hooks("on_enable")
        if kind == "hang":
            killed = bad.hooks("on_enable")[-1]["t"] - began
            assert 5 <= killed < 12, f"the hanging plugin was replaced after {killed:.1f} s"
    print(f"[figures] plugin {kind}: slider_change latency before {figures(before)}; "
          f"during {figures(during)}")
    assert max(during) < MAX_LATENCY, figures(during)
    # The good plugin saw nothing of it.
    info = wait_state(daemon, good.id, "running")
    assert info["restarts"] == 0 and not info["last_error"], info
    assert len({e["pid"] for e in good.hooks()}) == 1
    after = good.mark()
    device.send("SLIDER,2,77")
    good.wait_hook("on_slider_change", [3, 77], after=after)
    assert daemon.proc.poll() is None


def test_broken_and_incompatible_manifests_are_listed_and_never_run(daemon_factory, device,
                                                                    data_dir):
    good = install(data_dir, "test.manifest.good")
    not_json = install(data_dir, "test.manifest.notjson", manifest_text="{ not json")
    no_class = install(data_dir, "test.manifest.noclass", manifest={"main_class": None})
    wrong_type = install(data_dir, "test.manifest.wrongtype", manifest={"version": 2})
    incompatible = install(data_dir, "test.manifest.future", manifest={"api_version": "2.0"})
    missing = install(data_dir, "test.manifest.missing")
    os.unlink(os.path.join(missing.path, "manifest.json"))
    daemon = start_connected(daemon_factory, device, good)
    listed = plugin_list(daemon)
    assert len(listed) == 6, json.dumps(listed, indent=1)
    assert [p["id"] for p in listed] == sorted(p["id"] for p in listed)

    def entry(plugin):
        # A manifest that names no id is listed under its folder's name.
        for p in listed:
            if p["id"] == plugin.id:
                return p
        raise AssertionError(f"{plugin.id} not listed: {listed}")

    for plugin, state, reason in ((not_json, "invalid", ""), (no_class, "invalid", "main_class"),
                                  (wrong_type, "invalid", "version"),
                                  (incompatible, "incompatible", "2.0"),
                                  (missing, "invalid", "manifest.json")):
        info = entry(plugin)
        assert info["state"] == state and reason in info["last_error"] and info["last_error"], info
        assert plugin.hooks() == [], f"{plugin.id} was run"
    assert entry(incompatible)["api_version"] == "2.0"
    # The good plugin runs as if they were not there.
    after = good.mark()
    device.send("SLIDER,0,12")
    good.wait_hook("on_slider_change", [1, 12], after=after)
