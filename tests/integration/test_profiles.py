"""Audio profiles against the real binary, a pty device and a private PulseAudio (docs/api.md,
section 2.11): a load moves real streams and the default sink (read back with pactl), reaches the
device and emits every event, profile_change last; Default on a first start; the current profile
across a restart; broken files; names that would leave the folder; the 4xx answers."""
import json
import os
import urllib.parse

import pytest

from audio_support import pulse, volume_of  # noqa: F401 (pulse: a fixture)
from conftest import get_json, http, wait_until
from socketio_support import clients  # noqa: F401 (a fixture)


def profiles_dir(daemon):
    return os.path.join(daemon.data_dir, "profiles")


def url_of(daemon, name):
    return daemon.url("/api/profiles/" + urllib.parse.quote(name, safe=""))


def ok(method, url, body=None, status=200):
    got, reply, _ = http(method, url, body)
    assert got == status, (method, url, got, reply)
    return reply


def audio_figures(pulse, streams):
    """What PulseAudio has now: each stream's volume and mute, the default sink's."""
    sink = pulse.device("sinks", "testsink")
    out = {name: (volume_of(pulse.stream(i)), pulse.stream(i)["mute"]) for name, i in streams.items()}
    out["sink"] = (volume_of(sink), sink["mute"])
    return out


def test_a_load_moves_the_streams_the_sink_the_device_and_emits_every_event(
        daemon_factory, device, pulse, clients):  # noqa: F811
    spotify = pulse.play("Spotify", "spotify")
    firefox = pulse.play("Firefox", "firefox")
    streams = {"spotify": spotify, "firefox": firefox}
    daemon = daemon_factory("--serial", device.path,
                            env={"PULSE_SERVER": pulse.env["PULSE_SERVER"]})
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="device link")
    wait_until(lambda: get_json(daemon, "/api/status")["audio_connected"], what="audio link")

    # State A, saved as the profile "Stream".
    ok("POST", daemon.url("/api/sliders/1/assignment"),
       {"type": "app", "names": ["spotify"], "label": "Music"})
    ok("POST", daemon.url("/api/sliders/2/assignment"),
       {"type": "app", "names": ["firefox"], "label": "Browser"})
    ok("POST", daemon.url("/api/sliders/1"), {"value": 30})
    ok("POST", daemon.url("/api/sliders/2"), {"value": 70})
    ok("POST", daemon.url("/api/volume/master"), {"value": 40})
    mic = {"type": "mute", "name": "Mic", "icon": "mic", "target": 1}
    ok("PUT", daemon.url("/api/macros/0/0"), mic)
    ok("PUT", daemon.url("/api/macros/pages/1"), {"name": "Stream deck"})
    created = ok("POST", daemon.url("/api/profiles"), {"name": "Stream", "icon": "cam"}, 201)
    assert created["profile"]["name"] == "Stream" and created["profile"]["is_current"] is False
    saved = get_json(daemon, "/api/profiles/Stream")
    assert [s["value"] for s in saved["sliders"]][:2] == [30, 70]
    assert saved["volume"] == 40 and saved["macros"]["pages"]["0"][0] == mic

    # State B: everything the profile holds is changed, by the device and through the API.
    device.send("SLIDER,0,30")  # the hand picks up the value the API set ...
    device.send("SLIDER,0,80")  # ... and moves it
    ok("POST", daemon.url("/api/sliders/2"), {"value": 20})
    ok("POST", daemon.url("/api/mutes/1"))
    ok("POST", daemon.url("/api/mutes/master"))
    ok("POST", daemon.url("/api/volume/master"), {"value": 75})
    ok("POST", daemon.url("/api/sliders/2/assignment"),
       {"type": "app", "names": ["firefox"], "label": "Web"})
    ok("DELETE", daemon.url("/api/macros/0/0"))
    ok("PUT", daemon.url("/api/macros/pages/1"), {"name": "Other"})
    state_b = {"spotify": (80, True), "firefox": (20, False), "sink": (75, True)}
    wait_until(lambda: audio_figures(pulse, streams) == state_b,
               what=f"state B in PulseAudio: {audio_figures(pulse, streams)}")
    before = audio_figures(pulse, streams)

    client = clients("python", daemon.url(""), "websocket")
    client.event("initial_state")
    while not device.received.empty():  # what the device got before the load
        device.received.get_nowait()
    mark = len(client.events.seen)
    loaded = ok("POST", daemon.url("/api/profiles/load"), {"name": "Stream"})
    assert loaded == {"success": True, "profile": "Stream", "message": "Profile load requested"}
    assert client.event("profile_change") == {"profile": "Stream"}

    # Every change emitted its usual event, and profile_change came after all of them.
    seen = [e for e in client.events.seen[mark:]]
    names = [n for n, _ in seen]
    assert names[-1] == "profile_change", names
    payloads = [(n, p) for n, p in seen]
    assert ("assignment_change", {"index": 2, "assignment": {"type": "app", "names": ["firefox"]},
                                  "label": "Browser"}) in payloads
    moved = {p["index"]: p for n, p in payloads if n == "slider_change"}
    assert moved[1]["value"] == 30 and moved[2]["value"] == 70, moved
    # Set by the load, not by the hand: each physical slider has to pick its value up.
    assert moved[1]["pickup"] is True and moved[1]["position"] == 80, moved
    assert ("mute_change", {"index": 1, "muted": False}) in payloads
    assert ("mute_change", {"index": "master", "muted": False}) in payloads
    assert ("volume_change", {"volume": 40}) in payloads
    macros = [p for n, p in seen if n == "macros_change"]
    assert len(macros) == 1 and macros[0]["pages"]["0"][0] == mic
    assert macros[0]["page_names"]["1"] == "Stream deck"
    assert names.count("profile_change") == 1

    # The device got the new state: labels and volumes, mutes, master, the macro page.
    for line in ("VOL,0,Music,30", "VOL,1,Browser,70", "MUTE,0,0", "MUTE,MASTER,0", "MASTER,40",
                 "MPAGE,0", "MACRO,0,Mic,mic"):
        device.expect(line)

    # And PulseAudio: the streams and the default sink moved back to state A.
    state_a = {"spotify": (30, False), "firefox": (70, False), "sink": (40, False)}
    wait_until(lambda: audio_figures(pulse, streams) == state_a,
               what=f"state A in PulseAudio: {audio_figures(pulse, streams)}")
    after = audio_figures(pulse, streams)
    print(f"\n[figures] profile load, pactl (volume %, muted) before: {before}, after: {after}")
    assert get_json(daemon, "/api/profiles/current") == {"name": "Stream"}
    listed = get_json(daemon, "/api/profiles")
    assert listed["current"] == "Stream"
    assert [(p["name"], p["is_current"]) for p in listed["profiles"]] == [
        ("Default", False), ("Stream", True)]


def test_default_on_first_start_and_the_current_profile_survives_a_restart(
        daemon_factory, clients):  # noqa: F811
    daemon = daemon_factory("--serial", "none")
    listed = get_json(daemon, "/api/profiles")
    assert listed["current"] == "Default"
    assert [p["name"] for p in listed["profiles"]] == ["Default"]
    default = listed["profiles"][0]
    assert default["is_current"] is True and len(default["created"]) == 19
    assert os.listdir(profiles_dir(daemon)) == ["Default.json"]
    assert oct(os.stat(profiles_dir(daemon)).st_mode & 0o777) == "0o700"

    ok("POST", daemon.url("/api/volume/master"), {"value": 22})
    ok("POST", daemon.url("/api/profiles"), {"name": "Night \u263e"}, 201)
    ok("POST", daemon.url("/api/volume/master"), {"value": 90})
    ok("POST", daemon.url("/api/profiles/load"), {"name": "Night \u263e"})
    assert get_json(daemon, "/api/volume/master") == {"volume": 22}
    assert daemon.stop() == 0

    again = daemon_factory("--serial", "none")
    assert get_json(again, "/api/profiles/current") == {"name": "Night \u263e"}
    assert get_json(again, "/api/volume/master") == {"volume": 22}
    client = clients("python", again.url(""), "websocket")
    state = client.event("initial_state")
    assert state["profiles"]["current"] == "Night \u263e"
    assert sorted(p["name"] for p in state["profiles"]["profiles"]) == ["Default", "Night \u263e"]
    with open(os.path.join(again.data_dir, "settings.json")) as f:
        assert json.load(f)["current_profile"] == "Night \u263e"

    # Renaming the current profile keeps it current, across a restart too.
    renamed = ok("PUT", url_of(again, "Night \u263e"), {"new_name": "Late", "icon": "moon"})
    assert renamed["profile"] == {**renamed["profile"], "name": "Late", "icon": "moon",
                                  "is_current": True}
    assert sorted(os.listdir(profiles_dir(again))) == ["Default.json", "Late.json"]
    assert again.stop() == 0
    third = daemon_factory("--serial", "none")
    assert get_json(third, "/api/profiles/current") == {"name": "Late"}


def test_a_broken_file_is_listed_with_its_error_and_left_byte_identical(daemon_factory, data_dir):
    folder = os.path.join(data_dir, "profiles")
    os.makedirs(folder)
    broken = b'{"name": "Bad", "sliders": [1, 2, 3, 4], "volume": 5}\n'
    with open(os.path.join(folder, "Bad.json"), "wb") as f:
        f.write(broken)
    with open(os.path.join(folder, "Torn.json"), "wb") as f:
        f.write(b'{"name": "Torn", "sli')
    daemon = daemon_factory("--serial", "none")
    daemon.wait_log("Bad.json: sliders[0] must be an object")
    daemon.wait_log("Torn.json: not valid JSON")
    listed = get_json(daemon, "/api/profiles")
    by_name = {p["name"]: p for p in listed["profiles"]}
    assert set(by_name) == {"Bad", "Default", "Torn"}
    assert by_name["Bad"]["error"] == "sliders[0] must be an object"
    assert by_name["Torn"]["error"].startswith("not valid JSON")
    assert "error" not in by_name["Default"] and listed["current"] == "Default"

    status, body, _ = http("POST", daemon.url("/api/profiles/load"), {"name": "Bad"})
    assert status == 409 and "broken on disk" in body["error"], body
    assert http("PUT", url_of(daemon, "Bad"), {"icon": "x"})[0] == 409
    assert http("PUT", url_of(daemon, "Default"), {"new_name": "Bad"})[0] == 409
    assert http("POST", daemon.url("/api/profiles"), {"name": "Bad"})[0] == 409
    assert http("GET", url_of(daemon, "Bad"))[0] == 409
    assert daemon.stop() == 0
    again = daemon_factory("--serial", "none")
    assert get_json(again, "/api/profiles")["profiles"][0]["error"] == "sliders[0] must be an object"
    with open(os.path.join(folder, "Bad.json"), "rb") as f:
        assert f.read() == broken
    # It may be deleted.
    assert ok("DELETE", url_of(again, "Torn"))["profile"] == "Torn"
    assert sorted(os.listdir(folder)) == ["Bad.json", "Default.json"]


def test_names_that_would_leave_the_folder_stay_inside(daemon_factory, data_dir):
    daemon = daemon_factory("--serial", "none")
    # The plant store writes its sample file at start: the folder is settled once it is there.
    wait_until(lambda: "plants.json" in os.listdir(data_dir) and not any(
        n.startswith(".") for n in os.listdir(data_dir)), what="the data folder settled")
    before = sorted(os.listdir(data_dir))
    names = ["../x", "a/b", "..", ".", "/etc/passwd", "..\\y", ".hidden"]
    for name in names:
        ok("POST", daemon.url("/api/profiles"), {"name": name}, 201)
    files = sorted(os.listdir(profiles_dir(daemon)))
    print(f"\n[figures] profile folder after creating {names}: {files}")
    assert files == sorted(["Default.json", "%2E%2E%2Fx.json", "a%2Fb.json", "%2E%2E.json",
                            "%2E.json", "%2Fetc%2Fpasswd.json", "%2E%2E%5Cy.json",
                            "%2Ehidden.json"])
    assert sorted(os.listdir(data_dir)) == before  # nothing new beside the folder
    assert not os.path.exists(os.path.join(os.path.dirname(data_dir), "x.json"))
    for name in names:
        got = get_json(daemon, "/api/profiles/" + urllib.parse.quote(name, safe=""))
        assert got["name"] == name
    assert sorted(p["name"] for p in get_json(daemon, "/api/profiles")["profiles"]) == sorted(
        names + ["Default"])
    # A NUL or another control character is refused, never encoded.
    for name in ["a\u0000b", "line\nbreak", "\u0085"]:
        status, body, _ = http("POST", daemon.url("/api/profiles"), {"name": name})
        assert (status, body) == (400, {"error": "name must not contain control characters"})
    status, body, _ = http("GET", daemon.url("/api/profiles/a%00b"))
    assert (status, body) == (400, {"error": "name must not contain control characters"})
    # An unencoded slash is another path.
    assert http("DELETE", daemon.url("/api/profiles/a/b"))[0] == 404
    ok("DELETE", url_of(daemon, "../x"))
    assert "%2E%2E%2Fx.json" not in os.listdir(profiles_dir(daemon))


def test_the_4xx_answers(daemon_factory):
    daemon = daemon_factory("--serial", "none")
    load = daemon.url("/api/profiles/load")
    create = daemon.url("/api/profiles")
    cases = [
        ("POST", load, {"name": "Nope"}, 404, "Profile 'Nope' not found"),
        ("POST", load, {}, 400, "Missing field: name"),
        ("POST", load, {"name": 5}, 400, "name must be a string"),
        ("POST", load, b"{", 400, "Malformed JSON in request body"),
        ("POST", create, {"name": ""}, 400, "name must be 1 to 64 bytes"),
        ("POST", create, {"name": "x" * 65}, 400, "name must be at most 64 bytes"),
        ("POST", create, {"name": "\u00e9" * 33}, 400, "name must be at most 64 bytes"),
        ("POST", create, {"name": "ok", "icon": 3}, 400, "icon must be a string"),
        ("POST", create, {"name": "ok", "icon": "i" * 65}, 400, "icon must be at most 64 bytes"),
        ("POST", create, {"name": "ok", "icon": "a\u0001"}, 400,
         "icon must not contain control characters"),
        ("POST", create, {"name": "Default"}, 409, "Profile 'Default' already exists"),
        ("PUT", url_of(daemon, "Default"), {"new_name": ""}, 400, "new_name must be 1 to 64 bytes"),
        ("PUT", url_of(daemon, "Default"), {"new_name": None}, 400, "new_name must be a string"),
        ("PUT", url_of(daemon, "Nope"), {}, 404, "Profile 'Nope' not found"),
        ("GET", url_of(daemon, "Nope"), None, 404, "Profile 'Nope' not found"),
        ("DELETE", url_of(daemon, "Nope"), None, 404, "Profile 'Nope' not found"),
        ("DELETE", url_of(daemon, "Default"), None, 409,
         "Profile 'Default' is the current profile; load another one first"),
    ]
    for method, url, body, status, error in cases:
        got, reply, _ = http(method, url, body)
        assert (got, reply) == (status, {"error": error}), (method, url, body)
    assert os.listdir(profiles_dir(daemon)) == ["Default.json"]  # nothing was written
    # An empty PUT body saves the current state; the profile keeps its name.
    saved = ok("PUT", url_of(daemon, "Default"), b"")
    assert saved["profile"]["name"] == "Default" and saved["success"] is True


def test_an_edit_renames_and_changes_the_icon_but_keeps_what_the_profile_holds(daemon_factory):
    daemon = daemon_factory("--serial", "none")
    ok("POST", daemon.url("/api/volume/master"), {"value": 22})
    ok("POST", daemon.url("/api/profiles"), {"name": "Quiet"}, 201)
    ok("POST", daemon.url("/api/volume/master"), {"value": 90})
    edited = ok("PATCH", url_of(daemon, "Quiet"), {"new_name": "Night", "icon": "moon"})
    assert edited["profile"]["name"] == "Night" and edited["profile"]["icon"] == "moon"
    assert sorted(os.listdir(profiles_dir(daemon))) == ["Default.json", "Night.json"]
    # What it holds is the state it was saved with, not the state of the edit.
    assert get_json(daemon, "/api/profiles/Night")["volume"] == 22
    ok("POST", daemon.url("/api/profiles/load"), {"name": "Night"})
    assert get_json(daemon, "/api/volume/master") == {"volume": 22}
    status, body, _ = http("PATCH", url_of(daemon, "Night"), b"")
    assert status == 400, body
    status, body, _ = http("PATCH", url_of(daemon, "Nope"), {"icon": "x"})
    assert status == 404, body
