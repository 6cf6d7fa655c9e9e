"""Controller REST (docs/api.md, section 2) against the real daemon."""
from conftest import get_json, http, wait_until


def post(daemon, path, body=None, headers=None):
    return http("POST", daemon.url(path), body=body if body is not None else b"", headers=headers)


def test_set_slider_value_is_applied_and_pushed(connected):
    daemon, device = connected
    device.expect("MASTER,50")
    status, body, _ = post(daemon, "/api/sliders/2", {"value": 75})
    assert status == 200 and body == {"success": True, "index": 2, "value": 75}
    assert get_json(daemon, "/api/sliders")["sliders"][1]["value"] == 75
    device.expect("VOL,1,Slider 2,75")  # the device cannot know an API change by itself


def test_slider_validation_errors_name_the_field(connected):
    daemon, _ = connected
    cases = [
        ("/api/sliders/0", {"value": 5}, "index must be an integer from 1 to 4"),
        ("/api/sliders/5", {"value": 5}, "index must be an integer from 1 to 4"),
        ("/api/sliders/x", {"value": 5}, "index must be an integer from 1 to 4"),
        ("/api/sliders/1", {"value": 101}, "value must be an integer from 0 to 100"),
        ("/api/sliders/1", {"value": -1}, "value must be an integer from 0 to 100"),
        ("/api/sliders/1", {"value": 50.5}, "value must be an integer from 0 to 100"),
        ("/api/sliders/1", {"value": "50"}, "value must be an integer from 0 to 100"),
        ("/api/sliders/1", {"value": True}, "value must be an integer from 0 to 100"),
        ("/api/sliders/1", {}, "Missing field: value"),
        ("/api/sliders/1", b"{not json", "Malformed JSON in request body"),
        ("/api/sliders/1", [1, 2], "Request body must be a JSON object"),
        ("/api/volume/master", {"value": 200}, "value must be an integer from 0 to 100"),
        ("/api/mutes/9", None, "index must be an integer from 1 to 4"),
    ]
    for path, body, message in cases:
        status, got, _ = post(daemon, path, body)
        assert (status, got) == (400, {"error": message}), (path, body)
    # nothing changed partly
    assert [s["value"] for s in get_json(daemon, "/api/sliders")["sliders"]] == [50] * 4
    assert get_json(daemon, "/api/volume/master") == {"volume": 50}


def test_assignment_get_and_set(connected):
    daemon, device = connected
    assert get_json(daemon, "/api/sliders/3/assignment") == {"type": "unassigned"}
    status, body, _ = post(daemon, "/api/sliders/3/assignment",
                           {"type": "specific_app", "names": ["Spotify", "spotify"], "label": "Music"})
    assert status == 200
    assert body == {"success": True, "assignment": {"type": "app", "names": ["Spotify", "spotify"]}}
    assert get_json(daemon, "/api/sliders/3/assignment") == {"type": "app", "names": ["Spotify", "spotify"]}
    slider = get_json(daemon, "/api/sliders")["sliders"][2]
    assert slider["label"] == "Music"
    device.expect("VOL,2,Music,50")
    status, body, _ = post(daemon, "/api/sliders/3/assignment", {"type": "system_default_input"})
    assert status == 200 and body["assignment"] == {"type": "system_default_input"}
    for bad, message in (({"type": "speakers"}, "type must be one of"),
                         ({"type": "app"}, "names must be an array"),
                         ({"type": "app", "names": [""]}, "names must be an array of non-empty strings"),
                         ({}, "type is missing")):
        status, body, _ = post(daemon, "/api/sliders/3/assignment", bad)
        assert status == 400 and body["error"].startswith(message), (bad, body)


def test_audio_sessions_lists_system_options(connected):
    daemon, _ = connected
    body = get_json(daemon, "/api/audio/sessions")
    assert body["sessions"] == []  # no audio server attached in this build
    assert [o["name"] for o in body["systemOptions"]] == ["system_default_output", "system_default_input"]


def test_mute_toggles_and_master(connected):
    daemon, device = connected
    device.expect("MASTER,50")
    status, body, _ = post(daemon, "/api/mutes/4")
    assert status == 200 and body["success"] is True and body["index"] == 4 and body["muted"] is True
    assert "message" in body
    device.expect("MUTE,3,1")
    status, body, _ = post(daemon, "/api/mutes/4")
    assert body["muted"] is False
    status, body, _ = post(daemon, "/api/mutes/master")
    assert status == 200 and body["success"] is True and body["muted"] is True and "message" in body
    device.expect("MUTE,MASTER,1")
    assert get_json(daemon, "/api/mutes") == {"individual": [False] * 4, "master": True}


def test_master_volume_set(connected):
    daemon, device = connected
    device.expect("MASTER,50")
    status, body, _ = post(daemon, "/api/volume/master", {"value": 33})
    assert status == 200 and body == {"success": True, "volume": 33}
    device.expect("MASTER,33")
    assert get_json(daemon, "/api/volume/master") == {"volume": 33}


def test_unknown_paths_are_404_and_cors_is_open(connected):
    daemon, _ = connected
    for path in ("/api/plugin", "/api/plugins/x/y", "/api/nothing"):
        status, body, _ = http("GET", daemon.url(path))
        assert status == 404 and body == {"error": f"Not found: {path}"}
    status, _, headers = http("GET", daemon.url("/api/status"), headers={"Origin": "http://elsewhere.example"})
    assert status == 200 and headers["Access-Control-Allow-Origin"] == "*"
    status, _, headers = http("OPTIONS", daemon.url("/api/sliders/1"),
                              headers={"Origin": "http://elsewhere.example",
                                       "Access-Control-Request-Method": "POST",
                                       "Access-Control-Request-Headers": "content-type"})
    assert status == 204 and "POST" in headers["Access-Control-Allow-Methods"]
