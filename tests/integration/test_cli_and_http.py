"""Command line (docs/api.md), ports, and the HTTP core's behaviour on the controller port."""
import json
import os
import socket
import subprocess

from conftest import MIXERD_BIN, Daemon, get_json, http


def run(*args, timeout=20):
    return subprocess.run([MIXERD_BIN, *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def test_help_and_version():
    r = run("--help")
    assert r.returncode == 0
    for flag in ("--data-dir", "--config", "--serial", "--simulate", "--bind", "--controller-port",
                 "--toast-port", "--plants-port", "--log-level", "set-password", "api-key"):
        assert flag in r.stdout
    r = run("--version")
    assert r.returncode == 0 and r.stdout.strip() == "mixerd 1.5"


def test_bad_command_lines_exit_2():
    for args, text in ((["--bogus"], "unknown option: --bogus"),
                       (["--controller-port", "70000"], "--controller-port must be a port number"),
                       (["--log-level", "loud"], "--log-level must be"),
                       (["--serial"], "--serial needs a value"),
                       (["--simulate", "--serial", "none"], "cannot be combined"),
                       (["--bind", "my-host"], "--bind must be an IP address"),
                       (["set-password"], "set-password needs a USERNAME")):
        r = run(*args)
        assert r.returncode == 2, args
        assert text in r.stderr and "mixerd --help" in r.stderr


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_port_precedence_flag_beats_settings_beats_default(tmp_path):
    data = str(tmp_path / "d")
    os.makedirs(data)
    settings_port, flag_port = free_port(), free_port()
    with open(os.path.join(data, "settings.json"), "w") as f:
        json.dump({"controller_port": settings_port, "toast_port": 0, "plants_port": 0}, f)
    d = Daemon(data, ("--serial", "none"))
    d.args = ["--data-dir", data, "--bind", "127.0.0.1", "--serial", "none"]
    d.start()
    try:
        assert d.ports["controller"] == settings_port
        assert d.ports["notification API"] != 0 and d.ports["plant store"] != 0
    finally:
        assert d.stop() == 0
    d2 = Daemon(data, ("--serial", "none"))
    d2.args = ["--data-dir", data, "--bind", "127.0.0.1", "--serial", "none", "--controller-port", str(flag_port)]
    d2.start()
    try:
        assert d2.ports["controller"] == flag_port
        assert get_json(d2, "/api/status")["connected"] is False
    finally:
        d2.stop()


def test_port_in_use_exits_1(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = run("--data-dir", str(tmp_path / "d"), "--bind", "127.0.0.1", "--serial", "none",
                "--controller-port", str(port), "--toast-port", "0", "--plants-port", "0")
    assert r.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port} for the controller" in r.stderr


def test_sigint_stops_cleanly(daemon_factory):
    import signal
    d = daemon_factory("--serial", "none")
    assert d.stop(signal.SIGINT) == 0
    assert not os.path.exists(os.path.join(d.data_dir, "mixerd.pid"))


def test_controller_errors_are_json(daemon_factory):
    d = daemon_factory("--serial", "none")
    status, body, _ = http("GET", d.url("/api/nothing/here"))
    assert status == 404 and body == {"error": "Not found: /api/nothing/here"}
    status, body, headers = http("POST", d.url("/api/status"), body={})
    assert status == 405 and "error" in body and headers["Allow"] == "GET"
    status, body, _ = http("POST", d.url("/api/sliders"), body=b"x" * (64 * 1024 + 1))
    assert status == 413 and "error" in body
    status, body, _ = http("GET", d.url("/api/mutes"))
    assert status == 200 and body == {"individual": [False] * 4, "master": False}
    status, body, _ = http("GET", d.url("/api/sliders"))
    assert [s["label"] for s in body["sliders"]] == ["Slider 1", "Slider 2", "Slider 3", "Slider 4"]
    assert body["sliders"][0]["assignment"] == {"type": "unassigned"}


def test_notification_health_and_plant_store_errors(daemon_factory):
    d = daemon_factory("--serial", "none")
    port = d.ports["notification API"]
    assert get_json(d, "/api/toast/health", "notification API") == {"status": "ok", "version": "1.0", "port": port}
    status, body, hdrs = http("DELETE", d.url("/plants/1", "plant store"))
    assert status == 401 and body["error"] == 401 and "message" in body
    assert hdrs["WWW-Authenticate"] == "Bearer"
    status, body, _ = http("GET", d.url("/nowhere", "plant store"))
    assert status == 404 and body["error"] == 404 and "message" in body


def test_keep_alive_serves_many_requests_on_one_connection(daemon_factory):
    import http.client
    d = daemon_factory("--serial", "none")
    conn = http.client.HTTPConnection("127.0.0.1", d.ports["controller"], timeout=5)
    for _ in range(20):
        conn.request("GET", "/api/volume/master")
        resp = conn.getresponse()
        assert resp.status == 200 and json.loads(resp.read()) == {"volume": 50}
    conn.close()


def test_bad_bind_address_in_settings_exits_2(tmp_path):
    data = tmp_path / "d"
    data.mkdir()
    (data / "settings.json").write_text('{"bind_address": "everywhere"}')
    r = run("--data-dir", str(data), "--serial", "none")
    assert r.returncode == 2 and "key 'bind_address' must be an IP address" in r.stderr


def test_sighup_during_start_up_does_not_kill(tmp_path):
    import signal
    import time
    data = str(tmp_path / "d")
    d = Daemon(data, ("--serial", "none"))
    d.start(wait_ready=False)
    pid_path = os.path.join(data, "mixerd.pid")
    deadline = time.monotonic() + 10
    while not (os.path.exists(pid_path) and open(pid_path).read().strip()):
        assert time.monotonic() < deadline, "no pid file"
    d.proc.send_signal(signal.SIGHUP)  # as set-password would, the moment the pid file exists
    d.wait_log("ready")
    assert d.proc.poll() is None
    assert d.stop() == 0
