"""The settings area's Sliders, Macros and Profiles views (docs/web.md "Settings"), driven at phone
size in Chromium against the real mixerd and a pty device: each save is checked through the API
and by its effect (the label the device receives, a macro run from a device button hitting a
local HTTP server, a profile load that the device follows), plus axe-core at both sizes."""
import json
import os
import sys

import pytest

from browser import element_id, role
from conftest import REPO, SCREENSHOTS, check_serves_the_page, harness, open_live, web_settings

sys.path.insert(0, os.path.join(REPO, "tests", "integration"))
from audio_support import pulse, volume_of  # noqa: E402,F401 (pulse: a fixture)
from http_recorder import recorder  # noqa: E402,F401 (a fixture)

get_json, http, wait_until = harness.get_json, harness.http, harness.wait_until
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
SIZES = [("phone", 390, 844, True), ("desktop", 1280, 800, False)]
BACKUP = {"type": "command", "name": "Backup", "icon": "", "argv": ["/bin/true"]}


def start(daemon_factory, device, data_dir, env=None):
    """The web settings, http macros allowed to loopback, and a command macro in slot 9 of Main."""
    settings = web_settings()
    settings["http_macro_allow"] = ["127.0.0.1"]
    settings["macros"]["pages"]["0"][8] = BACKUP
    harness.write_settings(data_dir, settings)
    daemon = daemon_factory("--serial", device.path, env=env)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="device link")
    check_serves_the_page(daemon)
    return daemon


@pytest.fixture
def mixer(daemon_factory, device, data_dir):
    return start(daemon_factory, device, data_dir)


def open_view(browser, daemon, tab, width=390, height=844, touch=True):
    open_live(browser, daemon, width=width, height=height, touch=touch)
    browser.click(role("button", "Settings"))
    browser.wait(role("button", "Settings"), "attr:aria-expanded", equals="true")
    browser.click(role("tab", tab))
    browser.wait(role("tab", tab), "attr:aria-selected", equals="true")


def check_axe(browser, what):
    result = browser.axe(AXE_TAGS)
    print(f"\n[figures] axe {result['version']} {what}: {result['passes']} rules passed, "
          f"{len(result['violations'])} violated")
    assert result["violations"] == [], json.dumps(result["violations"], indent=1)


def newest_change(daemon):
    return get_json(daemon, "/api/config/history")["history"][0]


def test_a_slider_saves_label_assignment_and_setting_live_and_the_device_shows_the_label(
        browser, daemon_factory, device, data_dir, pulse):  # noqa: F811
    daemon = start(daemon_factory, device, data_dir, env={"PULSE_SERVER": pulse.env["PULSE_SERVER"]})
    firefox = pulse.play("Firefox", "firefox")
    open_view(browser, daemon, "Sliders")
    save = role("button", "Save slider 2")
    browser.wait(save, "visible", equals=True)
    assert browser.read(element_id("setting-sliders-1-label")) == "Music"
    # The menu offers the application playing now; choosing it fills in its name, still editable.
    choice = element_id("setting-sliders-1-assignment")
    browser.wait(choice, "text", contains="Firefox")
    browser.select(choice, "app:firefox")
    assert browser.read(element_id("setting-sliders-1-assignment-names")) == "firefox"
    browser.fill(element_id("setting-sliders-1-label"), "Browser")
    browser.uncheck(element_id("setting-sliders-1-enforce-volume"))
    browser.click(save)
    browser.wait(element_id("settings-slider-1-status"), "text", equals="Slider 2 saved: the device shows Browser.")
    device.expect(lambda line: line.startswith("VOL,1,Browser,"), what="the new label on the device")
    sliders = get_json(daemon, "/api/settings")["sliders"]
    assert sliders[1] == {"label": "Browser", "assignment": {"type": "app", "names": ["firefox"]},
                          "enforce_volume": False}, sliders
    assert [s["label"] for s in sliders] == ["System", "Browser", "Chat", "Mic"]
    running = get_json(daemon, "/api/sliders")["sliders"][1]
    assert (running["label"], running["assignment"], running["enforce_volume"]) == (
        "Browser", {"type": "app", "names": ["firefox"]}, False)
    assert newest_change(daemon)["source"] == "web"
    # Applied live: the slider now sets Firefox's stream.
    assert http("POST", daemon.url("/api/sliders/2"), {"value": 30})[0] == 200
    wait_until(lambda: volume_of(pulse.stream(firefox)) == 30, what="Firefox's stream at 30")

    # Names typed by hand, and a system target.
    browser.select(element_id("setting-sliders-2-assignment"), "app")
    browser.fill(element_id("setting-sliders-2-assignment-names"), "vesktop, Discord")
    browser.click(role("button", "Save slider 3"))
    browser.wait(element_id("settings-slider-2-status"), "text", contains="Slider 3 saved")
    browser.select(element_id("setting-sliders-3-assignment"), "system_default_output")
    browser.click(role("button", "Save slider 4"))
    browser.wait(element_id("settings-slider-3-status"), "text", contains="Slider 4 saved")
    sliders = get_json(daemon, "/api/settings")["sliders"]
    assert sliders[2]["assignment"] == {"type": "app", "names": ["vesktop", "Discord"]}
    assert sliders[3]["assignment"] == {"type": "system_default_output"}
    assert sliders[1]["label"] == "Browser"  # a save of one slider leaves the others

    # Refused: the API's sentence at the label, nothing changed; no names is caught before sending.
    before = get_json(daemon, "/api/settings")
    label = element_id("setting-sliders-0-label")
    browser.fill(label, "é" * 40)
    browser.click(role("button", "Save slider 1"))
    said = browser.wait(element_id("setting-sliders-0-label-error"), "text", regex=r"\S")["value"]
    assert said == "sliders[0].label must be at most 64 bytes", said
    assert browser.read(label, "attr:aria-invalid") == "true"
    assert browser.focused()["id"] == "setting-sliders-0-label"
    browser.fill(element_id("setting-sliders-2-assignment-names"), " , ")
    browser.click(role("button", "Save slider 3"))
    browser.wait(element_id("setting-sliders-2-assignment-names-error"), "text",
                 equals="Type at least one application name.")
    assert get_json(daemon, "/api/settings") == before
    browser.screenshot(os.path.join(SCREENSHOTS, "settings-sliders-phone.png"), full_page=True)


def test_macros_are_created_run_from_a_device_button_moved_copied_deleted_and_pages_renamed(
        browser, mixer, device, recorder):
    open_view(browser, mixer, "Macros")
    browser.wait(role("button", "Main"), "attr:aria-pressed", equals="true")
    # An http macro in slot 3 of the device's page.
    browser.click(role("button", "Slot 3 Empty"))
    browser.wait(role("heading", "Slot 3 on Main"), "visible", equals=True)
    assert browser.focused()["id"] == "settings-macro-editor-heading"
    assert "Run a program" not in browser.read(role("combobox", "What it does"), "text")
    browser.select(role("combobox", "What it does"), "http")
    browser.fill(role("textbox", "Name"), "Lamp")
    browser.fill(role("textbox", "URL"), recorder.url("/lamp"))
    browser.select(role("combobox", "Method"), "PUT")
    browser.fill(role("textbox", "Body"), '{"on": true}')
    browser.fill(role("textbox", "Headers"), "X-Room: desk")
    browser.click(role("button", "Save macro"))
    status = element_id("settings-macro-status")
    browser.wait(status, "text", equals="Saved: Lamp is in slot 3 of Main.")
    lamp = {"type": "http", "name": "Lamp", "icon": "", "url": recorder.url("/lamp"), "method": "PUT",
            "body": '{"on": true}', "headers": {"X-Room": "desk"}}
    assert get_json(mixer, "/api/macros")["pages"]["0"][2] == lamp
    browser.wait(role("button", "Slot 3 Lamp"), "visible", equals=True)
    assert browser.read(element_id("settings-macro-slot-2-kind"), "text") == "Web request"  # its description

    # The device's button runs it.
    device.send("MACRO,2,PRESS")
    _, method, path, headers, body = recorder.next()
    assert (method, path, body, headers["X-Room"]) == ("PUT", "/lamp", '{"on": true}', "desk")

    # A second macro on another page; a refused value first shows the API's words at its field.
    browser.click(role("button", "Stream"))
    browser.click(role("button", "Slot 2 Empty"))
    browser.select(role("combobox", "What it does"), "hotkey")
    browser.fill(role("textbox", "Name"), "Mic")
    browser.fill(role("textbox", "Keys"), "ctrl+nokey")
    browser.click(role("button", "Save macro"))
    said = browser.wait(element_id("settings-macro-hotkey-key-error"), "text", regex=r"\S")["value"]
    assert said.startswith("key has the unknown key 'nokey'"), said
    assert browser.focused()["id"] == "settings-macro-hotkey-key"
    assert get_json(mixer, "/api/macros")["pages"]["1"][1]["type"] == "none"
    browser.select(role("combobox", "What it does"), "mute")
    browser.select(role("combobox", "What to mute"), "2")
    browser.click(role("button", "Save macro"))
    browser.wait(status, "text", equals="Saved: Mic is in slot 2 of Stream.")
    assert get_json(mixer, "/api/macros")["pages"]["1"][1] == {"type": "mute", "name": "Mic", "icon": "",
                                                               "target": 2}

    # A command macro is shown read-only, with the reason, and can only be deleted.
    browser.click(role("button", "Main"))
    browser.click(role("button", "Slot 9 Backup"))
    browser.wait(role("heading", "Slot 9 on Main"), "visible", equals=True)
    assert browser.count(role("button", "Save macro")) == 0 and browser.count(role("button", "Move")) == 0
    assert browser.count(role("button", "Delete macro")) == 1
    panel = browser.page_text()["html"]
    assert "/bin/true" in panel and "refuses it from the network" in panel

    # Move Lamp to slot 6 of Games: the view follows it there.
    browser.click(role("button", "Slot 3 Lamp"))
    browser.select(role("combobox", "To page"), "2")
    browser.select(role("combobox", "To slot"), "5")
    browser.click(role("button", "Move"))
    browser.wait(status, "text", equals="Moved Lamp to slot 6 of Games.")
    pages = get_json(mixer, "/api/macros")["pages"]
    assert pages["0"][2]["type"] == "none" and pages["2"][5] == lamp
    assert browser.focused()["id"] == "settings-macro-slot-5"
    assert browser.read(role("button", "Games"), "attr:aria-pressed") == "true"

    # Copy it over a macro: the first press asks, the second replaces.
    browser.select(role("combobox", "To page"), "0")
    browser.select(role("combobox", "To slot"), "0")
    browser.click(role("button", "Copy"))
    browser.wait(status, "text", equals="Slot 1 on Main holds Silence chat: press Copy again to replace it.")
    assert get_json(mixer, "/api/macros")["pages"]["0"][0]["name"] == "Silence chat"
    browser.click(role("button", "Copy"))
    browser.wait(status, "text", equals="Copied Lamp to slot 1 of Main.")
    pages = get_json(mixer, "/api/macros")["pages"]
    assert pages["0"][0] == lamp and pages["2"][5] == lamp

    # Delete: the slot empties and keeps the focus.
    browser.click(role("button", "Delete macro"))
    browser.wait(status, "text", equals="Slot 6 of Games is empty now.")
    assert get_json(mixer, "/api/macros")["pages"]["2"][5]["type"] == "none"
    assert browser.focused()["id"] == "settings-macro-slot-5"

    # Rename a page; an empty name is refused at the field.
    browser.click(role("button", "Night"))
    name = role("textbox", "Page name")
    browser.fill(name, "")
    browser.click(role("button", "Rename page"))
    said = browser.wait(element_id("settings-macro-page-name-error"), "text", regex=r"\S")["value"]
    assert said.startswith("name must be 1 to 32 characters"), said
    browser.fill(name, "Late")
    browser.click(role("button", "Rename page"))
    browser.wait(element_id("settings-macro-page-status"), "text", equals="Page 4 is called Late now.")
    assert get_json(mixer, "/api/macros/pages")["names"]["3"] == "Late"
    assert browser.read(role("button", "Late"), "attr:aria-pressed") == "true"

    browser.click(role("button", "Main"))
    browser.click(role("button", "Slot 1 Lamp"))
    browser.screenshot(os.path.join(SCREENSHOTS, "settings-macros-phone.png"), full_page=True)


def test_profiles_are_saved_loaded_renamed_given_an_icon_and_deleted(browser, mixer, device):
    open_view(browser, mixer, "Profiles")
    browser.wait(role("button", "Load Default"), "visible", equals=True)
    new_name, new_icon = element_id("settings-profile-new-name"), element_id("settings-profile-new-icon")
    create = role("button", "Save as a new profile")
    # A taken name is refused at the name.
    browser.fill(new_name, "Default")
    browser.click(create)
    said = browser.wait(element_id("settings-profile-new-name-error"), "text", regex=r"\S")["value"]
    assert said == "Profile 'Default' already exists", said
    browser.fill(new_name, "Night")
    browser.fill(new_icon, "moon")
    browser.click(create)
    browser.wait(element_id("settings-profile-new-status"), "text", equals="Night saved with the current state.")
    profiles = {p["name"]: p for p in get_json(mixer, "/api/profiles")["profiles"]}
    assert profiles["Night"]["icon"] == "moon" and not profiles["Night"]["is_current"]
    assert get_json(mixer, "/api/profiles/Night")["sliders"][0]["label"] == "System"

    # The state changes elsewhere; loading Night brings it back, on the device too.
    assert http("POST", mixer.url("/api/sliders/1/assignment"),
                {"type": "system_default_output", "label": "Changed"})[0] == 200
    device.expect(lambda line: line.startswith("VOL,0,Changed,"), what="the changed label")
    browser.click(role("button", "Load Night"))
    profile_status = element_id("settings-profile-status")
    browser.wait(profile_status, "text", contains="Night loaded")
    device.expect(lambda line: line.startswith("VOL,0,System,"), what="the profile's label")
    assert get_json(mixer, "/api/sliders")["sliders"][0]["label"] == "System"
    assert get_json(mixer, "/api/profiles")["current"] == "Night"
    assert browser.read(role("button", "Delete Night"), "attr:disabled") == ""  # the current one
    # The Sliders view shows what the load brought.
    browser.click(role("tab", "Sliders"))
    browser.wait(element_id("setting-sliders-0-label"), "value", equals="System")
    browser.click(role("tab", "Profiles"))

    # Rename and a new icon: what the profile holds stays, even after the state changed.
    held = get_json(mixer, "/api/profiles/Night")
    status, _, _ = http("POST", mixer.url("/api/volume/master"), {"value": 7})
    assert status == 200
    browser.click(role("button", "Edit Night"))
    edit_name = element_id("settings-profile-1-name")
    assert browser.focused()["id"] == "settings-profile-1-name"
    assert "keeps the sliders" in browser.read(element_id("settings-profile-1-note"), "text")
    browser.fill(edit_name, "Late night")
    browser.fill(element_id("settings-profile-1-icon"), "star")
    browser.click(role("button", "Save Night"))
    browser.wait(profile_status, "text", equals="Night is called Late night now.")
    listing = get_json(mixer, "/api/profiles")
    profiles = {p["name"]: p for p in listing["profiles"]}
    assert "Night" not in profiles and profiles["Late night"]["icon"] == "star"
    assert listing["current"] == "Late night"
    kept = get_json(mixer, "/api/profiles/Late%20night")
    assert (kept["volume"], kept["sliders"]) == (held["volume"], held["sliders"])
    assert kept["volume"] != 7
    assert browser.focused()["id"] == "" and browser.focused()["text"] == "Edit Late night"

    # Delete asks first; "Keep it" keeps it; the current profile cannot be deleted, so load Default.
    browser.click(role("button", "Load Default"))
    browser.wait(profile_status, "text", contains="Default loaded")
    browser.click(role("button", "Delete Late night"))
    assert browser.focused()["text"] == "Yes, delete Late night"
    browser.click(role("button", "Keep it"))
    assert "Late night" in {p["name"] for p in get_json(mixer, "/api/profiles")["profiles"]}
    browser.click(role("button", "Delete Late night"))
    browser.click(role("button", "Yes, delete Late night"))
    browser.wait(profile_status, "text", equals="Late night deleted.")
    assert {p["name"] for p in get_json(mixer, "/api/profiles")["profiles"]} == {"Default"}
    assert browser.focused()["id"] == "settings-profile-list-heading"
    browser.fill(new_name, "Gaming")
    browser.fill(new_icon, "gamepad")
    browser.click(create)
    browser.wait(element_id("settings-profile-new-status"), "text", equals="Gaming saved with the current state.")
    browser.click(role("button", "Edit Gaming"))
    browser.screenshot(os.path.join(SCREENSHOTS, "settings-profiles-phone.png"), full_page=True)


def test_the_macro_editor_offers_the_hold_kinds_and_their_held_button_works(browser, mixer, device):
    open_view(browser, mixer, "Macros")
    browser.click(role("button", "Slot 4 Empty"))
    browser.wait(role("heading", "Slot 4 on Main"), "visible", equals=True)
    browser.select(role("combobox", "What it does"), "hold_unmute")
    # Push-to-talk holds a slider's mute: the master is not offered.
    assert "Master" not in browser.read(role("combobox", "What to unmute while held"), "text")
    browser.select(role("combobox", "What to unmute while held"), "4")
    browser.fill(role("textbox", "Name"), "Talk")
    browser.click(role("button", "Save macro"))
    status = element_id("settings-macro-status")
    browser.wait(status, "text", equals="Saved: Talk is in slot 4 of Main.")
    assert get_json(mixer, "/api/macros")["pages"]["0"][3] == {
        "type": "hold_unmute", "name": "Talk", "icon": "", "target": 4}
    browser.wait(element_id("settings-macro-slot-3-kind"), "text", equals="Hold to talk")

    browser.click(role("button", "Slot 5 Empty"))
    browser.select(role("combobox", "What it does"), "hold_mute")
    browser.select(role("combobox", "What to mute while held"), "master")
    browser.fill(role("textbox", "Name"), "Quiet")
    browser.click(role("button", "Save macro"))
    browser.wait(status, "text", equals="Saved: Quiet is in slot 5 of Main.")
    assert get_json(mixer, "/api/macros")["pages"]["0"][4]["target"] == "master"

    # The device's button holds: the microphone (muted first) is open only while it is down.
    assert http("POST", mixer.url("/api/mutes/4"), b"")[1]["muted"] is True
    device.send("MACRO,3,PRESS")
    wait_until(lambda: get_json(mixer, "/api/mutes")["individual"][3] is False, what="open while held")
    device.send("MACRO,3,RELEASE")
    wait_until(lambda: get_json(mixer, "/api/mutes")["individual"][3] is True, what="closed when let go")


@pytest.mark.parametrize("name,width,height,touch", SIZES)
def test_the_sliders_macros_and_profiles_views_pass_axe_wcag_a_and_aa(
        browser, mixer, name, width, height, touch):
    open_view(browser, mixer, "Sliders", width, height, touch)
    browser.wait(role("button", "Save slider 1"), "visible", equals=True)
    check_axe(browser, f"{name} sliders")
    browser.fill(element_id("setting-sliders-0-label"), "é" * 40)
    browser.click(role("button", "Save slider 1"))
    browser.wait(element_id("setting-sliders-0-label-error"), "text", regex=r"\S")
    check_axe(browser, f"{name} sliders with an error")

    browser.click(role("tab", "Macros"))
    browser.click(role("button", "Slot 1 Silence chat"))
    browser.select(role("combobox", "What it does"), "http")
    browser.click(role("button", "Save macro"))
    browser.wait(element_id("settings-macro-http-url-error"), "text", regex=r"\S")
    check_axe(browser, f"{name} macros with an error")
    browser.click(role("button", "Slot 9 Backup"))
    check_axe(browser, f"{name} macros, a command macro")

    browser.click(role("tab", "Profiles"))
    browser.wait(role("button", "Load Default"), "visible", equals=True)
    browser.click(role("button", "Edit Default"))
    check_axe(browser, f"{name} profiles, editing")
    browser.fill(element_id("settings-profile-new-name"), "Default")
    browser.click(role("button", "Save as a new profile"))
    browser.wait(element_id("settings-profile-new-name-error"), "text", regex=r"\S")
    check_axe(browser, f"{name} profiles with an error")


def test_every_kind_of_fields_reaches_the_api_as_the_api_documents_it(browser, mixer):
    open_view(browser, mixer, "Macros", width=1280, height=800, touch=False)
    browser.click(role("button", "Games"))
    status = element_id("settings-macro-status")

    def make(index, kind, name, fill=(), select=()):
        browser.click(role("button", f"Slot {index + 1} Empty"))
        browser.select(role("combobox", "What it does"), kind)
        browser.fill(role("textbox", "Name"), name)
        for target, value in fill:
            browser.fill(target, value)
        for target, value in select:
            browser.select(target, value)
        browser.click(role("button", "Save macro"))
        browser.wait(status, "text", equals=f"Saved: {name} is in slot {index + 1} of Games.")
        return get_json(mixer, "/api/macros")["pages"]["2"][index]

    common = {"icon": ""}
    assert make(0, "volume", "Quieter", fill=[(role("spinbutton", "Step"), "-10")],
                select=[(role("combobox", "Which volume"), "master")]) == {
        **common, "type": "volume", "name": "Quieter", "target": "master", "step": -10}
    assert make(1, "stream_source", "Cam", fill=[(role("textbox", "Source"), "Camera")],
                select=[(role("combobox", "Show or hide"), "false")]) == {
        **common, "type": "stream_source", "name": "Cam", "source_name": "Camera", "visible": False}
    assert make(2, "smarthome", "Desk", fill=[(role("combobox", "Entity"), "light.desk"),
                                             (role("spinbutton", "Brightness"), "40")],
                select=[(role("combobox", "Action"), "turn_on")]) == {
        **common, "type": "smarthome", "name": "Desk", "entity_id": "light.desk", "action": "turn_on",
        "brightness": 40}
    steps = [{"type": "mute", "target": 1}, {"type": "delay", "ms": 250}]
    stored = make(3, "sequence", "Both", fill=[(role("textbox", "Steps"), json.dumps(steps))])
    assert stored["type"] == "sequence" and [s["type"] for s in stored["steps"]] == ["mute", "delay"], stored
    assert stored["steps"][1]["ms"] == 250 and stored["steps"][0]["target"] == 1, stored
    assert make(4, "plugin", "Hello", fill=[(role("textbox", "Plugin type"), "greeter"),
                                           (role("textbox", "The plugin's fields"), '{"message": "hi"}')]) == {
        **common, "type": "plugin", "name": "Hello", "plugin_type": "greeter", "message": "hi"}
    assert make(5, "media", "Next", select=[(role("combobox", "Action"), "next")]) == {
        **common, "type": "media", "name": "Next", "action": "next"}
    # A stored macro comes back into the editor as it was saved.
    browser.click(role("button", "Slot 3 Desk"))
    assert browser.read(role("combobox", "Entity")) == "light.desk"
    assert browser.read(role("spinbutton", "Brightness")) == "40"
    assert browser.read(role("combobox", "Action")) == "turn_on"
    # A sequence with a command step is refused by the API, in its own words.
    browser.click(role("button", "Slot 4 Both"))
    browser.fill(role("textbox", "Steps"), json.dumps([{"type": "command", "argv": ["/bin/true"]}]))
    browser.click(role("button", "Save macro"))
    said = browser.wait(status, "text", regex=r"\S")["value"]
    assert said.startswith("Not saved: steps[0] is a command macro"), said
    assert get_json(mixer, "/api/macros")["pages"]["2"][3]["steps"][0]["type"] == "mute"
