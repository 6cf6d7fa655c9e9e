"""The web controller in headless Chromium, against the real mixerd and a pty device.

The daemon, the fake device and the settings helpers are those of tests/integration/conftest.py,
loaded by file path under another module name (both files are called conftest). The browser is
driven by driver/browser.mjs (playwright-core, Debian's /usr/bin/chromium) through browser.py;
one browser serves the whole session, every test opens its own context (no shared cookies).

MIXERD_BIN names the binary; it serves the page from <dir of the binary>/../share/mixerd/web.
"""
import http.client
import importlib.util
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)


def _load_integration_harness():
    path = os.path.join(REPO, "tests", "integration", "conftest.py")
    spec = importlib.util.spec_from_file_location("integration_harness", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["integration_harness"] = module
    spec.loader.exec_module(module)
    return module


harness = _load_integration_harness()
# The harness's fixtures, registered here by name.
data_dir = harness.data_dir
device = harness.device
daemon_factory = harness.daemon_factory

from browser import Browser, element_id, role  # noqa: E402

SCREENSHOTS = os.path.join(REPO, "build", "web-screenshots")
LABELS = ["System", "Music", "Chat", "Mic"]
PAGE_NAMES = {"0": "Main", "1": "Stream", "2": "Games", "3": "Night"}
# Macros whose effect is a mute, so a tap shows on the device line, the REST state and the page.
MACROS = {
    (0, 0): {"type": "mute", "name": "Silence chat", "icon": "mic", "target": 3},
    (1, 4): {"type": "mute", "name": "Quiet all", "icon": "", "target": "master"},
}


def web_settings():
    assignments = [{"type": "system_default_output"}, {"type": "app", "names": ["spotify"]},
                   {"type": "app", "names": ["discord"]}, {"type": "system_default_input"}]
    return {"sliders": [{"label": label, "assignment": a} for label, a in zip(LABELS, assignments)],
            "macros": harness.macro_set(MACROS, current=0, names=PAGE_NAMES)}


def set_password(data_dir, user="admin", password="correct horse"):
    os.makedirs(data_dir, exist_ok=True)
    r = subprocess.run([harness.MIXERD_BIN, "set-password", user, "--data-dir", data_dir],
                       input=password + "\n", capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr


def check_serves_the_page(daemon):
    """Fails with a hint when the binary has no page to serve (a 302 to /login counts as one)."""
    conn = http.client.HTTPConnection("127.0.0.1", daemon.ports["controller"], timeout=5)
    try:
        conn.request("GET", "/")
        resp = conn.getresponse()
        resp.read()
        status, content_type = resp.status, resp.getheader("Content-Type", "")
    finally:
        conn.close()
    if status == 302:
        return
    web_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(harness.MIXERD_BIN))),
                           "share", "mixerd", "web")
    assert status == 200 and content_type.startswith("text/html"), (
        f"{harness.MIXERD_BIN} does not serve the web controller at / (status {status}, "
        f"Content-Type {content_type!r}); it serves {web_dir}, which tools/build.sh fills from web/")


@pytest.fixture(scope="session")
def browser():
    b = Browser()
    yield b
    b.quit()


@pytest.fixture
def web(daemon_factory, device, data_dir):
    """A daemon with four labelled sliders and two mute macros, linked to the fake device."""
    harness.write_settings(data_dir, web_settings())
    daemon = daemon_factory("--serial", device.path)
    harness.wait_until(lambda: harness.get_json(daemon, "/api/status")["connected"], what="device link")
    check_serves_the_page(daemon)
    return daemon


def open_live(browser, daemon, width=1280, height=800, touch=False, path="/"):
    """Opens the page and waits until it shows both links up and the sliders' values."""
    opened = browser.open(daemon.url(path), width=width, height=height, touch=touch)
    wait_live(browser, daemon)
    return opened


def wait_live(browser, daemon, timeout=5.0, headers=None):
    """Waits until the page shows both links up and the sliders' values as the API reports them
    (`headers`: a session cookie when login is on)."""
    browser.wait(element_id("daemon-state"), "text", regex=r"^\s*daemon connected", timeout=timeout)
    browser.wait(element_id("device-state"), "text", regex=r"^\s*device connected", timeout=timeout)
    status, body, _ = harness.http("GET", daemon.url("/api/sliders"), headers=headers)
    assert status == 200, (status, body)
    for slider in body["sliders"]:
        browser.wait(role("slider", slider["label"]), "value", equals=str(slider["value"]), timeout=timeout)


def open_view(browser, url, tab, ready, width=1280, height=800, touch=False, daemon=None):
    """Opens the page at `url`, the settings area and its tab `tab`; waits until `ready` shows."""
    if daemon is not None:
        open_live(browser, daemon, width=width, height=height, touch=touch)
    else:
        browser.open(url, width=width, height=height, touch=touch)
        browser.wait(element_id("daemon-state"), "text", regex=r"^\s*daemon connected")
    browser.click(role("button", "Settings"))
    browser.click(role("tab", tab))
    browser.wait(role("tab", tab), "attr:aria-selected", equals="true")
    browser.wait(ready, "visible", equals=True)


def screenshot(browser, name):
    """The whole page from its top (the header sticks to the top of the window: scrolled down,
    a full-page picture shows it over the middle), saved under build/web-screenshots/."""
    browser.click(element_id("settings-heading"))
    browser.screenshot(os.path.join(SCREENSHOTS, name), full_page=True)
