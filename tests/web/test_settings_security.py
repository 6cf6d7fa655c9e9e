"""The settings area's Security view (docs/web.md "Settings"): the first password set from the
page turns login on and keeps the browser logged in, a change needs the current password, the
login switch, the sessions with "Log out everywhere", the loopback rule explained to a browser on
another machine, and the notification API's key and handlers, each checked through the API."""
import re
import urllib.parse

from browser import element_id, label, role
from conftest import harness, open_view
from test_settings_area import reachable, settings_file  # noqa: F401 (a fixture)
from test_settings_integrations import screenshot

get_json, http, wait_until = harness.get_json, harness.http, harness.wait_until

TOAST = "notification API"
SAVE_LOGIN = role("button", "Save login switch")
PASSWORD = "correct horse battery"


def open_security(browser, daemon=None, url=None, width=1280, height=800, touch=False):
    open_view(browser, url, "Security", SAVE_LOGIN, width, height, touch, daemon=daemon)


def set_password_on_the_page(browser, password=PASSWORD, current=None):
    if current is not None:
        browser.fill(label("Current password"), current)
    browser.fill(label("New password"), password)
    browser.fill(label("New password again"), password)
    browser.click(role("button", "Change the password" if current is not None else "Set the password"))


def login_cookie(daemon, password=PASSWORD, user="admin"):
    status, body, headers = http("POST", daemon.url("/api/auth/login"), {"username": user, "password": password})
    assert status == 200, (status, body)
    return {"Cookie": headers["Set-Cookie"].split(";")[0]}


def auth_status(daemon):
    return get_json(daemon, "/api/auth/status")


def path_of(url):
    return urllib.parse.urlsplit(url).path


def test_the_first_password_set_on_the_phone_turns_login_on_and_keeps_the_browser_in(browser, web):
    open_security(browser, web, width=390, height=844, touch=True)
    state = element_id("security-login-state")
    assert browser.read(state, "text") == "Login is off, and no password is set yet."
    assert browser.read(label("Current password"), "visible") is False
    assert browser.read(role("textbox", "Username")) == "admin"
    # Two different passwords never leave the page.
    browser.fill(label("New password"), PASSWORD)
    browser.fill(label("New password again"), PASSWORD + "!")
    browser.click(role("button", "Set the password"))
    assert browser.wait(element_id("security-repeat-password-error"), "text", regex=r"\S")["value"] \
        == "The two new passwords differ."
    assert auth_status(web)["auth_enabled"] is False

    set_password_on_the_page(browser)
    browser.wait(element_id("security-password-status"), "text",
                 equals="Password set. Login is on; this browser is logged in as admin.")
    browser.wait(state, "text", equals="Login is on for admin.")
    browser.wait(role("list", "Sessions"), "text", contains="admin from 127.0.0.1 (this browser)")
    status = auth_status(web)  # this client has no session
    assert status["auth_enabled"] is True and status["authenticated"] is False
    assert status["password_set"] is True
    assert settings_file(web)["auth_password_hash"].startswith("pbkdf2_sha256$")
    # The browser stays logged in: the page opens without the login form.
    layout = browser.layout()
    assert layout["scrollWidth"] <= layout["clientWidth"], layout
    screenshot(browser, "settings-security-phone.png")
    browser.goto(web.url("/"))
    assert path_of(browser.url()) == "/"
    browser.wait(element_id("daemon-state"), "text", regex=r"^\s*daemon connected")


def test_changing_the_password_needs_the_current_one(browser, web):
    open_security(browser, web)
    set_password_on_the_page(browser)
    browser.wait(element_id("security-login-state"), "text", equals="Login is on for admin.")
    browser.wait(label("Current password"), "visible", equals=True)

    set_password_on_the_page(browser, "a new password 2", current="not the password")
    error = element_id("security-current-password-error")
    assert browser.wait(error, "text", regex=r"\S")["value"] == "current_password is wrong"
    assert browser.read(label("Current password"), "attr:aria-invalid") == "true"
    assert browser.focused()["id"] == "security-current-password"
    login_cookie(web)  # the old password still works

    set_password_on_the_page(browser, "a new password 2", current=PASSWORD)
    browser.wait(element_id("security-password-status"), "text", contains="Password set.")
    assert browser.read(error, "text") == ""
    assert http("POST", web.url("/api/auth/login"), {"username": "admin", "password": PASSWORD})[0] == 401
    login_cookie(web, "a new password 2")


def test_login_is_switched_off_and_on_from_the_page(browser, web):
    open_security(browser, web)
    switch = role("switch", "Require login")
    # On without a password: refused at the switch.
    browser.check(switch)
    browser.click(SAVE_LOGIN)
    said = browser.wait(element_id("setting-auth-enabled-error"), "text", regex=r"\S")["value"]
    assert said.startswith("auth_enabled"), said
    assert auth_status(web)["auth_enabled"] is False

    set_password_on_the_page(browser)
    browser.wait(element_id("security-login-state"), "text", equals="Login is on for admin.")
    assert browser.read(switch, "checked") is True
    browser.uncheck(switch)
    browser.click(SAVE_LOGIN)
    browser.wait(element_id("security-login-state"), "text",
                 equals="Login is off. A password is set: turning login on uses it.")
    assert auth_status(web)["auth_enabled"] is False and settings_file(web)["auth_enabled"] is False


def test_the_sessions_are_listed_and_log_out_everywhere_ends_them(browser, web):
    open_security(browser, web)
    set_password_on_the_page(browser)
    browser.wait(element_id("security-login-state"), "text", equals="Login is on for admin.")
    other = login_cookie(web)
    browser.click(role("tab", "Integrations"))
    browser.click(role("tab", "Security"))  # refresh() reads the sessions again
    browser.wait(role("list", "Sessions"), "text", contains="(this browser)")
    listed = browser.read(role("list", "Sessions"), "text")
    assert listed.count("admin from 127.0.0.1") == 2, listed
    assert http("GET", web.url("/api/sliders"), headers=other)[0] == 200

    browser.click(role("button", "Log out everywhere"))
    browser.wait_for_path("/login")
    assert http("GET", web.url("/api/sliders"), headers=other)[0] == 401
    assert auth_status(web)["auth_enabled"] is True


def test_another_machine_is_told_the_loopback_rule_and_may_set_the_first_password(
        browser, reachable):  # noqa: F811
    daemon, remote = reachable
    open_security(browser, url=remote + "/")
    rule = browser.read(element_id("security-login-heading"), "text")
    assert rule == "Login"
    card_text = browser.read(role("region", "Login"), "text")
    assert "only a browser on the machine that runs mixerd may change secrets" in card_text, card_text
    # A secret of this view is refused with the rule and the offer ...
    browser.click(role("button", "Make a new key"))
    said = browser.wait(element_id("security-key-status"), "text", regex=r"\S")["value"]
    assert said.startswith("Not saved: toast_api_key holds a secret"), said
    assert "Setting a password turns login on" in said
    # ... and the first password may be set from here: login goes on, this browser is in.
    set_password_on_the_page(browser)
    browser.wait(element_id("security-password-status"), "text", contains="Password set.")
    assert auth_status(daemon)["auth_enabled"] is True
    browser.click(role("button", "Make a new key"))
    browser.wait(element_id("security-key-status"), "text", equals="A new key is made and saved.")


def test_a_new_notification_key_is_shown_once_and_works_and_a_handler_is_switched_off(browser, web):
    old = settings_file(web)["toast_api_key"]
    open_security(browser, web)
    assert browser.read(element_id("security-key-state"), "text") == "Set"
    browser.click(role("button", "Make a new key"))
    browser.wait(element_id("security-key-status"), "text", equals="A new key is made and saved.")
    key = browser.read(role("textbox", "The new key"))
    assert re.fullmatch(r"[0-9a-f]{64}", key), key
    assert browser.focused()["id"] == "security-new-key"
    wait_until(lambda: settings_file(web)["toast_api_key"] == key, what="the new key in settings.json")
    toast = lambda k: http("GET", web.url("/api/toast/status", TOAST), headers={"X-API-Key": k})[0]  # noqa: E731
    wait_until(lambda: toast(key) == 200, what="the new key accepted")
    assert toast(old) == 401
    assert get_json(web, "/api/settings")["toast_api_key"] == "********"

    system = role("switch", "System")
    assert browser.read(system, "checked") is True
    browser.uncheck(system)
    browser.click(role("button", "Save notification handlers"))
    browser.wait(element_id("security-handlers-status"), "text", equals="Notification sources saved.")
    assert get_json(web, "/api/settings")["toast_handlers"]["system"] is False
    status, body, _ = http("GET", web.url("/api/toast/handlers", TOAST), headers={"X-API-Key": key})
    assert status == 200 and {h["id"]: h["enabled"] for h in body["handlers"]}["system"] is False, body
    # Drawn again, the key is gone from the page for good.
    browser.click(role("button", "Close settings"))
    browser.click(role("button", "Settings"))
    browser.wait(role("tab", "Security"), "visible", equals=True)
    assert key not in browser.page_text()["html"] and all(key not in v for v in browser.page_text()["values"])
