"""The page as served: it loads cleanly, stays on loopback, fits a phone and a desktop, and the
Socket.IO client it is served is the one package-lock.json locks."""
import os
import urllib.parse
import urllib.request

import pytest

from browser import role
from conftest import LABELS, REPO, SCREENSHOTS, open_live

LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}
# The web/ folder whose committed files are checked: this checkout's unless told otherwise.
WEB_SRC = os.environ.get("MIXERD_WEB_SRC", os.path.join(REPO, "web"))
VENDORED = os.path.join(WEB_SRC, "assets", "vendor", "socket.io.esm.min.js")
LOCKED = os.path.join(WEB_SRC, "node_modules", "socket.io-client", "dist", "socket.io.esm.min.js")


def test_the_page_loads_without_errors_and_asks_only_loopback(browser, web):
    opened = open_live(browser, web)
    assert opened["status"] == 200
    # Used once, so the page has done what a user's first touch makes it do.
    browser.click(role("button", "Mute System"))
    browser.wait(role("button", "Mute System"), "attr:aria-pressed", equals="true")
    log = browser.log()
    assert log["consoleErrors"] == [] and log["pageErrors"] == [], log
    requests = log["requests"]
    hosts = {urllib.parse.urlsplit(r["url"]).hostname for r in requests}
    assert hosts <= LOOPBACK, [r["url"] for r in requests]
    failed = [(r["url"], r["status"]) for r in requests if r["status"] is not None and r["status"] >= 400]
    assert failed == []
    paths = [urllib.parse.urlsplit(r["url"]).path for r in requests]
    assert "/favicon.ico" not in paths  # the page names its icon
    assert any(p.startswith("/socket.io/") for p in paths)
    print(f"\n[figures] page load: {len(requests)} requests, all to {sorted(hosts)}")


@pytest.mark.parametrize("name,width,height,touch", [("phone", 390, 844, True),
                                                     ("desktop", 1280, 800, False)])
def test_no_sideways_scrolling_and_a_screenshot(browser, web, device, name, width, height, touch):
    open_live(browser, web, width=width, height=height, touch=touch)
    # A mixer in use: the device's sliders at different places, one channel muted.
    for index, value in enumerate((72, 45, 30, 88)):
        device.send(f"SLIDER,{index},{value}")
        browser.wait(role("slider", LABELS[index]), "value", equals=str(value))
    device.send("MUTE,2,PRESS")
    browser.wait(role("button", "Mute Chat"), "attr:aria-pressed", equals="true")
    layout = browser.layout()
    assert layout["scrollWidth"] <= layout["clientWidth"], layout
    for label in LABELS:
        box = browser.read(role("slider", label), "box")
        assert box["height"] > box["width"], f"slider {label} is not vertical: {box}"
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (label, box)
    path = os.path.join(SCREENSHOTS, name + ".png")
    browser.screenshot(path)
    assert os.path.getsize(path) > 0


def test_the_narrowest_phone_has_no_sideways_scrolling_and_big_touch_targets(browser, web):
    open_live(browser, web, width=360, height=740, touch=True)
    layout = browser.layout()
    assert layout["scrollWidth"] <= layout["clientWidth"], layout
    small = [(b["name"], b["box"]) for b in browser.boxes("button")
             if b["box"]["width"] < 44 or b["box"]["height"] < 44]
    assert small == [], "touch targets under 44 px"


def test_the_vendored_socketio_client_is_the_locked_one_and_is_served_as_is(web):
    assert os.path.exists(LOCKED), (
        f"{LOCKED} is missing: run `npm ci` in {WEB_SRC} (tools/run-tests.sh does)")
    with open(VENDORED, "rb") as f:
        vendored = f.read()
    with open(LOCKED, "rb") as f:
        assert vendored == f.read(), f"{VENDORED} differs from the locked socket.io-client's file"
    with urllib.request.urlopen(web.url("/assets/vendor/socket.io.esm.min.js"), timeout=5) as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"].split(";")[0] in ("text/javascript", "application/javascript")
        assert resp.read() == vendored  # no Accept-Encoding: the file itself
