"""The settings area (docs/web.md "Settings"): loaded only when opened, a form built from the
settings schema that saves through PATCH /api/settings, secrets that never reach the page, the
history with Undo, and axe-core's WCAG 2.x A and AA rules with no violation."""
import gzip
import json
import os
import urllib.parse
import urllib.request

import pytest

from browser import element_id, label, role
from conftest import SCREENSHOTS, check_serves_the_page, harness, open_live, web_settings

get_json, http, wait_until = harness.get_json, harness.http, harness.wait_until

SIZES = [("phone", 390, 844, True), ("desktop", 1280, 800, False)]
PAGE_BUDGET = 100_000  # bytes on the wire, gzipped, for everything the live page loads
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
SAVE_DAEMON = role("button", "Save Daemon settings")


def path_of(url):
    return urllib.parse.urlsplit(url).path


def settings_modules(requests):
    return [path_of(r["url"]) for r in requests
            if path_of(r["url"]).startswith(("/assets/app/settings/", "/assets/settings.css"))]


def settings_file(daemon):
    with open(daemon.settings_file()) as f:
        return json.load(f)


def open_settings(browser, daemon, width=1280, height=800, touch=False):
    open_live(browser, daemon, width=width, height=height, touch=touch)
    browser.click(role("button", "Settings"))
    browser.wait(role("button", "Settings"), "attr:aria-expanded", equals="true")
    # The form is drawn once the schema and the settings are read; it is not the first view.
    browser.click(role("tab", "Other settings"))
    browser.wait(SAVE_DAEMON, "visible", equals=True)


def wire_size(url):
    """Bytes of `url` gzipped: as served when the server stored a .gz copy, else gzip -9."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=5) as resp:
        body = resp.read()
        packed = resp.headers.get("Content-Encoding") == "gzip"
    return len(body) if packed else len(gzip.compress(body, 9))


def test_the_live_page_loads_no_settings_code_until_the_area_opens_and_stays_small(browser, web):
    open_live(browser, web)
    requests = browser.log()["requests"]
    assert settings_modules(requests) == []
    files = {r["url"] for r in requests if r["method"] == "GET" and r["resourceType"] != "websocket"
             and not path_of(r["url"]).startswith(("/api/", "/socket.io/"))}
    sizes = {path_of(url): wire_size(url) for url in files}
    total = sum(sizes.values())
    print(f"\n[figures] live page: {len(sizes)} files, {total} bytes gzipped")
    assert total < PAGE_BUDGET, sizes

    first = len(requests)
    browser.click(role("button", "Settings"))
    browser.click(role("tab", "Other settings"))
    browser.wait(SAVE_DAEMON, "visible", equals=True)
    loaded = settings_modules(browser.log(since=first)["requests"])
    assert "/assets/app/settings/area.js" in loaded and "/assets/settings.css" in loaded, loaded
    log = browser.log()
    assert log["consoleErrors"] == [] and log["pageErrors"] == [], log


def test_opening_and_closing_moves_the_focus_and_the_tabs_follow_the_keyboard(browser, web):
    open_live(browser, web)
    browser.click(role("button", "Settings"))
    browser.wait(role("heading", "Settings"), "visible", equals=True)
    assert browser.focused()["id"] == "settings-heading"
    assert browser.read(element_id("main"), "visible") is False
    browser.click(role("tab", "Other settings"))
    browser.press("ArrowRight")
    browser.wait(role("tab", "History"), "attr:aria-selected", equals="true")
    assert browser.focused()["id"] == "settings-tab-history"
    browser.wait(role("button", "Undo the last change"), "visible", equals=True)
    browser.click(role("button", "Close settings"))
    browser.wait(element_id("main"), "visible", equals=True)
    assert browser.focused()["id"] == "settings-open"
    assert browser.read(role("button", "Settings"), "attr:aria-expanded") == "false"
    assert browser.read(element_id("settings-area"), "visible") is False


@pytest.mark.parametrize("name,width,height,touch", SIZES)
def test_a_changed_setting_is_saved_through_the_api_and_in_the_file(
        browser, web, name, width, height, touch):
    open_settings(browser, web, width, height, touch)
    browser.select(role("combobox", "Log level"), "debug")
    browser.fill(role("spinbutton", "Socket.IO max sessions"), "150")
    browser.click(SAVE_DAEMON)
    browser.wait(element_id("settings-group-daemon-status"), "text", equals="Daemon settings saved.")
    settings = get_json(web, "/api/settings")
    assert settings["log_level"] == "debug" and settings["socketio_max_sessions"] == 150
    wait_until(lambda: settings_file(web).get("log_level") == "debug", what="log_level in settings.json")
    assert settings_file(web)["socketio_max_sessions"] == 150
    # The form shows the saved values, and a second save has nothing to send.
    assert browser.read(role("combobox", "Log level")) == "debug"
    first = len(browser.log()["requests"])
    browser.click(SAVE_DAEMON)
    browser.wait(element_id("settings-group-daemon-status"), "text", contains="Nothing to save")
    patches = [r for r in browser.log(since=first)["requests"] if r["method"] == "PATCH"]
    assert patches == []
    layout = browser.layout()
    assert layout["scrollWidth"] <= layout["clientWidth"], layout
    browser.screenshot(os.path.join(SCREENSHOTS, f"settings-{name}.png"), full_page=True)


def test_a_refused_value_shows_the_api_error_at_its_field_and_changes_nothing(browser, web):
    open_settings(browser, web)
    before = settings_file(web)
    history = get_json(web, "/api/config/history")["history"]
    browser.select(role("combobox", "Log level"), "debug")  # a good change beside the bad one
    sessions = role("spinbutton", "Socket.IO max sessions")
    browser.fill(sessions, "0")
    browser.click(SAVE_DAEMON)
    error = element_id("setting-socketio-max-sessions-error")
    said = browser.wait(error, "text", regex=r"\S")["value"]
    assert said == "socketio_max_sessions must be an integer from 1 to 100000", said
    assert browser.read(sessions, "attr:aria-invalid") == "true"
    assert "setting-socketio-max-sessions-error" in browser.read(sessions, "attr:aria-describedby").split()
    assert browser.focused()["id"] == "setting-socketio-max-sessions"
    settings = get_json(web, "/api/settings")
    assert "log_level" not in settings and "socketio_max_sessions" not in settings, settings
    assert settings_file(web) == before
    assert get_json(web, "/api/config/history")["history"] == history
    # A member of an object (its view is Integrations): the error goes to that member.
    browser.click(role("tab", "Integrations"))
    url = element_id("setting-smarthome-url")
    browser.fill(url, "ftp://hub.lan")
    browser.click(role("button", "Save Home Assistant settings"))
    said = browser.wait(element_id("setting-smarthome-url-error"), "text", regex=r"\S")["value"]
    assert said.startswith("smarthome.url must be"), said
    assert browser.read(url, "attr:aria-invalid") == "true"
    assert "smarthome" not in get_json(web, "/api/settings")
    # Corrected, the error goes away and the value is saved.
    browser.click(role("tab", "Other settings"))
    browser.fill(sessions, "300")
    browser.click(SAVE_DAEMON)
    browser.wait(element_id("settings-group-daemon-status"), "text", equals="Daemon settings saved.")
    assert browser.read(error, "text") == ""
    assert browser.read(sessions, "attr:aria-invalid") is None
    assert get_json(web, "/api/settings")["socketio_max_sessions"] == 300


def test_secrets_show_set_or_not_set_never_their_text_and_can_be_replaced_and_cleared(browser, web):
    open_settings(browser, web)
    on_disk = settings_file(web)
    secrets = [on_disk["toast_api_key"], on_disk["plant_store_token"]]  # made at the first start
    assert all(len(secret) >= 16 for secret in secrets), on_disk
    toast, metrics = label("Toast API key"), label("Metrics token")
    assert browser.read(element_id("setting-toast-api-key-state"), "text") == "Set"
    assert browser.read(element_id("setting-metrics-token-state"), "text") == "Not set"
    assert browser.read(toast) == "" and browser.read(toast, "attr:type") == "password"

    def page_holds(text):
        seen = browser.page_text()
        return text in seen["html"] or any(text in value for value in seen["values"])

    assert not any(page_holds(secret) for secret in secrets)
    assert not page_holds("********")

    # Set one that was not set (the page is on loopback: a trusted caller with login off).
    token = "metrics-token-0123456789"
    browser.fill(metrics, token)
    browser.click(SAVE_DAEMON)
    browser.wait(element_id("setting-metrics-token-state"), "text", equals="Set")
    assert get_json(web, "/api/settings")["metrics_token"] == "********"
    wait_until(lambda: settings_file(web).get("metrics_token") == token, what="the token in the file")
    assert browser.read(metrics) == "" and not page_holds(token)

    # Replace one that was set.
    key = "a-new-toast-key-0123456789abcdef"
    browser.fill(toast, key)
    browser.click(role("button", "Save Notifications settings"))
    browser.wait(element_id("settings-group-toast-status"), "text", equals="Notifications settings saved.")
    wait_until(lambda: settings_file(web).get("toast_api_key") == key, what="the new key in the file")
    assert not page_holds(key)

    # Clear: pressed, the save removes it.
    browser.click(role("button", "Clear Metrics token"))
    assert browser.read(role("button", "Clear Metrics token"), "attr:aria-pressed") == "true"
    browser.click(SAVE_DAEMON)
    browser.wait(element_id("setting-metrics-token-state"), "text", equals="Not set")
    assert get_json(web, "/api/settings")["metrics_token"] == ""
    wait_until(lambda: not settings_file(web).get("metrics_token"), what="the token cleared in the file")
    assert browser.read(role("button", "Clear Metrics token"), "attr:aria-pressed") == "false"


def test_the_history_lists_a_change_and_undo_brings_the_old_value_back(browser, web):
    open_settings(browser, web)
    assert "log_level" not in get_json(web, "/api/settings")
    browser.select(role("combobox", "Log level"), "warn")
    browser.click(SAVE_DAEMON)
    browser.wait(element_id("settings-group-daemon-status"), "text", equals="Daemon settings saved.")
    assert get_json(web, "/api/settings")["log_level"] == "warn"
    newest = get_json(web, "/api/config/history")["history"][0]
    assert newest["source"] == "web" and newest["summary"] == "log_level", newest

    browser.click(role("tab", "History"))
    change = role("button", f"Roll back change {newest['id']}")
    browser.wait(change, "visible", equals=True)
    described = browser.read(element_id(f"settings-history-{newest['id']}"), "text")
    assert "log_level" in described and "Web page" in described, described
    browser.click(role("button", "Undo the last change"))
    wait_until(lambda: "log_level" not in get_json(web, "/api/settings"), what="log_level undone")
    wait_until(lambda: "log_level" not in settings_file(web), what="log_level gone from the file")
    # The rollback is the newest entry now (Undo says so), and the form shows the old value again.
    browser.wait(role("button", "Undo the rollback"), "visible", equals=True)
    top = get_json(web, "/api/config/history")["history"][0]
    assert top["source"] == "rollback", top
    browser.wait(role("button", f"Roll back change {top['id']}"), "visible", equals=True)
    browser.click(role("tab", "Other settings"))
    assert browser.read(role("combobox", "Log level")) == ""  # "Default (info)"

    # Rolling back the rollback (a redo) from its own button.
    browser.click(role("tab", "History"))
    browser.click(role("button", f"Roll back change {top['id']}"))
    wait_until(lambda: get_json(web, "/api/settings").get("log_level") == "warn", what="log_level redone")


@pytest.fixture
def reachable(daemon_factory, device, data_dir):
    """A daemon on every interface, and its address as another machine on the network uses it."""
    harness.write_settings(data_dir, web_settings())
    daemon = daemon_factory("--serial", device.path, "--bind", "0.0.0.0")
    check_serves_the_page(daemon)
    return daemon, f"http://{harness.other_address()}:{daemon.ports['controller']}"


def test_a_secret_from_another_machine_is_refused_in_its_group_with_the_login_hint(browser, reachable):
    daemon, remote = reachable
    browser.open(remote + "/")
    browser.wait(element_id("daemon-state"), "text", regex=r"^\s*daemon connected")
    browser.click(role("button", "Settings"))
    browser.click(role("tab", "Other settings"))
    browser.wait(SAVE_DAEMON, "visible", equals=True)
    before = settings_file(daemon)
    browser.fill(label("Metrics token"), "metrics-token-0123456789")
    browser.click(SAVE_DAEMON)
    said = browser.wait(element_id("settings-group-daemon-status"), "text", regex=r"\S")["value"]
    assert said.startswith("Not saved: metrics_token holds a secret or an access rule"), said
    assert "Setting a password" in said and "turns login on" in said, said
    assert settings_file(daemon) == before
    assert get_json(daemon, "/api/settings")["metrics_token"] == ""
    # A setting that is no secret is still this visitor's to change.
    browser.fill(label("Metrics token"), "")
    browser.select(role("combobox", "Log level"), "error")
    browser.click(SAVE_DAEMON)
    browser.wait(element_id("settings-group-daemon-status"), "text", equals="Daemon settings saved.")
    assert get_json(daemon, "/api/settings")["log_level"] == "error"


@pytest.mark.parametrize("name,width,height,touch", SIZES)
def test_every_settings_view_passes_axe_wcag_a_and_aa(browser, web, name, width, height, touch):
    open_settings(browser, web, width, height, touch)
    assert http("PATCH", web.url("/api/settings"), {"log_level": "debug"},
                headers={"X-Mixerd-Source": "web"})[0] == 200  # something in the history

    def check(view):
        result = browser.axe(AXE_TAGS)
        print(f"\n[figures] axe {result['version']} {name} {view}: {result['passes']} rules passed, "
              f"{len(result['violations'])} violated")
        assert result["violations"] == [], json.dumps(result["violations"], indent=1)

    check("options")
    # With an error shown next to a field.
    browser.fill(role("spinbutton", "Socket.IO max sessions"), "0")
    browser.click(SAVE_DAEMON)
    browser.wait(element_id("setting-socketio-max-sessions-error"), "text", regex=r"\S")
    check("options with an error")
    browser.click(role("tab", "History"))
    browser.wait(role("button", "Undo the last change"), "visible", equals=True)
    browser.wait(role("button", "Roll back change 1"), "visible", equals=True)
    check("history")
