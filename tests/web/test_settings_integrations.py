"""The settings area's Integrations, Plugins and Device views (docs/web.md "Settings"): each
saves through the settings API and the effect is checked where it shows, against the fake Home
Assistant of the integration tests, an example plugin and the pty device. The Security view's
tests are in test_settings_security.py; axe-core checks all four views here."""
import json
import os
import shutil
import socket
import subprocess
import sys

import pytest

from browser import element_id, label, role
from conftest import REPO, harness, open_live, open_view, screenshot, web_settings
from test_settings_area import AXE_TAGS, SIZES, reachable, settings_file  # noqa: F401 (a fixture)

sys.path.append(os.path.join(REPO, "tests", "integration"))
from ha_fake import FakeHomeAssistant, demo_states  # noqa: E402

get_json, http, wait_until = harness.get_json, harness.http, harness.wait_until

TOKEN = "eyJhbGciOiJIUzI1NiJ9.fake-long-lived-token-for-tests.x1Y2z3"
PLUGIN_ID = "io.mixerd.example.slider_alerts"
PLUGIN_CARD = "plugin-io-mixerd-example-slider-alerts"
SAVE_HA = role("button", "Save Home Assistant settings")




@pytest.fixture
def ha():
    fake = FakeHomeAssistant(TOKEN, demo_states()).start()
    yield fake
    fake.close()


def test_home_assistant_saved_from_the_phone_connects_and_the_view_says_so(browser, web, ha):
    open_view(browser, None, "Integrations", SAVE_HA, 390, 844, True, daemon=web)
    state = element_id("integration-smarthome-state")
    assert browser.read(state, "text").startswith("Not set up")
    assert browser.read(element_id("setting-smarthome-token-state"), "text") == "Not set"
    browser.fill(element_id("setting-smarthome-url"), ha.url)
    browser.fill(element_id("setting-smarthome-token"), TOKEN)
    browser.click(SAVE_HA)
    browser.wait(element_id("integration-smarthome-status"), "text", equals="Home Assistant settings saved.")
    # The daemon connects with the token; the view hears it (smarthome_status) and says so.
    browser.wait(state, "text", equals=f"Connected to Home Assistant at {ha.url}.", timeout=10)
    assert browser.read(state, "attr:data-state") == "up"
    assert get_json(web, "/api/smarthome")["connected"] is True
    assert ha.auth_attempts >= 1
    assert get_json(web, "/api/settings")["smarthome"] == {"url": ha.url, "token": "********"}
    wait_until(lambda: settings_file(web).get("smarthome", {}).get("token") == TOKEN, what="the token saved")
    # The token never comes back to the page: the field says Set and is empty.
    assert browser.read(element_id("setting-smarthome-token-state"), "text") == "Set"
    assert browser.read(element_id("setting-smarthome-token")) == ""
    assert TOKEN not in browser.page_text()["html"]
    newest = get_json(web, "/api/config/history")["history"][0]
    assert newest["source"] == "web" and "smarthome" in newest["summary"], newest
    layout = browser.layout()
    assert layout["scrollWidth"] <= layout["clientWidth"], layout
    screenshot(browser, "settings-integrations-phone.png")

    # Home Assistant going away shows at once, without reopening the view.
    ha.stop()
    browser.wait(state, "text", contains="Not connected", timeout=10)
    assert browser.read(state, "attr:data-state") == "down"


def test_a_refused_integration_value_shows_at_its_field_and_changes_nothing(browser, web):
    open_view(browser, None, "Integrations", SAVE_HA, daemon=web)
    before = settings_file(web)
    url = element_id("setting-smarthome-url")
    browser.fill(url, "ftp://hub.lan")
    browser.fill(element_id("setting-smarthome-token"), TOKEN)
    browser.click(SAVE_HA)
    said = browser.wait(element_id("setting-smarthome-url-error"), "text", regex=r"\S")["value"]
    assert said.startswith("smarthome.url must be"), said
    assert browser.read(url, "attr:aria-invalid") == "true"
    assert "setting-smarthome-url-error" in browser.read(url, "attr:aria-describedby").split()
    assert browser.focused()["id"] == "setting-smarthome-url"
    assert browser.read(element_id("integration-smarthome-status"), "text") == "Not saved: a value was refused."
    # A member of another card: MQTT's node id.
    node = element_id("setting-mqtt-node-id")
    browser.fill(element_id("setting-mqtt-url"), "mqtt://127.0.0.1:1883")
    browser.fill(node, "not a node id!")
    browser.click(role("button", "Save MQTT settings"))
    said = browser.wait(element_id("setting-mqtt-node-id-error"), "text", regex=r"\S")["value"]
    assert said.startswith("mqtt.node_id must be"), said
    settings = get_json(web, "/api/settings")
    assert "smarthome" not in settings and "mqtt" not in settings, settings
    assert settings_file(web) == before
    # mDNS: a switch saved on its own.
    assert browser.read(element_id("integration-mdns-state"), "text").startswith("On")
    browser.uncheck(role("switch", "mDNS"))
    browser.click(role("button", "Save mDNS settings"))
    browser.wait(element_id("integration-mdns-state"), "text", contains="Off")
    assert get_json(web, "/api/settings")["mdns"] is False


def test_from_another_machine_the_integrations_are_refused_with_the_rule_and_the_offer_of_a_password(
        browser, reachable):  # noqa: F811
    daemon, remote = reachable
    open_view(browser, remote + "/", "Integrations", SAVE_HA)
    before = settings_file(daemon)
    browser.fill(element_id("setting-smarthome-url"), "http://127.0.0.1:8123")
    browser.fill(element_id("setting-smarthome-token"), TOKEN)
    browser.click(SAVE_HA)
    status = element_id("integration-smarthome-status")
    said = browser.wait(status, "text", regex=r"\S")["value"]
    assert said.startswith("Not saved: smarthome holds a secret or an access rule"), said
    assert "only a browser on the machine that runs mixerd may change secrets" in said, said
    assert settings_file(daemon) == before
    assert "smarthome" not in get_json(daemon, "/api/settings")
    # The offer leads to the password form.
    browser.click(role("button", "Set a password"))
    browser.wait(role("tab", "Security"), "attr:aria-selected", equals="true")
    assert browser.focused()["id"] == "security-new-password"


@pytest.fixture
def mosquitto(tmp_path):
    """A Mosquitto broker on a free port of 127.0.0.1 (as tests/integration/mqtt_support.py)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
                    + ("user root\n" if os.geteuid() == 0 else ""))
    with open(tmp_path / "mosquitto.log", "w") as log:
        proc = subprocess.Popen(["/usr/sbin/mosquitto", "-c", str(conf)], stdout=log, stderr=subprocess.STDOUT)

    def listening():
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", port)) == 0

    wait_until(listening, what="the broker listening")
    yield proc, f"mqtt://127.0.0.1:{port}"
    if proc.poll() is None:
        proc.terminate()
        proc.wait(timeout=5)


def test_mqtt_saved_from_the_page_shows_the_broker_link(browser, web, mosquitto):
    broker, url = mosquitto
    save = role("button", "Save MQTT settings")
    open_view(browser, None, "Integrations", save, daemon=web)
    state = element_id("integration-mqtt-state")
    assert browser.read(state, "text") == "Off: enter a broker URL to turn it on."
    browser.fill(element_id("setting-mqtt-url"), url)
    browser.fill(element_id("setting-mqtt-node-id"), "desk")
    browser.click(save)
    browser.wait(element_id("integration-mqtt-status"), "text", equals="MQTT settings saved.")
    browser.wait(state, "text", equals=f"Connected to {url} as node desk.", timeout=10)
    assert browser.read(state, "attr:data-state") == "up"
    assert get_json(web, "/api/settings")["mqtt"] == {"url": url, "node_id": "desk", "password": ""}
    broker.terminate()
    broker.wait(timeout=5)
    browser.wait(state, "text", equals=f"Not connected to {url}; retrying.", timeout=10)
    assert browser.read(state, "attr:data-state") == "down"


def copy_example(data_dir, name):
    target = os.path.join(data_dir, "plugins", "executable", name)
    shutil.copytree(os.path.join(REPO, "plugins", "examples", name), target)


@pytest.fixture
def with_plugin(daemon_factory, device, data_dir):
    """A daemon running the slider_alerts example plugin, linked to the fake device."""
    harness.write_settings(data_dir, web_settings())
    copy_example(data_dir, "slider_alerts")
    daemon = daemon_factory("--serial", device.path)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="device link")
    wait_until(lambda: plugin_of(daemon)["state"] == "running", timeout=10, what="the plugin running")
    return daemon


def plugin_of(daemon):
    return next(p for p in get_json(daemon, "/api/plugins")["plugins"] if p["id"] == PLUGIN_ID)


def test_a_plugin_is_switched_and_its_own_setting_reaches_it(browser, with_plugin, device):
    daemon = with_plugin
    plugin = plugin_of(daemon)
    assert plugin["settings_schema"]["threshold"] == {
        "type": "integer", "default": 90, "min": 1, "max": 100,
        "description": "the slider value that raises an alert"}
    state = element_id(f"{PLUGIN_CARD}-state")
    disable = role("button", "Disable Slider alerts")
    open_view(browser, None, "Plugins", disable, 390, 844, True, daemon=daemon)
    browser.wait(state, "text", equals="Running")
    threshold = role("spinbutton", "Threshold")
    assert browser.read(threshold) == "" and browser.read(threshold, "attr:placeholder") == "Default: 90"

    browser.click(disable)
    browser.wait(state, "text", equals="Stopped (disabled)", timeout=10)
    assert plugin_of(daemon)["enabled"] is False and plugin_of(daemon)["state"] == "stopped"
    wait_until(lambda: settings_file(daemon).get("plugins", {}).get(PLUGIN_ID, {}).get("enabled") is False,
               what="the switch in settings.json")
    assert browser.focused()["text"].startswith("Enable")
    browser.click(role("button", "Enable Slider alerts"))
    browser.wait(state, "text", equals="Running", timeout=10)
    assert plugin_of(daemon)["enabled"] is True

    # Out of the manifest's bounds: refused here, since mixerd does not check a PATCH's values.
    browser.fill(threshold, "500")
    browser.click(role("button", "Save Slider alerts settings"))
    error = element_id("setting-plugins-io-mixerd-example-slider-alerts-settings-threshold-error")
    assert browser.wait(error, "text", regex=r"\S")["value"] == "threshold must be at most 100"
    assert "plugins" not in get_json(daemon, "/api/settings") or \
        "settings" not in get_json(daemon, "/api/settings")["plugins"].get(PLUGIN_ID, {})

    browser.fill(threshold, "50")
    browser.click(role("button", "Save Slider alerts settings"))
    browser.wait(element_id(f"{PLUGIN_CARD}-settings-status"), "text", equals="Slider alerts settings saved.")
    assert get_json(daemon, "/api/settings")["plugins"][PLUGIN_ID]["settings"] == {"threshold": 50}
    # The plugin heard it (on_settings_change): 60 is past the new threshold, not the old 90.
    device.send("SLIDER,1,10")
    device.send("SLIDER,1,60")
    line = device.expect(lambda l: l.startswith("TOAST,") and "Slider 2 loud" in l, timeout=10,
                         what="the plugin's toast")
    assert line.endswith(",Slider 2 loud,60 is over 50"), line
    screenshot(browser, "settings-plugins-phone.png")


def test_the_device_view_shows_the_link_and_firmware_the_device_reported(browser, web, device):
    state = element_id("device-link-state")
    open_view(browser, None, "Device", state, 390, 844, True, daemon=web)
    browser.wait(state, "text", equals=f"Connected on {device.path}.")
    facts = browser.read(element_id("device-facts"), "text")
    assert f"Firmware{device.firmware}" in facts and f"Port{device.path}" in facts, facts
    assert get_json(web, "/api/status")["firmware_version"] == device.firmware
    device.unplug()
    browser.wait(state, "text", contains="Not connected", timeout=10)
    device.plug()
    browser.wait(state, "text", equals=f"Connected on {device.path}.", timeout=15)


def test_a_brightness_saved_on_the_phone_reaches_the_device_and_a_refused_one_shows_at_its_field(
        browser, web, device):
    save = role("button", "Save device settings")
    open_view(browser, None, "Device", save, 390, 844, True, daemon=web)
    brightness = role("spinbutton", "Device brightness")
    browser.fill(brightness, "140")
    browser.click(save)
    error = element_id("setting-device-brightness-error")
    assert browser.wait(error, "text", regex=r"\S")["value"] == "device_brightness must be an integer from 0 to 100"
    assert browser.read(brightness, "attr:aria-invalid") == "true"
    assert "device_brightness" not in get_json(web, "/api/settings")

    browser.fill(brightness, "40")
    browser.click(save)
    browser.wait(element_id("device-settings-status"), "text", equals="Device settings saved.")
    device.expect("BRIGHTNESS,40")
    assert get_json(web, "/api/settings")["device_brightness"] == 40
    assert browser.read(error, "text") == ""
    screenshot(browser, "settings-device-phone.png")


def test_the_serial_port_is_saved_for_the_next_start(browser, web):
    open_view(browser, None, "Device", role("button", "Save device settings"), daemon=web)
    browser.fill(role("textbox", "Serial port"), "/dev/ttyACM7")
    browser.click(role("button", "Save device settings"))
    browser.wait(element_id("device-settings-status"), "text", equals="Device settings saved.")
    assert get_json(web, "/api/settings")["serial_port"] == "/dev/ttyACM7"
    wait_until(lambda: settings_file(web).get("serial_port") == "/dev/ttyACM7", what="serial_port saved")


VIEWS = [("Integrations", SAVE_HA), ("Security", role("button", "Save login switch")),
         ("Plugins", role("button", "Disable Slider alerts")), ("Device", element_id("device-link-state"))]


@pytest.mark.parametrize("name,width,height,touch", SIZES)
def test_the_four_views_pass_axe_wcag_a_and_aa(browser, with_plugin, name, width, height, touch):
    daemon = with_plugin
    open_live(browser, daemon, width=width, height=height, touch=touch)
    browser.click(role("button", "Settings"))

    def check(view):
        result = browser.axe(AXE_TAGS)
        print(f"\n[figures] axe {result['version']} {name} {view}: {result['passes']} rules passed, "
              f"{len(result['violations'])} violated")
        assert result["violations"] == [], json.dumps(result["violations"], indent=1)

    for tab, ready in VIEWS:
        browser.click(role("tab", tab))
        browser.wait(ready, "visible", equals=True)
        check(tab)
    # With errors and refusals shown.
    browser.click(role("tab", "Integrations"))
    browser.fill(element_id("setting-smarthome-url"), "ftp://hub.lan")
    browser.click(SAVE_HA)
    browser.wait(element_id("setting-smarthome-url-error"), "text", regex=r"\S")
    check("Integrations with an error")
    browser.click(role("tab", "Security"))
    browser.fill(label("New password"), "short")
    browser.click(role("button", "Set the password"))
    browser.wait(element_id("security-new-password-error"), "text", regex=r"\S")
    check("Security with an error")
