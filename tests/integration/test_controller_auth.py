"""Password login on the controller: 401s, login/logout, cookie flags, expiry, throttling."""
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import MIXERD_BIN, http, wait_until


def set_password(data_dir, user="admin", password="correct horse"):
    r = subprocess.run([MIXERD_BIN, "set-password", user, "--data-dir", data_dir],
                       input=password + "\n", capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr


def set_setting(data_dir, key, value):
    path = os.path.join(data_dir, "settings.json")
    with open(path) as f:
        s = json.load(f)
    s[key] = value
    with open(path, "w") as f:
        json.dump(s, f)


@pytest.fixture
def secured(daemon_factory, data_dir):
    os.makedirs(data_dir, exist_ok=True)
    set_password(data_dir)
    return daemon_factory("--serial", "none")


def login(daemon, password="correct horse", remember=False, user="admin"):
    return http("POST", daemon.url("/api/auth/login"),
                {"username": user, "password": password, "remember": remember})


def cookie_of(headers):
    raw = headers["Set-Cookie"]
    value = raw.split(";")[0].split("=", 1)[1]
    return value, raw


def test_auth_off_by_default(daemon_factory):
    d = daemon_factory("--serial", "none")
    status, body, _ = http("GET", d.url("/api/auth/status"))
    assert body == {"auth_enabled": False, "authenticated": True, "username": None,
                    "password_set": False}
    assert http("GET", d.url("/api/sliders"))[0] == 200


def test_everything_but_auth_needs_a_session(secured):
    d = secured
    status, body, _ = http("GET", d.url("/api/auth/status"))
    assert (status, body) == (200, {"auth_enabled": True, "authenticated": False,
                                    "username": None, "password_set": True})
    for method, path in (("GET", "/api/status"), ("GET", "/api/sliders"), ("POST", "/api/mutes/1"),
                         ("GET", "/api/volume/master"), ("GET", "/api/audio/sessions")):
        status, body, _ = http(method, d.url(path), body=b"" if method == "POST" else None)
        assert (status, body) == (401, {"error": "Authentication required"}), path
    status, body, _ = http("POST", d.url("/api/auth/logout"), body=b"")
    assert (status, body) == (200, {"success": True})


def test_login_sets_session_cookie_and_logout_destroys_it(secured):
    d = secured
    status, body, headers = login(d)
    assert (status, body) == (200, {"success": True, "redirect": "/"})
    session, raw = cookie_of(headers)
    assert len(session) == 64
    flags = [p.strip() for p in raw.split(";")]
    assert "HttpOnly" in flags and "SameSite=Lax" in flags and "Path=/" in flags
    assert not any(f.startswith("Max-Age") for f in flags)  # remember=false: browser session
    assert "Secure" not in flags  # plain HTTP
    cookie = {"Cookie": f"controller_session={session}"}
    assert http("GET", d.url("/api/sliders"), headers=cookie)[0] == 200
    status, body, _ = http("GET", d.url("/api/auth/status"), headers=cookie)
    assert body == {"auth_enabled": True, "authenticated": True, "username": "admin",
                    "password_set": True}
    # a new id on every login
    _, _, headers2 = login(d, remember=True)
    session2, raw2 = cookie_of(headers2)
    assert session2 != session and "Max-Age=86400" in raw2
    status, _, headers = http("POST", d.url("/api/auth/logout"), body=b"", headers=cookie)
    assert status == 200 and "Max-Age=0" in headers["Set-Cookie"]
    assert http("GET", d.url("/api/sliders"), headers=cookie)[0] == 401
    assert http("GET", d.url("/api/sliders"), headers={"Cookie": f"controller_session={session2}"})[0] == 200


def test_wrong_credentials_and_bad_bodies(secured):
    d = secured
    assert login(d, password="wrong")[:2] == (401, {"error": "Invalid username or password"})
    assert login(d, user="root")[:2] == (401, {"error": "Invalid username or password"})
    status, body, _ = http("POST", d.url("/api/auth/login"), {"username": "admin"})
    assert (status, body) == (400, {"error": "Missing field: password"})
    status, body, _ = http("POST", d.url("/api/auth/login"), {"username": "admin", "password": 5})
    assert (status, body) == (400, {"error": "password must be a string"})


def test_login_throttled_after_5_failures(secured):
    d = secured
    for _ in range(5):
        assert login(d, password="nope")[0] == 401
    status, body, headers = login(d)  # even the right password now
    assert status == 429 and "error" in body
    assert 290 <= int(headers["Retry-After"]) <= 300


def test_cross_origin_cookie_is_not_honoured(secured):
    d = secured
    _, _, headers = login(d)
    session, _ = cookie_of(headers)
    cookie = {"Cookie": f"controller_session={session}"}
    host = f"127.0.0.1:{d.ports['controller']}"
    same = dict(cookie, Origin=f"http://{host}")
    status, _, h = http("GET", d.url("/api/sliders"), headers=same)
    assert status == 200 and h["Access-Control-Allow-Origin"] == f"http://{host}"
    assert h["Access-Control-Allow-Credentials"] == "true"
    other = dict(cookie, Origin="http://evil.example")
    status, body, h = http("GET", d.url("/api/sliders"), headers=other)
    assert (status, body) == (401, {"error": "Authentication required"})
    assert h["Access-Control-Allow-Origin"] == "*"


def test_idle_session_expires(daemon_factory, data_dir):
    os.makedirs(data_dir, exist_ok=True)
    set_password(data_dir)
    set_setting(data_dir, "session_timeout", 60)
    d = daemon_factory("--serial", "none")
    _, _, headers = login(d)
    session, _ = cookie_of(headers)
    cookie = {"Cookie": f"controller_session={session}"}
    assert http("GET", d.url("/api/status"), headers=cookie)[0] == 200
    # The shortest allowed timeout is 60 s; a reload with a new password ends sessions at once,
    # which a test can observe without waiting a minute.
    set_password(data_dir, password="another one")
    d.wait_log("all sessions ended")
    assert http("GET", d.url("/api/status"), headers=cookie)[0] == 401
    assert login(d, password="another one")[0] == 200


def test_session_expires_after_idle_timeout(daemon_factory, data_dir):
    os.makedirs(data_dir, exist_ok=True)
    set_password(data_dir)
    set_setting(data_dir, "session_timeout", 1)
    d = daemon_factory("--serial", "none")
    _, _, headers = login(d, remember=True)
    session, raw = cookie_of(headers)
    assert "Max-Age=1" in raw
    cookie = {"Cookie": f"controller_session={session}"}
    assert http("GET", d.url("/api/status"), headers=cookie)[0] == 200
    time.sleep(1.3)  # the behaviour under test is the passing of idle time
    assert http("GET", d.url("/api/status"), headers=cookie)[0] == 401


def test_session_lifetime_below_idle_timeout_is_a_settings_error(daemon_factory, data_dir):
    os.makedirs(data_dir, exist_ok=True)
    path = os.path.join(data_dir, "settings.json")
    with open(path, "w") as f:
        json.dump({"session_timeout": 600, "session_max_lifetime": 300}, f, indent=2)
    r = subprocess.run([MIXERD_BIN, "--data-dir", data_dir, "--serial", "none"],
                       capture_output=True, text=True, timeout=20)
    assert r.returncode == 2
    assert f"{path}:3: key 'session_max_lifetime' must be at least session_timeout (600)" in r.stderr

    set_setting(data_dir, "session_max_lifetime", 600)
    set_password(data_dir)
    d = daemon_factory("--serial", "none")
    _, _, headers = login(d)
    cookie = {"Cookie": f"controller_session={cookie_of(headers)[0]}"}
    set_setting(data_dir, "session_max_lifetime", 1)
    d.proc.send_signal(signal.SIGHUP)
    d.wait_log("reload ignored")
    # The refused reload changed nothing: the session (lifetime 600 s) is still good.
    assert http("GET", d.url("/api/status"), headers=cookie)[0] == 200
    assert d.proc.poll() is None
