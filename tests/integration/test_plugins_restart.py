"""A plugin that crashes at once: restarted after 1 s, 2 s, 4 s, 8 s, then `failed` at the 5th
crash (protocol/README.md, "Plugins", "Isolation"), while a stock Socket.IO client keeps getting
its events at once; enabling it again clears `failed`."""
import time

from conftest import wait_until
from plugin_support import figures, install, plugin_info, slider_latency, start_connected, \
    switch, wait_state
from socketio_support import clients  # noqa: F401 (a fixture)

DELAYS = [1, 2, 4, 8]  # seconds before the 2nd, 3rd, 4th and 5th start


def test_a_crashing_plugin_backs_off_fails_and_is_cleared_by_enabling(
        daemon_factory, device, data_dir, clients):  # noqa: F811
    good = install(data_dir, "test.restart.good")
    crasher = install(data_dir, "test.restart.crasher", crash_at_import=True, control=False)
    daemon = start_connected(daemon_factory, device, good)
    client = clients("node", daemon.url(""), "websocket")
    client.event("initial_state")

    # While it crashes and waits, the daemon serves: sample the latency until it failed.
    samples, value = [], 0
    restarts_seen = set()
    deadline = time.monotonic() + sum(DELAYS) + 15
    while True:
        time.sleep(0.01)  # a sample every few ms, not a busy loop on shared cores
        samples.append(slider_latency(daemon, client, value % 101))
        value += 1
        info = plugin_info(daemon, crasher.id)
        restarts_seen.add(info["restarts"])
        if info["state"] == "failed":
            break
        assert info["state"] in ("starting", "running"), info
        assert time.monotonic() < deadline, f"never failed: {info}"
    starts = [e["t"] for e in crasher.hooks("import")]
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    print(f"[figures] crash restarts: gaps between starts {[round(g, 2) for g in gaps]} s "
          f"(expected {DELAYS}); slider_change latency meanwhile {figures(samples)}")
    assert len(starts) == 5, starts
    for gap, delay in zip(gaps, DELAYS):
        assert delay <= gap < delay + 1.5, (gaps, DELAYS)
    assert info["restarts"] == 4 and info["last_error"], info
    assert restarts_seen >= {1, 2, 3}, restarts_seen  # the counter counted up on the way
    assert max(samples) < 1.0, figures(samples)
    # The socket.io client saw the plugin's states go by.
    states = [m["args"][0] for m in client.messages.seen
              if m["type"] == "event" and m["name"] == "plugin_status"
              and m["args"][0]["id"] == crasher.id]
    assert states and states[-1]["state"] == "failed", states
    assert "starting" in {s["state"] for s in states}
    # The other plugin never noticed.
    assert wait_state(daemon, good.id, "running")["restarts"] == 0

    # Enabling it again clears `failed` and starts it at once.
    status, body = switch(daemon, crasher.id, True)
    assert status == 200 and body["success"] is True, body
    assert body["plugin"]["state"] != "failed", body
    wait_until(lambda: len(crasher.hooks("import")) == 6, timeout=5, what="a 6th start")
    # Disabling stops the cycle.
    status, body = switch(daemon, crasher.id, False)
    assert status == 200 and body["plugin"]["enabled"] is False, body
    wait_state(daemon, crasher.id, "stopped")
