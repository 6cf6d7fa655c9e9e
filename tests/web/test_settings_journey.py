"""The issue's "Done means" as one journey (docs/web.md "Settings"): a new user sets up login,
Home Assistant, OBS, two macros and a profile from the phone page alone, without a shell, and
rolls back a mistake.

A fresh mixerd (no settings file) linked to a pty device; the page at phone size with touch. Every
change is made on the page; the test only reads the API (with a session of its own once login is
on), the pty device, the fake Home Assistant and the real OBS Studio (obs_support.py) to check the
effect. A phone screenshot after each step goes to build/web-screenshots/journey-<n>-<step>.png.
"""
import os
import sys
import time
import urllib.parse

import pytest

from browser import element_id, role
from conftest import REPO, check_serves_the_page, harness, open_live, wait_live
from test_settings_integrations import SAVE_HA, TOKEN, ha, screenshot  # noqa: F401 (ha: a fixture)
from test_settings_security import login_cookie, set_password_on_the_page

sys.path.insert(0, os.path.join(REPO, "tests", "integration"))
from obs_support import PASSWORD as OBS_PASSWORD, SCENES, ObsClient, obs  # noqa: E402,F401 (obs: a fixture)

http, wait_until = harness.http, harness.wait_until
SAVE_OBS = role("button", "Save OBS Studio settings")
MACRO_STATUS = element_id("settings-macro-status")


@pytest.fixture
def obs_client(obs):  # noqa: F811
    """A client of OBS's own API, with OBS as the user left it: the program scene the first one."""
    client = ObsClient(obs.url)
    client.request("SetCurrentProgramScene", {"sceneName": SCENES[0]})
    yield client
    client.close()


def test_a_new_user_sets_up_everything_from_the_phone_and_rolls_back_a_mistake(
        browser, daemon_factory, device, data_dir, ha, obs, obs_client):  # noqa: F811
    began = time.monotonic()
    shots = []

    def shot(name):
        screenshot(browser, name)
        shots.append(os.path.join("build", "web-screenshots", name))

    assert not os.path.exists(os.path.join(data_dir, "settings.json"))
    daemon = daemon_factory("--serial", device.path)
    wait_until(lambda: harness.get_json(daemon, "/api/status")["connected"], what="the device link")
    check_serves_the_page(daemon)
    open_live(browser, daemon, width=390, height=844, touch=True)
    browser.click(role("button", "Settings"))
    browser.wait(role("button", "Settings"), "attr:aria-expanded", equals="true")

    def tab(name, ready):
        browser.click(role("tab", name))
        browser.wait(role("tab", name), "attr:aria-selected", equals="true")
        browser.wait(ready, "visible", equals=True)

    # 1. Security: the first password turns login on; this phone stays logged in.
    tab("Security", role("button", "Set the password"))
    assert harness.get_json(daemon, "/api/auth/status")["auth_enabled"] is False
    set_password_on_the_page(browser)
    browser.wait(element_id("security-password-status"), "text",
                 equals="Password set. Login is on; this browser is logged in as admin.")
    browser.wait(element_id("security-login-state"), "text", equals="Login is on for admin.")
    assert http("GET", daemon.url("/api/sliders"))[0] == 401  # no session, no answer
    session = login_cookie(daemon)

    def read(path):
        status, body, _ = http("GET", daemon.url(path), headers=session)
        assert status == 200, (path, status, body)
        return body

    assert read("/api/auth/status")["auth_enabled"] is True
    first = read("/api/config/history")["history"][0]  # the page says who changed it
    assert first["source"] == "web" and "auth_password_hash" in first["summary"], first
    shot("journey-1-security.png")
    # Still logged in after a reload: the page, not the login form, with the live values.
    browser.goto(daemon.url("/"))
    assert urllib.parse.urlsplit(browser.url()).path == "/"
    wait_live(browser, daemon, headers=session)
    browser.click(role("button", "Settings"))

    # 2. Integrations: Home Assistant's URL and token; the view says connected.
    tab("Integrations", SAVE_HA)
    browser.fill(element_id("setting-smarthome-url"), ha.url)
    browser.fill(element_id("setting-smarthome-token"), TOKEN)
    browser.click(SAVE_HA)
    browser.wait(element_id("integration-smarthome-status"), "text", equals="Home Assistant settings saved.")
    browser.wait(element_id("integration-smarthome-state"), "text",
                 equals=f"Connected to Home Assistant at {ha.url}.", timeout=10)
    assert read("/api/smarthome")["connected"] is True
    assert ha.auth_attempts >= 1
    shot("journey-2-home-assistant.png")

    # 3. Integrations: OBS's WebSocket address and password; the view says connected.
    browser.fill(element_id("setting-stream-url"), obs.url)
    browser.fill(element_id("setting-stream-password"), OBS_PASSWORD)
    browser.click(SAVE_OBS)
    browser.wait(element_id("integration-stream-status"), "text", equals="OBS Studio settings saved.")
    browser.wait(element_id("integration-stream-state"), "text", equals=f"Connected to OBS at {obs.url}.",
                 timeout=15)
    assert read("/api/stream/scenes") == {"scenes": SCENES, "current": SCENES[0]}
    assert read("/api/settings")["stream"] == {"url": obs.url, "password": "********"}
    shot("journey-3-obs.png")

    # 4. Macros: one switches OBS's scene, one toggles the desk lamp; the device's buttons run them.
    tab("Macros", role("button", "Slot 1 Empty"))

    def make_macro(slot, kind, name, fill):
        browser.click(role("button", f"Slot {slot} Empty"))
        browser.wait(role("heading", f"Slot {slot} on Page 1"), "visible", equals=True)
        browser.select(role("combobox", "What it does"), kind)
        browser.fill(role("textbox", "Name"), name)
        for target, value in fill:
            browser.fill(target, value)
        browser.click(role("button", "Save macro"))
        browser.wait(MACRO_STATUS, "text", equals=f"Saved: {name} is in slot {slot} of Page 1.")

    make_macro(1, "stream_scene", "Go live", [(role("textbox", "Scene"), "Live")])
    make_macro(2, "smarthome", "Desk lamp", [(role("combobox", "Entity"), "light.desk")])
    pages = read("/api/macros")["pages"]
    assert pages["0"][0] == {"type": "stream_scene", "name": "Go live", "icon": "", "scene_name": "Live"}
    assert pages["0"][1] == {"type": "smarthome", "name": "Desk lamp", "icon": "",
                             "entity_id": "light.desk", "action": "toggle"}
    device.send("MACRO,0,PRESS")
    wait_until(lambda: obs_client.program_scene() == "Live", timeout=5, what="OBS switched to Live")
    assert ha.state("light.desk")["state"] == "on"
    device.send("MACRO,1,PRESS")
    call = ha.calls.get(timeout=5)
    assert (call["domain"], call["service"]) == ("light", "toggle"), call
    wait_until(lambda: ha.state("light.desk")["state"] == "off", what="the desk lamp off")
    browser.click(role("button", "Slot 1 Go live"))
    shot("journey-4-macros.png")

    # 5. Profiles: the current state saved as a profile.
    tab("Profiles", role("button", "Load Default"))
    browser.fill(element_id("settings-profile-new-name"), "Streaming")
    browser.fill(element_id("settings-profile-new-icon"), "video")
    browser.click(role("button", "Save as a new profile"))
    browser.wait(element_id("settings-profile-new-status"), "text",
                 equals="Streaming saved with the current state.")
    assert "Streaming" in {p["name"] for p in read("/api/profiles")["profiles"]}
    held = read("/api/profiles/Streaming")
    assert held["macros"]["pages"]["0"][0]["name"] == "Go live", held["macros"]["pages"]["0"][0]
    shot("journey-5-profile.png")

    # 6. A mistake: slider 1 renamed; it reaches the device. History's Undo brings the name back.
    tab("Sliders", role("button", "Save slider 1"))
    browser.fill(element_id("setting-sliders-0-label"), "Wrnog")
    browser.click(role("button", "Save slider 1"))
    browser.wait(element_id("settings-slider-0-status"), "text",
                 equals="Slider 1 saved: the device shows Wrnog.")
    device.expect(lambda line: line.startswith("VOL,0,Wrnog,"), what="the wrong label on the device")
    assert read("/api/sliders")["sliders"][0]["label"] == "Wrnog"
    shot("journey-6-mistake.png")

    tab("History", role("button", "Undo the last change"))
    newest = read("/api/config/history")["history"][0]
    assert newest["source"] == "web" and newest["summary"] == "sliders", newest
    browser.click(role("button", "Undo the last change"))
    browser.wait(role("button", "Undo the rollback"), "visible", equals=True)
    device.expect(lambda line: line.startswith("VOL,0,Slider 1,"), what="the old label on the device")
    assert read("/api/sliders")["sliders"][0]["label"] == "Slider 1"
    assert read("/api/config/history")["history"][0]["source"] == "rollback"
    # Only the mistake is undone: what was set up before stays.
    settings = read("/api/settings")
    assert settings["smarthome"]["url"] == ha.url and settings["stream"]["url"] == obs.url
    assert read("/api/macros")["pages"]["0"][0]["name"] == "Go live"
    assert read("/api/smarthome")["connected"] is True and read("/api/auth/status")["auth_enabled"] is True
    tab("Sliders", role("button", "Save slider 1"))
    # Back to no label of its own: the box is empty and shows the default the device has.
    label_box = element_id("setting-sliders-0-label")
    assert browser.read(label_box) == ""
    assert browser.read(label_box, "attr:placeholder") == "Default: Slider 1"
    browser.click(role("tab", "History"))
    shot("journey-6-undone.png")
    log = browser.log()
    assert log["pageErrors"] == [], log["pageErrors"]
    print(f"\n[figures] journey: {time.monotonic() - began:.1f} s; screenshots: " + ", ".join(shots))
