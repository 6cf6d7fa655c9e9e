"""The web controller's files as the real binary serves them: from next to the binary (build tree
and installed tree), with types, tags, the stored gzip copies and the login redirect. What the
page does in a browser is tested in tests/web."""
import gzip
import http.client
import os
import subprocess
import urllib.parse

from conftest import MIXERD_BIN
from test_controller_auth import cookie_of, login, set_password


def fetch(daemon, path, headers=None, method="GET"):
    """(status, headers, raw body bytes) without following redirects or decoding anything."""
    url = urllib.parse.urlsplit(daemon.url(path))
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
    try:
        conn.request(method, path, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


def staged_web_dir():
    return os.path.join(os.path.dirname(os.path.realpath(MIXERD_BIN)), "..", "share", "mixerd", "web")


def test_the_page_its_form_and_assets_are_served_with_types_and_policy(daemon_factory):
    d = daemon_factory("--serial", "none")
    d.wait_log("web controller from")
    status, headers, body = fetch(d, "/")
    assert status == 200
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert body.lstrip().lower().startswith(b"<!doctype html>")
    assert b'/assets/' in body
    with open(os.path.join(staged_web_dir(), "index.html"), "rb") as f:
        assert body == f.read()
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Cache-Control"] == "no-cache"
    status, headers, body = fetch(d, "/login")
    assert status == 200 and b"<form" in body
    for path, kind in (("/assets/vendor/socket.io.esm.min.js", "text/javascript; charset=utf-8"),
                       ("/assets/manifest.webmanifest", "application/manifest+json"),
                       ("/assets/icons/icon.svg", "image/svg+xml"),
                       ("/assets/icons/icon-192.png", "image/png")):
        status, headers, body = fetch(d, path)
        assert (status, headers["Content-Type"]) == (200, kind), path
        assert body, path
    assert fetch(d, "/assets/nothing.js")[0] == 404
    assert fetch(d, "/assets/../index.html")[0] == 404
    assert fetch(d, "/index.html")[0] == 404


def test_a_revalidation_is_a_304_and_gzip_goes_to_who_accepts_it(daemon_factory):
    d = daemon_factory("--serial", "none")
    path = "/assets/vendor/socket.io.esm.min.js"
    status, headers, plain = fetch(d, path)
    assert status == 200 and len(plain) > 10000
    tag = headers["ETag"]
    status, headers, body = fetch(d, path, {"If-None-Match": tag})
    assert (status, body, headers["ETag"]) == (304, b"", tag)
    status, headers, packed = fetch(d, path, {"Accept-Encoding": "gzip, deflate, br"})
    assert status == 200
    assert headers["Content-Encoding"] == "gzip"
    assert headers["Vary"] == "Accept-Encoding"
    assert gzip.decompress(packed) == plain
    assert len(packed) * 2 < len(plain)
    assert headers["ETag"] != tag
    assert fetch(d, path, {"Accept-Encoding": "gzip", "If-None-Match": headers["ETag"]})[0] == 304


def test_with_login_on_the_page_goes_to_the_form_and_comes_back_after_login(daemon_factory, data_dir):
    os.makedirs(data_dir, exist_ok=True)
    set_password(data_dir)
    d = daemon_factory("--serial", "none")
    status, headers, body = fetch(d, "/", {"Accept": "text/html"})
    assert (status, headers["Location"], body) == (302, "/login", b"")
    # The form and what it loads need no session; the API still answers 401.
    assert fetch(d, "/login")[0] == 200
    assert fetch(d, "/assets/vendor/socket.io.esm.min.js")[0] == 200
    assert fetch(d, "/api/sliders", {"Accept": "text/html"})[0] == 401
    status, body, hdrs = login(d)
    assert (status, body) == (200, {"success": True, "redirect": "/"})
    session, _ = cookie_of(hdrs)
    status, _, page = fetch(d, body["redirect"], {"Cookie": f"controller_session={session}"})
    assert status == 200 and page.lstrip().lower().startswith(b"<!doctype html>")


def test_an_installed_mixerd_serves_the_page_installed_beside_it(daemon_factory, tmp_path):
    build_dir = os.path.join(os.path.dirname(os.path.realpath(MIXERD_BIN)), "..")
    prefix = tmp_path / "prefix"
    r = subprocess.run(["cmake", "--install", build_dir, "--prefix", str(prefix)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    installed = prefix / "bin" / "mixerd"
    assert installed.is_file()
    assert (prefix / "share" / "mixerd" / "web" / "index.html").is_file()
    d = daemon_factory("--serial", "none", binary=str(installed))
    d.wait_log(f"web controller from {prefix}/share/mixerd/web")
    status, _, body = fetch(d, "/")
    with open(prefix / "share" / "mixerd" / "web" / "index.html", "rb") as f:
        assert (status, body) == (200, f.read())
