"""Setting the login's password through the API (docs/api.md, POST /api/auth/password): the first
one from any client, as an onboarding page does, which turns login on and logs the caller in; a
change only with a session (or from this machine while login is off) and the current password,
throttled as logins are; the sessions list and "log out everywhere"."""
import json
import os

from conftest import http, other_address, wait_until

HASH_PATTERN_PARTS = 4


def read_settings(data_dir):
    with open(os.path.join(data_dir, "settings.json")) as f:
        return json.load(f)


def cookie_from(headers):
    return {"Cookie": headers["Set-Cookie"].split(";")[0]}


def remote_base(daemon):
    return f"http://{other_address()}:{daemon.ports['controller']}"


def set_password(base, body, headers=None):
    return http("POST", base + "/api/auth/password", body, headers=headers)


def test_the_first_password_comes_from_any_client_turns_login_on_and_logs_the_caller_in(
        daemon_factory, data_dir):
    daemon = daemon_factory("--serial", "none", "--bind", "0.0.0.0")
    remote = remote_base(daemon)
    status, body, _ = http("GET", remote + "/api/auth/status")
    assert body["password_set"] is False and body["auth_enabled"] is False
    status, body, headers = set_password(remote, {"password": "a long passphrase"},
                                         headers={"X-Mixerd-Source": "web"})
    assert (status, body) == (200, {"success": True, "auth_enabled": True, "username": "admin"})
    cookie = cookie_from(headers)
    assert "Max-Age" not in headers["Set-Cookie"] and "HttpOnly" in headers["Set-Cookie"]
    # Login is on: the phone that set it is logged in, anyone else is not.
    assert http("GET", remote + "/api/sliders", headers=cookie)[0] == 200
    assert http("GET", remote + "/api/sliders")[0] == 401
    status, body, _ = http("GET", daemon.url("/api/auth/status"))
    assert body == {"auth_enabled": True, "authenticated": False, "username": None,
                    "password_set": True}
    # Stored as a hash, never in clear; the history names the change and who made it.
    stored = read_settings(data_dir)
    assert stored["auth_enabled"] is True and stored["auth_username"] == "admin"
    scheme, iterations, salt, digest = stored["auth_password_hash"].split("$")
    assert scheme == "pbkdf2_sha256" and int(iterations) >= 200000 and len(digest) == 64
    assert "a long passphrase" not in json.dumps(stored)
    entry = http("GET", remote + "/api/config/history", headers=cookie)[1]["history"][0]
    assert entry["source"] == "web"
    assert "auth_password_hash" in entry["summary"] and "auth_enabled" in entry["summary"]
    # The password logs in.
    status, _, _ = http("POST", remote + "/api/auth/login",
                        {"username": "admin", "password": "a long passphrase"})
    assert status == 200
    daemon.wait_log("password set for 'admin'")


def test_a_change_needs_a_session_and_the_current_password(daemon_factory, data_dir):
    daemon = daemon_factory("--serial", "none", "--bind", "0.0.0.0")
    remote = remote_base(daemon)
    status, _, headers = set_password(remote, {"password": "first passphrase",
                                               "username": "ann"})
    assert status == 200
    first_cookie = cookie_from(headers)
    # Someone else now: the first password is taken.
    status, body, _ = set_password(remote, {"password": "hijacked passphrase"})
    assert (status, body) == (401, {"error": "Authentication required"})
    for request, answer in (
            ({"password": "second passphrase"},
             (400, "current_password is required to change the password")),
            ({"password": "short", "current_password": "first passphrase"},
             (400, "password must be at least 8 characters")),
            ({"password": "second passphrase", "current_password": "wrong passphrase"},
             (403, "current_password is wrong")),
            ({"password": "second passphrase", "current_password": "first passphrase",
              "username": "bad\nname"},
             (400, "username must be 1-64 characters without control characters")),
            ({"password": "second passphrase", "pasword": "x"},
             (400, "pasword is not a field of a password change (known: password, "
                   "current_password, username)"))):
        status, body, _ = set_password(remote, request, headers=first_cookie)
        assert (status, body["error"]) == answer, request
    status, body, headers = set_password(
        remote, {"password": "second passphrase", "current_password": "first passphrase"},
        headers=first_cookie)
    assert (status, body) == (200, {"success": True, "auth_enabled": True, "username": "ann"})
    # Every other session ended with the change; the caller holds a new one.
    assert http("GET", remote + "/api/sliders", headers=first_cookie)[0] == 401
    assert http("GET", remote + "/api/sliders", headers=cookie_from(headers))[0] == 200
    assert http("POST", remote + "/api/auth/login",
                {"username": "ann", "password": "first passphrase"})[0] == 401
    assert http("POST", remote + "/api/auth/login",
                {"username": "ann", "password": "second passphrase"})[0] == 200


def test_wrong_current_passwords_are_throttled_as_logins_are(daemon_factory, data_dir):
    daemon = daemon_factory("--serial", "none")
    status, _, headers = set_password(daemon.url(""), {"password": "first passphrase"})
    cookie = cookie_from(headers)
    for _ in range(5):
        status, body, _ = set_password(daemon.url(""), {"password": "other passphrase",
                                                        "current_password": "guess"},
                                       headers=cookie)
        assert status == 403, body
    status, body, headers = set_password(daemon.url(""), {"password": "other passphrase",
                                                          "current_password": "first passphrase"},
                                         headers=cookie)
    assert status == 429 and body["error"].startswith("Too many failed password checks"), body
    assert int(headers["Retry-After"]) > 0


def test_with_login_off_a_kept_password_is_changed_only_from_this_machine(
        daemon_factory, data_dir):
    daemon = daemon_factory("--serial", "none", "--bind", "0.0.0.0")
    remote = remote_base(daemon)
    status, _, headers = set_password(daemon.url(""), {"password": "first passphrase"})
    assert status == 200
    status, body, _ = http("PATCH", daemon.url("/api/settings"), {"auth_enabled": False},
                           headers=cookie_from(headers))
    assert status == 200, body
    # The change is saved when it is answered; the auth actor applies it as a reload, just after.
    wait_until(lambda: http("GET", remote + "/api/auth/status")[1]["auth_enabled"] is False,
               what="login off")
    assert http("GET", remote + "/api/auth/status")[1]["password_set"] is True
    status, body, _ = set_password(remote, {"password": "second passphrase",
                                            "current_password": "first passphrase"})
    assert status == 403 and "needs login, or a client on this machine" in body["error"], body
    status, body, _ = set_password(daemon.url(""), {"password": "second passphrase",
                                                    "current_password": "first passphrase"})
    assert status == 200, body
    assert read_settings(data_dir)["auth_enabled"] is True


def test_login_cannot_be_turned_on_without_a_password_nor_a_password_stored_in_clear(
        daemon_factory, data_dir):
    daemon = daemon_factory("--serial", "none")
    url = daemon.url("/api/settings")
    status, body, _ = http("PATCH", url, {"auth_enabled": True})
    assert status == 400 and body["error"].startswith("auth_enabled cannot be true before a "
                                                      "password is set"), body
    status, body, _ = http("PATCH", url, {"auth_password_hash": "correct horse"})
    assert status == 400 and body["error"].startswith("auth_password_hash must be a password "
                                                      "hash"), body
    assert "auth_enabled" not in read_settings(data_dir)
    assert http("GET", daemon.url("/api/sliders"))[0] == 200


def test_the_sessions_are_listed_and_logging_out_everywhere_ends_them_all(
        daemon_factory, data_dir):
    daemon = daemon_factory("--serial", "none", "--bind", "0.0.0.0")
    remote = remote_base(daemon)
    status, _, headers = set_password(daemon.url(""), {"password": "first passphrase"})
    local_cookie = cookie_from(headers)
    status, _, headers = http("POST", remote + "/api/auth/login",
                              {"username": "admin", "password": "first passphrase"})
    remote_cookie = cookie_from(headers)
    status, body, _ = http("GET", remote + "/api/auth/sessions", headers=remote_cookie)
    assert status == 200
    sessions = body["sessions"]
    assert len(sessions) == 2
    assert [s["current"] for s in sessions] == [True, False]  # newest login first
    assert [s["address"] for s in sessions] == [other_address(), "127.0.0.1"]
    for s in sessions:
        assert s["username"] == "admin" and len(s["id"]) == 16
        assert s["login"][:4].isdigit() and "T" in s["last_seen"]
    # No handle is a cookie: the id opens nothing.
    assert http("GET", remote + "/api/sliders",
                headers={"Cookie": f"controller_session={sessions[1]['id']}"})[0] == 401
    status, body, headers = http("POST", remote + "/api/auth/logout-everywhere", b"",
                                 headers=remote_cookie)
    assert (status, body) == (200, {"success": True, "ended": 2})
    assert "Max-Age=0" in headers["Set-Cookie"]
    for cookie in (local_cookie, remote_cookie):
        assert http("GET", daemon.url("/api/sliders"), headers=cookie)[0] == 401
    assert http("GET", remote + "/api/auth/sessions")[0] == 401


def test_an_export_with_secrets_needs_the_password_and_imports_back(daemon_factory, data_dir):
    daemon = daemon_factory("--serial", "none", "--bind", "0.0.0.0")
    remote = remote_base(daemon)
    url = daemon.url("/api/config/export")
    status, body, _ = http("POST", url, {"password": "anything at all"})
    assert status == 403 and "none is set" in body["error"], body
    status, _, headers = set_password(daemon.url(""), {"password": "first passphrase"})
    cookie = cookie_from(headers)
    status, body, _ = http("PATCH", daemon.url("/api/settings"),
                           {"smarthome": {"url": "http://127.0.0.1:1", "token": "ha-token-1234"}},
                           headers=cookie)
    assert status == 200, body
    status, body, _ = http("POST", url, {"password": "wrong passphrase"}, headers=cookie)
    assert (status, body) == (403, {"error": "password is wrong"})
    status, body, _ = http("POST", url, {"pass": "first passphrase"}, headers=cookie)
    assert status == 400 and body["error"].startswith("pass is not a field"), body
    # Without a session (login is on) even the right password gets nothing.
    assert http("POST", remote + "/api/config/export", {"password": "first passphrase"})[0] == 401
    status, exported, headers = http("POST", url, {"password": "first passphrase"}, headers=cookie)
    assert status == 200, exported
    assert headers["Cache-Control"] == "no-store"
    assert exported["secrets"] is True
    on_disk = read_settings(data_dir)
    for key in ("toast_api_key", "auth_password_hash"):
        assert exported["settings"][key] == on_disk[key]
    assert exported["settings"]["smarthome"]["token"] == "ha-token-1234"
    # The plain export has none of them.
    status, plain, _ = http("GET", url, headers=cookie)
    assert plain["secrets"] is False and "token" not in plain["settings"]["smarthome"]
    assert "auth_password_hash" not in plain["settings"]
    # Imported back after the token changed, the file's secrets are set again.
    status, body, _ = http("PATCH", daemon.url("/api/settings"),
                           {"smarthome": {"token": "ha-token-5678"}}, headers=cookie)
    assert status == 200, body
    status, body, headers = http("POST", daemon.url("/api/config/import"), exported,
                                 headers=cookie)
    assert status == 200, body
    assert read_settings(data_dir)["smarthome"]["token"] == "ha-token-1234"
