"""Login on: the page is behind /login, the form logs in and out (docs/api.md, section 2.3)."""
import urllib.parse

import pytest

from browser import role
from conftest import check_serves_the_page, harness, set_password, wait_live, web_settings


@pytest.fixture
def secured(daemon_factory, device, data_dir):
    harness.write_settings(data_dir, web_settings())
    set_password(data_dir)
    daemon = daemon_factory("--serial", device.path)
    check_serves_the_page(daemon)
    return daemon


def path_of(url):
    return urllib.parse.urlsplit(url).path


def redirected_to_login(log):
    """The request for / answered 302 and the browser followed it to /login."""
    requests = log["requests"]
    page = [r for r in requests if path_of(r["url"]) == "/" and r["resourceType"] == "document"]
    login = [r for r in requests if path_of(r["url"]) == "/login" and r["resourceType"] == "document"]
    return (page and page[-1]["status"] == 302 and login and login[-1]["redirectedFrom"]
            and path_of(login[-1]["redirectedFrom"]) == "/" and login[-1]["status"] == 200)


def test_login_flow(browser, secured):
    daemon = secured
    opened = browser.open(daemon.url("/"))
    assert path_of(opened["url"]) == "/login" and opened["status"] == 200
    assert redirected_to_login(browser.log()), browser.log()["requests"]

    browser.fill(role("textbox", "Username"), "admin")
    browser.fill(role("textbox", "Password"), "wrong horse")
    browser.click(role("button", "Log in"))
    error = browser.wait({"role": "alert"}, "text", regex=r"\S")
    assert "Invalid username or password" in error["value"], error
    assert path_of(browser.url()) == "/login"

    browser.fill(role("textbox", "Password"), "correct horse")
    browser.click(role("button", "Log in"))
    browser.wait_for_path("/")
    # Live: the Socket.IO connection got in with the session cookie.
    _, _, headers = harness.http("POST", daemon.url("/api/auth/login"),
                                 {"username": "admin", "password": "correct horse"})
    wait_live(browser, daemon, headers={"Cookie": headers["Set-Cookie"].split(";")[0]})
    log = browser.log()
    # The browser reports the refused login's 401 itself; nothing else may have gone wrong.
    others = [e for e in log["consoleErrors"] if path_of(e["location"].get("url", "")) != "/api/auth/login"]
    assert others == [] and log["pageErrors"] == [], log

    browser.click(role("button", "Log out"))
    browser.wait_for_path("/login")
    first = len(browser.log()["requests"])
    browser.goto(daemon.url("/"))
    assert path_of(browser.url()) == "/login"
    assert redirected_to_login(browser.log(since=first)), browser.log(since=first)["requests"]
