"""Macros against the real binary: the device's 9 buttons and pages over the pty, command and
http macros that really act (a file on disk, a local HTTP server), sequences, the REST routes and
their errors, persistence, and the Socket.IO events (docs/api.md, section 2.10)."""
import json
import os
import subprocess

import pytest

from conftest import (EMPTY_MACRO as EMPTY, MIXERD_BIN, get_json, http, macro_set, wait_until,
                      write_settings)
from http_recorder import recorder  # noqa: F401 (a fixture)
from socketio_support import clients  # noqa: F401 (a fixture)



def read_settings(data_dir):
    with open(os.path.join(data_dir, "settings.json")) as f:
        return json.load(f)


def page_lines(device, page):
    """Waits for MPAGE,<page> and returns the 9 MACRO lines that follow it (other lines skipped)."""
    device.expect(f"MPAGE,{page}")
    return [device.expect(lambda line: line.startswith("MACRO,"), what="a MACRO line")
            for _ in range(9)]


@pytest.fixture
def start(daemon_factory, device, data_dir, clients):  # noqa: F811
    """start(slots, current=0) -> (daemon, socket.io client): settings.json holds those macros,
    the device is connected, and a python Socket.IO client has joined."""

    def make(slots=None, current=0, names=None):
        # The recorder listens on loopback, which http macros reach only when allowed.
        write_settings(data_dir, {"macros": macro_set(slots or {}, current, names),
                                  "http_macro_allow": ["127.0.0.1"]})
        daemon = daemon_factory("--serial", device.path)
        wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="connected")
        client = clients("python", daemon.url(""), "websocket")
        client.event("initial_state")
        return daemon, client

    return make


def executed(client, index, page=0):
    return client.event("macro_executed", lambda e: e["index"] == index and e["page"] == page)


def trigger(daemon, index, page=None):
    body = {"index": index} if page is None else {"index": index, "page": page}
    return http("POST", daemon.url("/api/macros/trigger"), body)[:2]


def test_the_device_gets_its_page_on_connect_and_after_it_changes_page(start, device, data_dir):
    daemon, client = start({(0, 1): {"type": "mute", "name": "Mic, off", "icon": "mic", "target": 1},
                            (2, 8): {"type": "mute", "name": "Two", "icon": "", "target": 2}})
    lines = page_lines(device, 0)
    assert lines[0] == "MACRO,0,,"
    assert lines[1] == "MACRO,1,Mic\\, off,mic"
    assert [line.split(",")[1] for line in lines] == [str(i) for i in range(9)]

    device.send("MPAGE,2")
    lines = page_lines(device, 2)
    assert lines[8] == "MACRO,8,Two,"
    assert client.event("macro_page_change") == {"page": 2}
    assert get_json(daemon, "/api/macros/pages") == {
        "current": 2, "names": {"0": "Page 1", "1": "Page 2", "2": "Page 3", "3": "Page 4"}}
    wait_until(lambda: read_settings(data_dir)["macros"]["current_page"] == 2, what="page saved")
    # A press now runs slot 8 of page 2.
    device.send("MACRO,8,PRESS")
    assert executed(client, 8, page=2)["name"] == "Two"


def test_a_button_press_and_a_trigger_run_a_command_macro(start, device, tmp_path):
    log = tmp_path / "runs.txt"
    touched = tmp_path / "touched"
    daemon, client = start({
        (0, 3): {"type": "command", "name": "Log", "icon": "",
                 "argv": ["/bin/sh", "-c", 'echo "$1" >> "$0"', str(log), "one run"]},
        # A program name is looked up in PATH when the macro runs.
        (0, 4): {"type": "command", "name": "Touch", "icon": "", "argv": ["touch", str(touched)]},
    })
    device.send("MACRO,3,PRESS")
    device.send("MACRO,3,RELEASE")
    event = executed(client, 3)
    assert event == {"page": 0, "index": 3, "name": "Log", "ok": True}
    assert log.read_text() == "one run\n"

    assert trigger(daemon, 3) == (200, {"success": True, "index": 3, "page": 0, "macro": "Log"})
    assert executed(client, 3)["ok"] is True
    assert log.read_text() == "one run\none run\n"

    assert trigger(daemon, 4, page=0)[0] == 200
    assert executed(client, 4)["ok"] is True
    assert touched.exists()
    daemon.wait_log("macro 'Log' (page 0, slot 3) done")


def test_a_button_press_and_a_trigger_run_an_http_macro(start, device, recorder):
    daemon, client = start({
        (0, 0): {"type": "http", "name": "Hook", "icon": "", "url": recorder.url("/hook?x=1"),
                 "body": '{"on": true}', "headers": {"X-Token": "abc"}},
        (1, 2): {"type": "http", "name": "Get", "icon": "", "url": recorder.url("/state"),
                 "method": "GET"},
    })
    device.send("MACRO,0,PRESS")
    _, method, path, headers, body = recorder.next()
    assert (method, path, body) == ("POST", "/hook?x=1", '{"on": true}')
    assert headers["X-Token"] == "abc"
    assert headers["Content-Type"] == "application/json"
    assert executed(client, 0)["ok"] is True

    # Another page than the current one, through the API.
    assert trigger(daemon, 2, page=1) == (200, {"success": True, "index": 2, "page": 1,
                                                "macro": "Get"})
    _, method, path, _, _ = recorder.next()
    assert (method, path) == ("GET", "/state")
    assert executed(client, 2, page=1)["ok"] is True


def test_a_sequence_runs_in_order_with_its_delay_and_stops_at_a_failure(start, recorder):
    steps = [{"type": "http", "url": recorder.url("/a")},
             {"type": "delay", "ms": 400},
             {"type": "http", "url": recorder.url("/b"), "method": "PUT", "body": "second"}]
    failing = [{"type": "http", "url": recorder.url("/fail")},
               {"type": "http", "url": recorder.url("/never")}]
    daemon, client = start({(0, 6): {"type": "sequence", "name": "Seq", "icon": "", "steps": steps},
                            (0, 7): {"type": "sequence", "name": "Bad", "icon": "",
                                     "steps": failing}})
    assert trigger(daemon, 6)[0] == 200
    first = recorder.next()
    second = recorder.next()
    assert (first[1], first[2]) == ("POST", "/a")
    assert (second[1], second[2], second[4]) == ("PUT", "/b", "second")
    assert second[0] - first[0] >= 0.4
    assert executed(client, 6)["ok"] is True

    assert trigger(daemon, 7)[0] == 200
    assert recorder.next()[2] == "/fail"
    event = executed(client, 7)
    assert event["ok"] is False
    assert event["error"] == "steps[0] (http): the server answered HTTP 500"
    # Nothing after the failing step: the server has seen nothing more by now.
    assert recorder.requests.empty()


def test_a_macro_still_running_is_not_started_again(start, tmp_path):
    go = tmp_path / "go"
    waiter = ["/bin/sh", "-c", 'while [ ! -e "$0" ]; do sleep 0.02; done', str(go)]
    daemon, client = start({(0, 0): {"type": "command", "name": "Wait", "icon": "",
                                     "argv": waiter}})
    assert trigger(daemon, 0)[0] == 200
    assert trigger(daemon, 0) == (409, {"error": "The macro at page 0, index 0 is still running"})
    go.touch()
    assert executed(client, 0)["ok"] is True
    assert trigger(daemon, 0)[0] == 200
    assert executed(client, 0)["ok"] is True


def test_failures_are_reported_with_their_error(start, recorder):
    daemon, client = start({
        (0, 0): {"type": "command", "name": "False", "icon": "", "argv": ["/bin/false"]},
        (0, 1): {"type": "http", "name": "500", "icon": "", "url": recorder.url("/fail")},
        (0, 2): {"type": "smarthome", "name": "Lamp", "icon": "", "entity_id": "light.desk",
                 "action": "toggle"},
    })
    expected = ["exited with status 1", "the server answered HTTP 500", "Smart home not connected"]
    for index, error in enumerate(expected):
        assert trigger(daemon, index)[0] == 200
        event = executed(client, index)
        assert event["ok"] is False and event["error"] == error, event
    daemon.wait_log("macro 'Lamp' (page 0, slot 2) failed: Smart home not connected")


def test_empty_slots_page_changes_and_command_macros_are_refused(start, data_dir):
    command = {"type": "command", "name": "Cmd", "icon": "", "argv": ["/bin/true"]}
    daemon, _ = start({(0, 0): command})
    assert trigger(daemon, 5) == (404, {"error": "No macro at page 0, index 5"})
    assert trigger(daemon, 0, page=3) == (404, {"error": "No macro at page 3, index 0"})

    status, body, _ = http("POST", daemon.url("/api/macros/page"), {"page": 1})
    assert status == 403 and "cannot change the macro page" in body["error"]

    status, body, _ = http("PUT", daemon.url("/api/macros/0/1"), command)
    assert (status, body) == (403, {"error": "command macros can only be set in settings.json"})
    sequence = {"type": "sequence", "steps": [{"type": "delay", "ms": 1}, command]}
    status, body, _ = http("PUT", daemon.url("/api/macros/0/1"), sequence)
    assert status == 403
    assert body["error"] == "steps[1] is a command macro: command macros can only be set in settings.json"
    # Over a command macro: refused; deleting it is allowed.
    status, body, _ = http("PUT", daemon.url("/api/macros/0/0"), {"type": "mute", "target": 1})
    assert status == 403 and "command macro" in body["error"]
    assert get_json(daemon, "/api/macros")["pages"]["0"][0]["type"] == "command"
    assert http("DELETE", daemon.url("/api/macros/0/0"))[:2] == (200, {"success": True})
    assert get_json(daemon, "/api/macros")["pages"]["0"][0] == EMPTY


def test_bad_requests_are_400_naming_the_field(start):
    daemon, _ = start()
    cases = [
        ("POST", "/api/macros/trigger", {"index": 9}, "index must be an integer from 0 to 8"),
        ("POST", "/api/macros/trigger", {"page": 1}, "Missing field: index"),
        ("POST", "/api/macros/trigger", {"index": 1, "page": 4}, "page must be an integer from 0 to 3"),
        ("PUT", "/api/macros/4/0", {"type": "none"}, "page must be an integer from 0 to 3"),
        ("PUT", "/api/macros/0/9", {"type": "none"}, "index must be an integer from 0 to 8"),
        ("PUT", "/api/macros/0/0", {"type": "launch"}, None),
        ("PUT", "/api/macros/0/0", {"type": "http", "url": "ftp://x"},
         "url must be an http or https URL of at most 2048 bytes"),
        ("PUT", "/api/macros/0/0", {"type": "mute", "target": 0}, 'target must be 1-4 or "master"'),
        ("PUT", "/api/macros/0/0",
         {"type": "sequence", "steps": [{"type": "delay", "ms": 1}] * 3 + [{"type": "delay", "ms": -1}]},
         "steps[3].ms must be an integer from 0 to 60000"),
        ("PUT", "/api/macros/0/0", {"type": "hotkey", "key": "ctrl+"},
         "key must end with a key after its modifiers"),
        ("PUT", "/api/macros/pages/1", {"name": "x" * 33}, "name must be 1 to 32 characters"),
        ("PUT", "/api/macros/pages/1", {"name": ""}, "name must be 1 to 32 characters"),
        ("PUT", "/api/macros/pages/1", {}, "Missing field: name"),
    ]
    for method, path, body, error in cases:
        status, answer, _ = http(method, daemon.url(path), body)
        assert status == 400, (path, body, answer)
        if error is None:
            assert answer["error"].startswith("type must be one of none, hotkey")
        else:
            assert answer == {"error": error}, (path, body)
    # Nothing changed.
    assert get_json(daemon, "/api/macros") == macro_set({})


def test_an_edit_persists_across_a_restart_and_reaches_the_device(start, daemon_factory, device,
                                                                  data_dir):
    daemon, client = start()
    page_lines(device, 0)
    desk = {"type": "mute", "name": "Desk", "icon": "lamp", "target": "master"}
    status, body, _ = http("PUT", daemon.url("/api/macros/0/5"), desk)
    assert (status, body) == (200, {"success": True, "macro": desk})
    assert page_lines(device, 0)[5] == "MACRO,5,Desk,lamp"
    change = client.event("macros_change")
    assert change["pages"]["0"][5] == desk
    status, body, _ = http("PUT", daemon.url("/api/macros/pages/1"), {"name": "Stream"})
    assert (status, body) == (200, {"success": True, "page": 1, "name": "Stream"})
    assert client.event("macros_change", lambda s: s["page_names"]["1"] == "Stream")
    before = get_json(daemon, "/api/macros")
    assert before["pages"]["0"][5] == desk and before["page_names"]["1"] == "Stream"
    assert client.call("get_state")["macros"] == before
    assert daemon.stop() == 0
    assert read_settings(data_dir)["macros"] == before

    again = daemon_factory("--serial", device.path)
    assert get_json(again, "/api/macros") == before
    assert page_lines(device, 0)[5] == "MACRO,5,Desk,lamp"


def test_a_client_that_reads_macro_change_gets_the_slot_not_the_whole_set(start):
    """A client that names macro_change and macro_page_name_change in its connect's auth.events
    (the web page does) gets those after an edit or a rename, not macros_change; a client that
    does not gets macros_change as always. A profile load sends the whole set to both."""
    from socketio_support import PyClient
    daemon, plain = start()
    partial = PyClient(daemon.url(""), "websocket",
                       auth={"events": ["macro_change", "macro_page_name_change"]})
    try:
        partial.event("initial_state")
        desk = {"type": "mute", "name": "Desk", "icon": "lamp", "target": 2}
        assert http("PUT", daemon.url("/api/macros/1/4"), desk)[0] == 200
        assert partial.event("macro_change") == {"page": 1, "index": 4, "macro": desk}
        assert plain.event("macros_change")["pages"]["1"][4] == desk
        assert plain.event("macro_change") == {"page": 1, "index": 4, "macro": desk}
        assert http("PUT", daemon.url("/api/macros/pages/2"), {"name": "Games"})[0] == 200
        assert partial.event("macro_page_name_change") == {"page": 2, "name": "Games"}
        assert plain.event("macros_change", lambda s: s["page_names"]["2"] == "Games")
        assert http("DELETE", daemon.url("/api/macros/1/4"))[0] == 200
        assert partial.event("macro_change") == {"page": 1, "index": 4, "macro": EMPTY}
        # A load replaces the whole set: every client gets it whole.
        status, body, _ = http("POST", daemon.url("/api/profiles/load"), {"name": "Default"})
        assert status == 200, body
        loaded = partial.event("macros_change")
        assert loaded == get_json(daemon, "/api/macros")
        # Only the load's: an edit's whole set would have come before it.
        assert [name for name, _ in partial.events.seen].count("macros_change") == 1
    finally:
        partial.close()


def test_initial_state_macros_is_the_page_set(start):
    daemon, _ = start({(3, 3): {"type": "media", "name": "Next", "icon": "next", "action": "next"}},
                      current=3, names={"0": "A", "1": "B", "2": "C", "3": "D"})
    from socketio_support import connect
    client = connect("python", daemon.url(""), "polling")
    try:
        state = client.event("initial_state")
        assert state["macros"] == get_json(daemon, "/api/macros")
        assert state["macros"]["current_page"] == 3
        assert state["macros"]["pages"]["3"][3]["action"] == "next"
    finally:
        client.close()


def test_a_broken_macros_key_stops_start_up_naming_it(data_dir):
    bad = macro_set({(1, 4): {"type": "command", "argv": "touch x"}})
    write_settings(data_dir, {"macros": bad})
    r = subprocess.run([MIXERD_BIN, "--data-dir", data_dir, "--serial", "none"],
                       capture_output=True, text=True, timeout=20)
    assert r.returncode == 2
    assert "key 'macros.pages.1[4].argv' must be an array of 1 to 64 strings" in r.stderr
