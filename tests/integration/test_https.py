"""HTTPS on the controller when DATA_DIR/certs holds a .crt and a .key (docs/api.md, HTTPS)."""
import json
import os
import ssl
import subprocess
import urllib.request

from conftest import MIXERD_BIN, make_cert_pair


def tls_get(url, cafile, headers=None):
    ctx = ssl.create_default_context(cafile=cafile)
    ctx.check_hostname = False
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, context=ctx, timeout=5) as resp:
        return resp.status, json.loads(resp.read()), resp.headers


def test_controller_serves_https_with_a_cert_pair(daemon_factory, data_dir):
    crt, _ = make_cert_pair(os.path.join(data_dir, "certs"))
    d = daemon_factory("--serial", "none")
    d.wait_log("HTTPS on the controller")
    assert any("controller listening on" in l and "(https://" in l for l in d.log)
    port = d.ports["controller"]
    status, body, _ = tls_get(f"https://127.0.0.1:{port}/api/status", crt)
    assert status == 200 and body["app_version"] == "1.5"
    toast = d.ports["notification API"]
    status, body, _ = tls_get(f"https://127.0.0.1:{toast}/api/toast/health", crt)
    assert body == {"status": "ok", "version": "1.0", "port": toast}


def test_login_cookie_is_secure_under_https(daemon_factory, data_dir):
    crt, _ = make_cert_pair(os.path.join(data_dir, "certs"))
    r = subprocess.run([MIXERD_BIN, "set-password", "admin", "--data-dir", data_dir],
                       input="pw\n", capture_output=True, text=True, timeout=30)
    assert r.returncode == 0
    d = daemon_factory("--serial", "none")
    ctx = ssl.create_default_context(cafile=crt)
    ctx.check_hostname = False
    req = urllib.request.Request(f"https://127.0.0.1:{d.ports['controller']}/api/auth/login",
                                 data=json.dumps({"username": "admin", "password": "pw"}).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, context=ctx, timeout=5) as resp:
        flags = [p.strip() for p in resp.headers["Set-Cookie"].split(";")]
    assert "Secure" in flags and "HttpOnly" in flags


def run(*args):
    return subprocess.run([MIXERD_BIN, *args], capture_output=True, text=True, timeout=20,
                          stdin=subprocess.DEVNULL)


def test_half_a_pair_stops_start_up(tmp_path):
    data = tmp_path / "d"
    certs = data / "certs"
    make_cert_pair(str(certs))
    (certs / "controller.key").unlink()
    r = run("--data-dir", str(data), "--serial", "none", "--controller-port", "0")
    assert r.returncode == 2 and "no .key file" in r.stderr and str(certs) in r.stderr


def test_broken_pair_stops_start_up(tmp_path):
    data = tmp_path / "d"
    certs = data / "certs"
    make_cert_pair(str(certs), "a")
    other_crt, other_key = make_cert_pair(str(tmp_path / "other"), "b")
    os.replace(other_key, certs / "a.key")  # a key that does not belong to the certificate
    r = run("--data-dir", str(data), "--serial", "none", "--controller-port", "0")
    assert r.returncode == 2 and ("a.key" in r.stderr or "a.crt" in r.stderr), r.stderr
    (certs / "a.crt").write_text("not a certificate\n")
    r = run("--data-dir", str(data), "--serial", "none", "--controller-port", "0")
    assert r.returncode == 2 and "a.crt" in r.stderr
