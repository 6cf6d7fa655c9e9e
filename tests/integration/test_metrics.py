"""GET /metrics: the Prometheus text format, counters that move with traffic, and its credentials
(the controller's login rule, or the metrics_token as a bearer token)."""
import json
import os
import subprocess
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import MIXERD_BIN, http, wait_until, write_settings
from plugin_support import install, plugin_info
from socketio_support import PyClient
from test_controller_auth import set_password, set_setting
from test_notification_api import call, key_of, next_toast

SLIDER_ROUTE = "/api/sliders/{index:1-4}"
TOKEN = "metrics-token-0123456789abcdef"


def scrape(daemon, headers=None):
    """(status, content type, raw text) of GET /metrics."""
    req = urllib.request.Request(daemon.url("/metrics"), headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, resp.headers["Content-Type"], resp.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read().decode()


def samples(daemon, headers=None):
    """{(sample name, frozenset of labels): value} of a scrape, parsed by prometheus_client."""
    status, _, text = scrape(daemon, headers)
    assert status == 200, text
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def value(daemon, name, **labels):
    return samples(daemon).get((name, frozenset(labels.items())), 0.0)


def requests_of(daemon, route, status, listener="controller"):
    return value(daemon, "mixerd_http_requests_total", listener=listener, route=route,
                 status=str(status))


def test_the_text_parses_with_help_and_type_for_every_family(daemon_factory):
    d = daemon_factory("--serial", "none")
    status, content_type, text = scrape(d)
    assert status == 200
    assert content_type == "text/plain; version=0.0.4; charset=utf-8"
    families = {f.name: f for f in text_string_to_metric_families(text)}
    expected = {"mixerd_build_info": "gauge", "mixerd_start_time_seconds": "gauge",
                "mixerd_http_requests": "counter", "mixerd_socketio_clients": "gauge",
                "mixerd_socketio_events_sent": "counter", "mixerd_device_connected": "gauge",
                "mixerd_device_reconnects": "counter", "mixerd_serial_lines": "counter",
                "mixerd_plugin_restarts": "counter", "mixerd_toasts": "counter"}
    for name, kind in expected.items():
        assert families[name].type == kind, name
        assert families[name].documentation, name
    for line in text.splitlines():
        if line.startswith("# TYPE"):
            assert line.split()[2].startswith("mixerd_")
    version = subprocess.run([MIXERD_BIN, "--version"], capture_output=True, text=True).stdout
    [info] = families["mixerd_build_info"].samples
    assert info.labels["version"] in version and info.value == 1


def test_requests_are_counted_by_route_pattern_and_status(daemon_factory):
    d = daemon_factory("--serial", "none")
    before_ok = requests_of(d, SLIDER_ROUTE, 200)
    before_bad = requests_of(d, SLIDER_ROUTE, 400)
    before_404 = requests_of(d, "unmatched", 404)
    for i in range(3):
        assert http("POST", d.url("/api/sliders/1"), {"value": 10 + i})[0] == 200
    assert http("POST", d.url("/api/sliders/1"), {"value": 101})[0] == 400
    assert http("POST", d.url("/api/sliders/9"), {"value": 1})[0] == 400
    assert http("GET", d.url("/api/no/such/route"))[0] == 404
    assert requests_of(d, SLIDER_ROUTE, 200) == before_ok + 3
    assert requests_of(d, SLIDER_ROUTE, 400) == before_bad + 2
    assert requests_of(d, "unmatched", 404) == before_404 + 1
    # Every scrape is itself a request of /metrics.
    first = requests_of(d, "/metrics", 200)
    assert requests_of(d, "/metrics", 200) == first + 1


def test_socketio_clients_and_events_sent_move(connected):
    daemon, device = connected
    assert value(daemon, "mixerd_socketio_clients") == 0
    client = PyClient(daemon.url("/"))
    try:
        client.event("initial_state")
        wait_until(lambda: value(daemon, "mixerd_socketio_clients") == 1, what="one client")
        sent = value(daemon, "mixerd_socketio_events_sent_total")
        device.send("SLIDER,1,64")
        client.event("slider_change", lambda p: p == {"index": 2, "value": 64, "position": 64, "pickup": False})
        assert value(daemon, "mixerd_socketio_events_sent_total") >= sent + 1
    finally:
        client.close()
    wait_until(lambda: value(daemon, "mixerd_socketio_clients") == 0, what="no client")


def test_serial_lines_and_reconnects_move(connected):
    daemon, device = connected
    lines_in = value(daemon, "mixerd_serial_lines_total", direction="in")
    lines_out = value(daemon, "mixerd_serial_lines_total", direction="out")
    assert value(daemon, "mixerd_device_connected") == 1
    assert value(daemon, "mixerd_device_reconnects_total") == 0
    for v in (10, 20, 30):
        device.send(f"SLIDER,2,{v}")
    wait_until(lambda: value(daemon, "mixerd_serial_lines_total", direction="in") >= lines_in + 3,
               what="three more lines in")
    assert http("POST", daemon.url("/api/sliders/3"), {"value": 40})[0] == 200
    device.expect(lambda l: l.startswith("VOL,2,") and l.endswith(",40"), what="the VOL line")
    assert value(daemon, "mixerd_serial_lines_total", direction="out") >= lines_out + 1
    device.unplug()
    wait_until(lambda: value(daemon, "mixerd_device_connected") == 0, what="disconnected")
    assert value(daemon, "mixerd_device_reconnects_total") == 0
    device.plug()
    wait_until(lambda: value(daemon, "mixerd_device_reconnects_total") == 1, what="a reconnect")
    assert value(daemon, "mixerd_device_connected") == 1


def test_toasts_are_counted_by_outcome(connected):
    daemon, device = connected
    shown = value(daemon, "mixerd_toasts_total", outcome="shown")
    status, _, _ = call(daemon, "POST", "/api/toast/send", key=key_of(daemon.data_dir),
                        body={"message": "Build done"})
    assert status == 200
    next_toast(device)
    assert value(daemon, "mixerd_toasts_total", outcome="shown") == shown + 1
    assert requests_of(daemon, "/api/toast/send", 200, listener="notification") == 1


def test_plugin_restarts_are_counted(daemon_factory, data_dir):
    crasher = install(data_dir, "test.metrics.crasher", crash_at_import=True, control=False)
    d = daemon_factory("--serial", "none")
    # The first restart comes 1 s after the first crash.
    # (The plugin is listed once the bridge has looked at its folder.)
    wait_until(lambda: (plugin_info(d, crasher.id) or {}).get("restarts", 0) >= 1, timeout=10,
               what="a restart")
    # Counted where the bridge counts its own `restarts`, before it publishes them.
    restarts = plugin_info(d, crasher.id)["restarts"]
    assert value(d, "mixerd_plugin_restarts_total") >= restarts >= 1


# ---- Credentials --------------------------------------------------------------------------------

@pytest.fixture
def secured(daemon_factory, data_dir):
    os.makedirs(data_dir, exist_ok=True)
    set_password(data_dir)
    set_setting(data_dir, "metrics_token", TOKEN)
    return daemon_factory("--serial", "none")


def test_login_on_needs_a_session_or_the_token(secured):
    d = secured
    status, _, text = scrape(d)
    assert status == 401 and json.loads(text) == {"error": "Authentication required"}
    status, _, text = scrape(d, {"Authorization": "Bearer " + TOKEN})
    assert status == 200 and "mixerd_http_requests_total" in text
    for wrong in ("Bearer " + TOKEN[:-1] + "x", "Bearer " + TOKEN + "x", "Basic " + TOKEN, TOKEN):
        assert scrape(d, {"Authorization": wrong})[0] == 401, wrong
    # The token opens /metrics only.
    assert http("GET", d.url("/api/sliders"), headers={"Authorization": "Bearer " + TOKEN})[0] == 401
    status, _, headers = http("POST", d.url("/api/auth/login"),
                              {"username": "admin", "password": "correct horse"})
    assert status == 200
    cookie = headers["Set-Cookie"].split(";")[0]
    assert scrape(d, {"Cookie": cookie})[0] == 200


def test_login_off_metrics_is_open_like_the_api(daemon_factory, data_dir):
    write_settings(data_dir, {"metrics_token": TOKEN})
    d = daemon_factory("--serial", "none")
    assert scrape(d)[0] == 200
    assert scrape(d, {"Authorization": "Bearer wrong-token-wrong-token"})[0] == 200


def test_a_short_metrics_token_is_refused_at_start(data_dir):
    write_settings(data_dir, {"metrics_token": "short"})
    r = subprocess.run([MIXERD_BIN, "--data-dir", data_dir, "--serial", "none", "--bind",
                        "127.0.0.1", "--controller-port", "0", "--toast-port", "0",
                        "--plants-port", "0"], capture_output=True, text=True, timeout=20)
    assert r.returncode != 0
    assert "metrics_token" in r.stdout + r.stderr
