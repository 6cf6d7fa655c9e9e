"""The system capability on the page: the Status section shows the machine's uptime, load and
temperature, and follows the status_facts event when the temperature changes."""
import os

import pytest

from browser import element_id
from conftest import check_serves_the_page, harness, open_live, web_settings


def write_zone(folder, millidegrees):
    zone = os.path.join(folder, "thermal_zone0")
    os.makedirs(zone, exist_ok=True)
    with open(os.path.join(zone, "type"), "w") as f:
        f.write("cpu-thermal\n")
    # Written whole then renamed, as the kernel's file never reads half-written.
    with open(os.path.join(zone, "temp.new"), "w") as f:
        f.write(f"{millidegrees}\n")
    os.replace(os.path.join(zone, "temp.new"), os.path.join(zone, "temp"))


@pytest.fixture
def hot_pi(daemon_factory, device, data_dir, tmp_path):
    thermal = str(tmp_path / "thermal")
    write_zone(thermal, 48312)
    harness.write_settings(data_dir, web_settings())
    daemon = daemon_factory("--serial", device.path, env={"MIXERD_THERMAL_DIR": thermal})
    harness.wait_until(lambda: harness.get_json(daemon, "/api/status")["connected"], what="device link")
    check_serves_the_page(daemon)
    return daemon, thermal


def test_the_status_section_shows_the_machine_and_follows_its_temperature(browser, hot_pi):
    daemon, thermal = hot_pi
    open_live(browser, daemon)
    status = element_id("status")
    browser.wait(status, "text", contains="48.3 °C")
    text = browser.read(status, "text")
    assert "Uptime" in text and "Load" in text and "Temperature" in text, text
    load = harness.get_json(daemon, "/api/system")["load"]
    assert f"{load[0]:.2f}" in text, (load, text)
    # The next sample (every 10 s) sends the new wording as a status_facts event.
    write_zone(thermal, 71049)
    browser.wait(status, "text", contains="71.0 °C", timeout=15)
