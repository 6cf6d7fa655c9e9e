"""6. Control bytes in free text: no C0 control byte (nor DEL) sent through the controller or the
notification API reaches a device line. Tabs and line breaks become spaces; a label or toast text
with any other control byte is refused with 400 naming the field, and the state stays as it was.
A settings file whose label holds one is refused at start (exit 2, naming the key).

Every case runs against the real binary and a pty device; at the end a marker change is awaited
on the pty, so every line the cases could have caused has arrived before the lines are checked.
"""
import json
import os
import subprocess

from fault_support import figures
from integration_harness import MIXERD_BIN, connected, daemon_factory, data_dir, device  # noqa: F401
from integration_harness import get_json, http

CONTROL = {chr(c) for c in range(0x20)} | {"\x7f"}
REFUSED_TEXT = ["nul\u0000byte", "\u001b[31mred", "bell\u0007", "del\u007f", "\u0001"]


def control_lines(device):
    return [line for _, line in device.timeline if CONTROL & set(line)]


def post_label(daemon, index, label):
    return http("POST", daemon.url(f"/api/sliders/{index}/assignment"),
                {"type": "system_default_output", "label": label})


def send_toast(daemon, body):
    with open(os.path.join(daemon.data_dir, "settings.json")) as f:
        key = json.load(f)["toast_api_key"]
    return http("POST", daemon.url("/api/toast/send", "notification API"), body,
                headers={"X-API-Key": key, "Content-Type": "application/json"})


def test_control_bytes_never_reach_the_device(connected):
    daemon, device = connected
    wrong = []  # (case, status, body) of each control byte that was not refused
    refused = 0
    for text in REFUSED_TEXT:
        status, body, _ = post_label(daemon, 1, text)
        if status == 400 and "label" in body["error"]:
            refused += 1
        else:
            wrong.append(("label", text, status, body))
        for field in ("message", "subtitle"):
            toast = {"message": "ok", field: text} if field == "subtitle" else {"message": text}
            status, body, _ = send_toast(daemon, toast)
            if status == 400 and field in body["message"]:
                refused += 1
            else:
                wrong.append((field, text, status, body))
    label_kept = get_json(daemon, "/api/sliders")["sliders"][0]["label"]

    # Tabs and line breaks become spaces, in the state and on the line.
    assert post_label(daemon, 2, "Game\tchat\r\nmix")[0] == 200
    label_spaced = get_json(daemon, "/api/sliders")["sliders"][1]["label"]
    assert send_toast(daemon, {"message": "two\nlines", "subtitle": "a\tb"})[0] == 200

    # Serial order: once the marker is on the pty, every earlier line is too.
    assert post_label(daemon, 4, "Marker")[0] == 200
    device.expect(lambda l: l.startswith("VOL,3,Marker,"), what="the marker label")
    lines = [line for _, line in device.timeline]
    bad = control_lines(device)
    figures("control bytes", cases=refused + len(wrong), refused=refused, accepted=len(wrong),
            device_lines=len(lines), lines_with_control_bytes=len(bad))
    assert not wrong, f"control bytes accepted: {wrong!r}"
    assert label_kept == "Slider 1"
    assert not bad, f"control bytes reached the device: {bad!r}"
    assert label_spaced == "Game chat  mix"
    assert any(l.startswith("VOL,1,Game chat  mix,") for l in lines), lines
    assert any(l.startswith("TOAST,") and l.endswith(",two lines,a b") for l in lines), lines


def test_a_settings_file_with_a_control_byte_in_a_label_is_refused(data_dir):
    os.makedirs(data_dir, exist_ok=True)
    path = os.path.join(data_dir, "settings.json")
    with open(path, "w") as f:
        json.dump({"sliders": [{"label": "esc\u001b[2J"}]}, f)
    before = open(path, "rb").read()
    proc = subprocess.Popen([MIXERD_BIN, "--data-dir", data_dir, "--bind", "127.0.0.1",
                             "--controller-port", "0", "--toast-port", "0", "--plants-port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL)
    try:
        # A refusal happens before the listeners open; a daemon still running after 10 s took it.
        output, _ = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.terminate()
        output, _ = proc.communicate(timeout=10)
        figures("control byte in settings.json", exit_code="none (started)")
        raise AssertionError("mixerd started with a control byte in a label:\n" + output)
    figures("control byte in settings.json", exit_code=proc.returncode)
    assert proc.returncode == 2, output
    assert "sliders[0].label" in output
    assert open(path, "rb").read() == before  # reported, never overwritten
