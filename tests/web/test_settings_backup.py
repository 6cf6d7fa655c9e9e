"""The settings area's Backup view and the History's Undo (docs/web.md "Settings"), in Chromium
against the real mixerd and a pty device: an export downloads the configuration without secrets,
an export with the passwords needs the login password, an import shows what the file holds,
asks, applies it live (the device gets the new label) and can be rolled back in History; a broken
file is refused naming its key with nothing changed; axe-core at phone and desktop size."""
import json
import os
import re

import pytest

from browser import element_id, label, role
from conftest import (LABELS, SCREENSHOTS, check_serves_the_page, harness, set_password, wait_live,
                      web_settings)

get_json, http, wait_until = harness.get_json, harness.http, harness.wait_until
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
SIZES = [("phone", 390, 844, True), ("desktop", 1280, 800, False)]
METRICS_TOKEN = "metrics-token-0123456789abcdef"
PASSWORD = "correct horse"

EXPORT = role("button", "Export the configuration")
EXPORT_SECRETS = role("button", "Export with the passwords")
PASSWORD_BOX = label("Login password")
FILE_BOX = label("Configuration file")
REPLACE = role("button", "Replace the configuration with this file")
IMPORT_STATUS = element_id("settings-import-status")
FILE_ERROR = element_id("settings-import-file-error")


def start(daemon_factory, device, data_dir, args=(), password=None):
    """Four labelled sliders, two mute macros and a metrics token (a secret); with `password`,
    login is on (set before the daemon starts)."""
    settings = web_settings()
    settings["metrics_token"] = METRICS_TOKEN
    harness.write_settings(data_dir, settings)
    if password:
        set_password(data_dir, password=password)
    daemon = daemon_factory("--serial", device.path, *args)
    if not password:  # with login on, the page's "Device connected" says it (log_in)
        wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="device link")
    check_serves_the_page(daemon)
    return daemon


@pytest.fixture
def mixer(daemon_factory, device, data_dir):
    return start(daemon_factory, device, data_dir)


def open_backup(browser, daemon, width=390, height=844, touch=True, base=None, headers=None):
    """Opens the page (at `base`, or the daemon's own address; already open when base is False)
    and the settings area's Backup tab."""
    if base is not False:
        browser.open((base or daemon.url("")) + "/", width=width, height=height, touch=touch)
    browser.wait(element_id("daemon-state"), "text", regex=r"^\s*daemon connected")
    browser.click(role("button", "Settings"))
    browser.wait(role("button", "Settings"), "attr:aria-expanded", equals="true")
    browser.click(role("tab", "Backup"))
    browser.wait(role("tab", "Backup"), "attr:aria-selected", equals="true")
    browser.wait(EXPORT, "visible", equals=True)


def check_axe(browser, what):
    result = browser.axe(AXE_TAGS)
    print(f"\n[figures] axe {result['version']} {what}: {result['passes']} rules passed, "
          f"{len(result['violations'])} violated")
    assert result["violations"] == [], json.dumps(result["violations"], indent=1)


def history(daemon):
    return get_json(daemon, "/api/config/history")["history"]


def exported(browser, button=EXPORT):
    """Clicks an export button; answers the downloaded file's name and its JSON."""
    file = browser.download(button)
    assert re.fullmatch(r"mixerd-config-\d{4}-\d{2}-\d{2}\.json", file["name"]), file["name"]
    return file["name"], file["text"], json.loads(file["text"])


def choose(browser, content, name="backup.json"):
    browser.set_file(FILE_BOX, name, content if isinstance(content, str) else json.dumps(content))


def test_export_import_of_a_changed_file_applies_live_and_undo_rolls_it_back(browser, mixer, device):
    daemon = mixer
    open_backup(browser, daemon)
    # The export: the settings and the profiles, no secret in it.
    name, text, backup = exported(browser)
    browser.wait(element_id("settings-export-status"), "text",
                 equals=f"Saved as {name} in the browser's downloads.")
    assert backup["mixerd_config"] == 1 and backup["secrets"] is False, backup
    assert [s["label"] for s in backup["settings"]["sliders"]] == LABELS
    assert backup["settings"]["macros"]["pages"]["0"][0]["name"] == "Silence chat"
    assert [p["name"] for p in backup["profiles"]] == ["Default"]
    assert METRICS_TOKEN not in text and "metrics_token" not in backup["settings"]
    assert "toast_api_key" not in backup["settings"] and "auth_password_hash" not in backup["settings"]

    # With the passwords, while no login password exists: the API's reason at the field.
    assert "no login password yet" in browser.read(element_id("settings-export-password-hint"), "text")
    browser.fill(PASSWORD_BOX, "anything at all")
    browser.click(EXPORT_SECRETS)
    said = browser.wait(element_id("settings-export-password-error"), "text", regex=r"\S")["value"]
    assert said == ("Exporting the secrets needs the login password, and none is set "
                    "(POST /api/auth/password sets one)"), said
    assert browser.read(PASSWORD_BOX, "attr:aria-invalid") == "true"
    assert browser.focused()["id"] == "settings-export-password"

    # A broken file: refused naming the key, nothing changed.
    before, changes = get_json(daemon, "/api/settings"), history(daemon)
    broken = json.loads(text)
    broken["settings"]["master_volume"] = 500
    broken["settings"]["sliders"][1]["label"] = "Broken"
    choose(browser, broken)
    browser.wait(REPLACE, "visible", equals=True)
    assert browser.focused()["text"] == "Replace the configuration with this file"
    browser.click(REPLACE)
    said = browser.wait(FILE_ERROR, "text", regex=r"\S")["value"]
    assert said == ("Not imported, nothing changed: "
                    "settings.master_volume must be an integer from 0 to 100"), said
    assert browser.read(FILE_BOX, "attr:aria-invalid") == "true"
    assert browser.count(REPLACE) == 0  # the confirmation is gone
    assert get_json(daemon, "/api/settings") == before and history(daemon) == changes
    assert get_json(daemon, "/api/sliders")["sliders"][1]["label"] == "Music"

    # Cancel leaves everything as it is.
    changed = json.loads(text)
    changed["settings"]["sliders"][1]["label"] = "Tunes"
    choose(browser, changed)
    browser.click(role("button", "Cancel"))
    browser.wait(IMPORT_STATUS, "text", equals="Nothing imported.")
    assert get_json(daemon, "/api/settings") == before

    # The changed file: what it holds, then the import, applied live and on the device.
    choose(browser, changed)
    browser.wait(REPLACE, "visible", equals=True)
    summary = browser.read(element_id("settings-import-summary"), "text")
    for words in (backup["exported"].replace("T", " "), f"mixerd version{backup['app_version']}",
                  "Not included: the ones set here are kept.", "Profiles1 (Default)."):
        assert words in summary, summary
    browser.screenshot(os.path.join(SCREENSHOTS, "settings-backup-confirm-phone.png"), full_page=True)
    browser.click(REPLACE)
    said = browser.wait(IMPORT_STATUS, "text", regex=r"\S")["value"]
    device.expect(lambda line: line.startswith("VOL,1,Tunes,"), what="the imported label on the device")
    assert get_json(daemon, "/api/settings")["sliders"][1]["label"] == "Tunes"
    assert get_json(daemon, "/api/sliders")["sliders"][1]["label"] == "Tunes"
    imported = history(daemon)[0]
    assert imported["source"] == "web" and imported["summary"] == "sliders[1].label", imported
    assert said.startswith("Imported: the settings, macros and profiles are the file's now."), said
    assert f"in History (change {imported['id']}): roll back there" in said, said
    assert get_json(daemon, "/api/settings")["metrics_token"] == "********"  # kept: the file had none
    assert browser.focused()["id"] == "settings-import-heading"
    browser.screenshot(os.path.join(SCREENSHOTS, "settings-backup-phone.png"), full_page=True)
    # Every view got the new settings.
    browser.click(role("tab", "Sliders"))
    browser.wait(element_id("setting-sliders-1-label"), "value", equals="Tunes")

    # History: Undo says what it will do, then rolls the import back.
    browser.click(role("tab", "History"))
    undo_what = element_id("settings-history-undo-what")
    browser.wait(undo_what, "text", equals=f"Undo rolls back change {imported['id']} (sliders[1].label, by "
                 "Web page): those settings go back to what they were before it.")
    browser.click(role("button", "Undo the last change"))
    device.expect(lambda line: line.startswith("VOL,1,Music,"), what="the label before the import")
    assert get_json(daemon, "/api/settings")["sliders"][1]["label"] == "Music"
    # Undoing that rollback is a redo, and the button says so before it is pressed.
    rollback = history(daemon)[0]
    assert rollback["source"] == "rollback", rollback
    browser.wait(role("button", "Undo the rollback"), "visible", equals=True)
    assert browser.read(undo_what, "text") == (
        f"The last change, {rollback['id']}, is a rollback (sliders[1].label). Undo rolls it back: the "
        "settings go back to what they were before that rollback, so the change it undid comes back.")
    described = browser.read(role("button", "Undo the rollback"), "attr:aria-describedby")
    assert described == "settings-history-undo-what", described
    browser.screenshot(os.path.join(SCREENSHOTS, "settings-history-undo-phone.png"), full_page=True)
    browser.click(role("button", "Undo the rollback"))
    device.expect(lambda line: line.startswith("VOL,1,Tunes,"), what="the import's label again")
    assert get_json(daemon, "/api/settings")["sliders"][1]["label"] == "Tunes"


def log_in(browser, daemon, width, height, touch):
    browser.open(daemon.url("/"), width=width, height=height, touch=touch)
    browser.wait_for_path("/login")
    browser.fill(role("textbox", "Username"), "admin")
    browser.fill(role("textbox", "Password"), PASSWORD)
    browser.click(role("button", "Log in"))
    browser.wait_for_path("/")
    _, _, headers = http("POST", daemon.url("/api/auth/login"), {"username": "admin", "password": PASSWORD})
    cookie = {"Cookie": headers["Set-Cookie"].split(";")[0]}
    wait_live(browser, daemon, headers=cookie)
    return cookie


def test_export_with_the_passwords_needs_the_right_login_password(browser, daemon_factory, device, data_dir):
    daemon = start(daemon_factory, device, data_dir, password=PASSWORD)
    cookie = log_in(browser, daemon, 1280, 800, False)
    open_backup(browser, daemon, base=False)
    warning = browser.read(element_id("settings-export-secrets-warning"), "text")
    assert "holds the passwords, tokens and keys in plain text" in warning, warning
    assert "no login password yet" not in browser.read(element_id("settings-export-password-hint"), "text")
    # Empty: asked for before anything is sent; wrong: the API's words at the field.
    browser.click(EXPORT_SECRETS)
    browser.wait(element_id("settings-export-password-error"), "text", equals="Type the login password.")
    browser.fill(PASSWORD_BOX, "wrong horse")
    browser.click(EXPORT_SECRETS)
    browser.wait(element_id("settings-export-password-error"), "text", equals="password is wrong")
    assert browser.read(PASSWORD_BOX, "attr:aria-invalid") == "true"
    described = browser.read(PASSWORD_BOX, "attr:aria-describedby")
    assert "settings-export-password-error" in described, described

    browser.fill(PASSWORD_BOX, PASSWORD)
    name, text, backup = exported(browser, EXPORT_SECRETS)
    browser.wait(element_id("settings-export-secrets-status"), "text",
                 equals=f"Saved as {name}, with the passwords. Keep it where only you can read it.")
    assert browser.read(PASSWORD_BOX, "attr:aria-invalid") is None
    assert browser.read(PASSWORD_BOX) == ""  # not left in the page
    assert backup["secrets"] is True, backup
    assert backup["settings"]["metrics_token"] == METRICS_TOKEN
    assert backup["settings"]["auth_password_hash"].startswith("pbkdf2_sha256$"), backup["settings"]
    # The plain export beside it still holds none.
    _, plain_text, plain = exported(browser)
    assert plain["secrets"] is False and METRICS_TOKEN not in plain_text
    assert get_json_with(daemon, "/api/auth/status", cookie)["authenticated"] is True


def get_json_with(daemon, path, headers):
    status, body, _ = http("GET", daemon.url(path), headers=headers)
    assert status == 200, (status, body)
    return body


def test_from_another_machine_with_login_off_import_and_secrets_are_refused_with_the_login_hint(
        browser, daemon_factory, device, data_dir):
    daemon = start(daemon_factory, device, data_dir, args=("--bind", "0.0.0.0"))
    remote = f"http://{harness.other_address()}:{daemon.ports['controller']}"
    open_backup(browser, daemon, base=remote)
    _, text, _ = exported(browser)  # reading the configuration is anyone's, as GET /api/settings is
    before, changes = get_json(daemon, "/api/settings"), history(daemon)
    changed = json.loads(text)
    changed["settings"]["sliders"][0]["label"] = "Remote"
    choose(browser, changed)
    browser.click(REPLACE)
    said = browser.wait(IMPORT_STATUS, "text", regex=r"\S")["value"]
    assert said.startswith("Not imported: Importing a configuration needs login, or a client on this "
                           "machine while login is off"), said
    assert "Setting a password" in said and "turns login on" in said, said
    assert get_json(daemon, "/api/settings") == before and history(daemon) == changes

    browser.fill(PASSWORD_BOX, "anything at all")
    browser.click(EXPORT_SECRETS)
    said = browser.wait(element_id("settings-export-secrets-status"), "text", regex=r"\S")["value"]
    assert said.startswith("Not exported: Exporting the secrets needs login, "
                           "or a client on this machine"), said
    assert "Setting a password" in said, said
    assert browser.read(element_id("settings-export-password-error"), "text") == ""


@pytest.mark.parametrize("name,width,height,touch", SIZES)
def test_the_backup_view_passes_axe_wcag_a_and_aa(browser, mixer, name, width, height, touch):
    open_backup(browser, mixer, width, height, touch)
    check_axe(browser, f"{name} backup")
    _, text, _ = exported(browser)
    choose(browser, text)
    browser.wait(REPLACE, "visible", equals=True)
    check_axe(browser, f"{name} backup, confirming an import")
    broken = json.loads(text)
    broken["settings"]["master_volume"] = 500
    choose(browser, broken)
    browser.click(REPLACE)
    browser.wait(FILE_ERROR, "text", regex=r"\S")
    browser.fill(PASSWORD_BOX, "anything at all")
    browser.click(EXPORT_SECRETS)
    browser.wait(element_id("settings-export-password-error"), "text", regex=r"\S")
    check_axe(browser, f"{name} backup with errors")
    choose(browser, "not json {")
    said = browser.wait(FILE_ERROR, "text", regex=r"\S")["value"]
    assert said.startswith("backup.json is no JSON file:"), said
    browser.click(role("tab", "History"))
    browser.wait(role("button", "Undo the last change"), "visible", equals=True)
    check_axe(browser, f"{name} history with its undo description")
