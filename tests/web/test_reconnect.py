"""The daemon restarts under an open page: the page says so, reconnects and shows the new state."""
import json
import os

from browser import element_id, role
from conftest import harness, open_live, wait_live


def test_the_page_reconnects_after_a_daemon_restart_and_renders_the_state_again(
        browser, web, device, data_dir):
    open_live(browser, web)
    system = role("slider", "System")
    device.send("SLIDER,0,80")
    browser.wait(system, "value", equals="80")
    port = web.ports["controller"]

    assert web.stop() == 0
    browser.wait(element_id("daemon-state"), "text", regex="reconnecting", timeout=10)
    # While it is down the fourth slider is renamed. The sliders' values are kept in the settings
    # (slider_values) and restored at start-up, waiting for the device's sliders to pick them up.
    path = os.path.join(data_dir, "settings.json")
    with open(path) as f:
        settings = json.load(f)
    settings["sliders"][3]["label"] = "Voice"
    harness.write_settings(data_dir, settings)

    again = harness.Daemon(data_dir, ("--serial", device.path))
    again.args[again.args.index("--controller-port") + 1] = str(port)
    again.start()
    try:
        harness.wait_until(lambda: harness.get_json(again, "/api/status")["connected"], what="device link")
        # socket.io-client retries after 0.5-1.5 s, then doubles, up to 5 s: a few tries at most.
        browser.wait(element_id("daemon-state"), "text", regex=r"^\s*daemon connected", timeout=15)
        wait_live(browser, again)
        assert browser.read(system) == "80"
        assert browser.count(role("slider", "Voice")) == 1
        assert browser.count(role("slider", "Mic")) == 0
        # And it is live again: the device's slider reaches the restored value (50), then drives.
        device.send("SLIDER,3,50")
        device.send("SLIDER,3,21")
        browser.wait(role("slider", "Voice"), "value", equals="21")
    finally:
        again.stop()
