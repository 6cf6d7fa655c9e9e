"""The serial link as a user sees it: handshake, pushed state, input, hang-up and reconnect."""
import datetime
import time

from conftest import get_json, http, wait_until


def test_handshake_reports_firmware_version(connected):
    daemon, device = connected
    device.expect("READY")
    status = wait_until(lambda: (s := get_json(daemon, "/api/status"))["firmware_version"] and s,
                        what="firmware_version")
    assert status["connected"] is True
    assert status["firmware_version"] == "2.0.0"
    assert status["port"] == device.path
    assert status["app_version"] == "1.5"
    assert status["audio_connected"] is False


def test_state_is_pushed_after_handshake(connected):
    daemon, device = connected
    for i in range(4):
        line = device.expect(lambda l, i=i: l.startswith(f"VOL,{i},"), what=f"VOL,{i},...")
        assert line == f"VOL,{i},Slider {i + 1},50"
    for i in range(4):
        device.expect(f"MUTE,{i},0")
    device.expect("MUTE,MASTER,0")
    device.expect("MASTER,50")


def test_slider_line_moves_api_slider(connected):
    daemon, device = connected
    device.send("SLIDER,0,57")
    sliders = wait_until(lambda: (s := get_json(daemon, "/api/sliders")["sliders"])[0]["value"] == 57 and s,
                         what="slider 1 at 57")
    assert [s["index"] for s in sliders] == [1, 2, 3, 4]
    assert [s["value"] for s in sliders[1:]] == [50, 50, 50]
    device.send("SLIDER,3,0")
    wait_until(lambda: get_json(daemon, "/api/sliders")["sliders"][3]["value"] == 0, what="slider 4 at 0")


def test_mute_press_toggles_and_is_echoed(connected):
    daemon, device = connected
    device.expect("MASTER,50")  # initial push done
    device.send("MUTE,1,PRESS")
    mutes = wait_until(lambda: (m := get_json(daemon, "/api/mutes"))["individual"][1] and m, what="mute 2")
    assert mutes == {"individual": [False, True, False, False], "master": False}
    device.expect("MUTE,1,1")
    assert get_json(daemon, "/api/sliders")["sliders"][1]["muted"] is True
    device.send("MUTE,1,PRESS")
    device.expect("MUTE,1,0")
    device.send("MUTE,MASTER,PRESS")
    device.expect("MUTE,MASTER,1")
    assert get_json(daemon, "/api/mutes") == {"individual": [False] * 4, "master": True}


def test_encoder_changes_master_volume(connected):
    daemon, device = connected
    device.expect("MASTER,50")
    device.send("ENCODER,2")
    device.expect("MASTER,54")
    assert get_json(daemon, "/api/volume/master") == {"volume": 54}
    device.send("ENCODER,-30")
    device.expect("MASTER,0")
    assert get_json(daemon, "/api/volume/master") == {"volume": 0}


def test_page_and_unknown_lines(connected):
    daemon, device = connected
    device.send("ADC: OK")
    device.send("PAGE,MIXER")
    wait_until(lambda: get_json(daemon, "/api/status")["page"] == "MIXER", what="page MIXER")
    daemon.wait_log("unrecognised line: ADC: OK")
    assert daemon.proc.poll() is None


def test_garbage_lines_are_logged_escaped_and_at_most_ten_a_minute(connected):
    daemon, device = connected
    device.send("HELLO\x1b[2J")  # an escape sequence must not reach the reader's terminal
    for i in range(24):
        device.send(f"JUNK {i}")
    device.send("PAGE,MIXER")
    wait_until(lambda: get_json(daemon, "/api/status")["page"] == "MIXER", what="page MIXER")
    daemon.wait_log("unrecognised line: JUNK 8")  # the log is read by another thread
    logged = [line for line in daemon.log if "unrecognised line" in line]
    assert logged[0].endswith("unrecognised line: HELLO\\x1b[2J")
    assert len(logged) == 10
    assert logged[-1].endswith("unrecognised line: JUNK 8")
    assert daemon.proc.poll() is None


def test_hangup_and_replug_reconnects(connected):
    daemon, device = connected
    device.expect("MASTER,50")
    device.unplug()
    wait_until(lambda: not get_json(daemon, "/api/status")["connected"], timeout=2, what="disconnected")
    device.plug()
    replugged = time.monotonic()
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], timeout=2, what="reconnected")
    assert time.monotonic() - replugged < 2
    device.expect("READY")
    device.expect(lambda l: l.startswith("VOL,0,"), what="state pushed again")


def test_silent_device_is_dropped_after_6_seconds(daemon_factory, device):
    daemon = daemon_factory("--serial", device.path)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="connected")
    device.expect("MASTER,50")
    time.sleep(0.1)  # let the last ACKs of the initial push go out
    device.answer = False  # the device stops answering, PINGs included
    silent_since = device.last_sent
    wait_until(lambda: not get_json(daemon, "/api/status")["connected"], timeout=10, what="silence detected")
    silence = time.monotonic() - silent_since
    assert 5.8 <= silence <= 8.5, f"dropped after {silence:.2f} s of silence"
    daemon.wait_log("no line from the device for 6 s")
    pings = [t for t, line in device.timeline if line == "PING"]
    assert len(pings) >= 2
    gaps = [b - a for a, b in zip(pings, pings[1:])]
    assert all(1.8 <= g <= 2.4 for g in gaps), f"PING gaps {gaps}"


def test_reconnect_back_off_doubles_from_half_a_second(daemon_factory, tmp_path):
    missing = str(tmp_path / "no-such-tty")
    daemon = daemon_factory("--serial", missing, "--log-level", "debug")
    stamps = []

    def attempts():
        stamps[:] = [line[:23] for line in daemon.log if f"opening {missing}" in line]
        return len(stamps) >= 4

    wait_until(attempts, timeout=6, what="four open attempts")
    times = [datetime.datetime.strptime(s, "%Y-%m-%d %H:%M:%S.%f").timestamp() for s in stamps]
    gaps = [round(b - a, 2) for a, b in zip(times, times[1:])][:3]
    for gap, expected in zip(gaps, (0.5, 1.0, 2.0)):
        assert abs(gap - expected) <= 0.15, f"back-off gaps {gaps}"
    assert get_json(daemon, "/api/status")["connected"] is False


def test_invalid_utf8_from_device_or_client_is_harmless(connected):
    daemon, device = connected
    status, body, _ = http("GET", daemon.url("/api/%FF%FE"))
    assert status == 404 and body["error"].startswith("Not found")
    device.send(b"PAGE,MIX\xe9R")
    wait_until(lambda: get_json(daemon, "/api/status")["page"] == "MIX\ufffdR", what="page with replacement")
    assert get_json(daemon, "/api/sliders")["sliders"][0]["index"] == 1


def test_serial_none_stays_disconnected(daemon_factory):
    daemon = daemon_factory("--serial", "none")
    status = get_json(daemon, "/api/status")
    assert status["connected"] is False and status["port"] == ""


def test_simulate_comes_up_connected(daemon_factory):
    daemon = daemon_factory("--simulate")
    status = wait_until(lambda: (s := get_json(daemon, "/api/status"))["connected"] and s["firmware_version"] and s,
                        what="simulated device connected")
    assert status["firmware_version"] == "2.0.0"
    assert status["port"].startswith("/dev/pts/")
