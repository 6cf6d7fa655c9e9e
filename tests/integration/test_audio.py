"""Sliders, mutes and master volume against a real audio server, checked with pactl: every test
with the `pulse` fixture runs on PulseAudio and on PipeWire (audio_support.py)."""

import time

import pytest

from audio_support import percents, pulse, volume_of  # noqa: F401 (pulse: a fixture)
from conftest import get_json, http, wait_until
from socketio_support import PyClient


def audio_connected(daemon):
    return get_json(daemon, "/api/status")["audio_connected"]


@pytest.fixture
def mixer(daemon_factory, device, pulse):
    """A daemon with the pty device and the private audio server, both linked."""
    daemon = daemon_factory("--serial", device.path, "--log-level", "debug",
                            env={"PULSE_SERVER": pulse.env["PULSE_SERVER"]})
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="device link")
    wait_until(lambda: audio_connected(daemon), what="audio server link")
    return daemon, device, pulse


def assign(daemon, index, body):
    status, reply, _ = http("POST", daemon.url(f"/api/sliders/{index}/assignment"), body)
    assert status == 200, reply
    return reply


def stream_volume(pulse, index):
    return volume_of(pulse.stream(index))


def wait_stream(pulse, index, volume=None, muted=None, what="stream state"):
    def probe():
        s = pulse.stream(index)
        return ((volume is None or volume_of(s) == volume) and
                (muted is None or s["mute"] == muted))
    wait_until(probe, what=f"{what}: {pulse.pactl('list', 'sink-inputs')}")


def wait_device(pulse, kind, name, volume=None, muted=None):
    def probe():
        d = pulse.device(kind, name)
        return ((volume is None or volume_of(d) == volume) and
                (muted is None or d["mute"] == muted))
    wait_until(probe, what=f"{kind} {name} at volume {volume} muted {muted}")


def test_slider_sets_every_stream_of_its_app_and_no_other(mixer):
    daemon, device, pulse = mixer
    spotify_a = pulse.play("Spotify", "spotify")
    spotify_b = pulse.play("spotify")  # matched by application.name, any case
    firefox = pulse.play("Firefox", "firefox")
    assign(daemon, 1, {"type": "specific_app", "names": ["Spotify.exe"]})
    device.send("SLIDER,0,30")
    wait_stream(pulse, spotify_a, volume=30)
    wait_stream(pulse, spotify_b, volume=30)
    assert stream_volume(pulse, firefox) == 100
    # A slider per app: the binary name matches too.
    assign(daemon, 2, {"type": "specific_app", "names": ["FIREFOX"]})
    device.send("SLIDER,1,64")
    wait_stream(pulse, firefox, volume=64)
    assert percents(pulse.stream(spotify_a)) == [30, 30]


def test_sessions_list_the_live_streams_once_per_app(mixer):
    daemon, _, pulse = mixer
    pulse.play("Spotify", "spotify")
    pulse.play("Spotify", "spotify")
    pulse.play("Firefox", "firefox")
    body = wait_until(lambda: (lambda b: len(b["sessions"]) == 2 and b)(
        get_json(daemon, "/api/audio/sessions")), what="two sessions")
    by_name = {s["name"]: s for s in body["sessions"]}
    assert by_name["spotify"]["displayName"] == "Spotify"
    assert by_name["firefox"]["displayName"] == "Firefox"
    # One entry per app, with how many streams it has and what it was matched on.
    assert by_name["spotify"]["streams"] == 2 and by_name["firefox"]["streams"] == 1
    assert by_name["spotify"]["binary"] == "spotify"
    assert by_name["spotify"]["applicationName"] == "Spotify"
    assert [o["name"] for o in body["systemOptions"]] == ["system_default_output",
                                                           "system_default_input"]


def test_system_output_and_input_follow_their_sliders(mixer):
    daemon, device, pulse = mixer
    assign(daemon, 3, {"type": "system_default_output"})
    assign(daemon, 4, {"type": "system_default_input"})
    device.send("SLIDER,2,35")
    device.send("SLIDER,3,80")
    wait_device(pulse, "sinks", "testsink", volume=35)
    wait_device(pulse, "sources", "testmic", volume=80)
    # The mic's mute button mutes the source, and keeps its volume.
    device.send("MUTE,3,PRESS")
    device.expect("MUTE,3,1")
    wait_device(pulse, "sources", "testmic", volume=80, muted=True)


def test_master_volume_mute_and_encoder_act_on_the_default_sink(mixer):
    daemon, device, pulse = mixer
    status, body, _ = http("POST", daemon.url("/api/volume/master"), {"value": 44})
    assert (status, body["volume"]) == (200, 44)
    wait_device(pulse, "sinks", "testsink", volume=44, muted=False)
    device.send("ENCODER,3")  # 2 per detent
    device.expect("MASTER,50")
    wait_device(pulse, "sinks", "testsink", volume=50)
    status, body, _ = http("POST", daemon.url("/api/mutes/master"))
    assert body["muted"] is True
    wait_device(pulse, "sinks", "testsink", volume=50, muted=True)
    device.send("MUTE,MASTER,PRESS")
    wait_device(pulse, "sinks", "testsink", volume=50, muted=False)


def test_mute_button_mutes_the_stream_and_keeps_its_volume(mixer):
    daemon, device, pulse = mixer
    game = pulse.play("Game")
    assign(daemon, 1, {"type": "app", "names": ["game"]})
    device.send("SLIDER,0,70")
    wait_stream(pulse, game, volume=70, muted=False)
    device.send("MUTE,0,PRESS")
    wait_stream(pulse, game, volume=70, muted=True)
    status, body, _ = http("POST", daemon.url("/api/mutes/1"))
    assert body["muted"] is False
    wait_stream(pulse, game, volume=70, muted=False)


def test_a_stream_that_starts_later_gets_the_slider_level_at_once(mixer):
    daemon, device, pulse = mixer
    assign(daemon, 2, {"type": "app", "names": ["Chat.exe"]})
    device.send("SLIDER,1,25")
    device.send("MUTE,1,PRESS")
    device.expect("MUTE,1,1")
    chat = pulse.play("Chat")
    wait_stream(pulse, chat, volume=25, muted=True, what="a late stream at the slider level")


# A change reported this soon after a stream appeared is the server's (the volume it remembers
# for the app), set back whatever enforce_volume says (settle_time in actors/audio/audio_actor.cpp).
SETTLE_TIME = 1.0


def test_a_stream_that_changes_its_own_volume_is_put_back(mixer):
    daemon, device, pulse = mixer
    music = pulse.play("Music")
    assign(daemon, 1, {"type": "app", "names": ["Music"]})
    device.send("SLIDER,0,40")
    wait_stream(pulse, music, volume=40)
    known_since = time.monotonic()  # mixerd has seen the stream: it set it
    pulse.pactl("set-sink-input-volume", str(music), "100%")
    wait_stream(pulse, music, volume=40, what="the stream set back to 40")
    pulse.pactl("set-sink-input-mute", str(music), "1")
    wait_stream(pulse, music, volume=40, muted=False, what="the stream unmuted again")

    # Per slider, off: the stream keeps what it chose.
    reply = assign(daemon, 1, {"type": "app", "names": ["Music"], "enforce_volume": False})
    slider = get_json(daemon, "/api/sliders")["sliders"][0]
    assert slider["enforce_volume"] is False, reply
    # The app's own change comes once the stream is past its first moments.
    time.sleep(max(0.0, known_since + SETTLE_TIME + 0.1 - time.monotonic()))
    pulse.pactl("set-sink-input-volume", str(music), "90%")
    # Give mixerd the chance to (wrongly) react: a slider move is applied after the change.
    other = pulse.play("Other")
    assign(daemon, 2, {"type": "app", "names": ["Other"]})
    device.send("SLIDER,1,10")
    wait_stream(pulse, other, volume=10)
    assert stream_volume(pulse, music) == 90


def test_native_pipewire_streams_of_one_app_follow_its_slider_as_one_session(mixer):
    """pw-play streams (PipeWire's own clients; pacat on PulseAudio) of an Electron app in a
    Flatpak: application.name Chromium, binary discord, the portal's app id. Its slider sets both
    of its streams and no other Chromium-named stream, and the sessions list it once."""
    daemon, device, pulse = mixer
    flatpak = {"pipewire.access.portal.app_id": "com.discordapp.Discord"}
    voice = pulse.play_pw("Chromium", "discord", props=flatpak)
    ring = pulse.play_pw("Chromium", "discord", props=flatpak)
    browser = pulse.play_pw("Chromium", "chromium")
    assert pulse.stream(voice)["properties"]["pipewire.access.portal.app_id"] == \
        "com.discordapp.Discord"
    assign(daemon, 1, {"type": "app", "names": ["discord"]})
    device.send("SLIDER,0,24")
    wait_stream(pulse, voice, volume=24)
    wait_stream(pulse, ring, volume=24)
    assert stream_volume(pulse, browser) == 100
    names = wait_until(lambda: (lambda n: len(n) == 2 and n)(
        {s["name"]: s["displayName"] for s in get_json(daemon, "/api/audio/sessions")["sessions"]}),
        what="two sessions")
    # The Flatpak app is listed by its app id (its binary inside the sandbox may be generic).
    assert names == {"com.discordapp.Discord": "Chromium", "chromium": "Chromium"}


@pytest.mark.parametrize("enforce", [True, False])
def test_a_returning_app_gets_the_slider_level_not_the_one_the_server_remembers(mixer, enforce):
    """The server remembers an app's last volume and gives it to the app's next stream
    (PipeWire's wireplumber restores it just after the stream appears). The slider's level
    wins, whether or not the slider enforces its volume."""
    daemon, device, pulse = mixer
    game = pulse.play("Game")
    pulse.pactl("set-sink-input-volume", str(game), "80%")  # the user's choice, remembered
    wait_stream(pulse, game, volume=80)
    pulse.end_stream(game)
    assign(daemon, 1, {"type": "app", "names": ["game"], "enforce_volume": enforce})
    device.send("SLIDER,0,30")
    wait_until(lambda: get_json(daemon, "/api/sliders")["sliders"][0]["value"] == 30,
               what="slider 1 at 30")
    game = pulse.play("Game")
    wait_stream(pulse, game, volume=30, what="the returning stream at the slider level")
    # And it stays there. Waiting for nothing to happen: there is no event to await; the
    # server's restore comes within milliseconds of the stream's appearance.
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline:
        assert stream_volume(pulse, game) == 30, pulse.pactl("list", "sink-inputs")
        time.sleep(0.02)


def test_an_outside_change_of_the_default_sink_becomes_master_state(mixer):
    daemon, device, pulse = mixer
    client = PyClient(daemon.url(""))
    try:
        client.event("initial_state")
        pulse.pactl("set-sink-volume", "testsink", "42%")
        assert client.event("volume_change")["volume"] == 42
        device.expect("MASTER,42")
        assert get_json(daemon, "/api/volume/master")["volume"] == 42
        pulse.pactl("set-sink-mute", "testsink", "1")
        assert client.event("mute_change") == {"index": "master", "muted": True}
        assert get_json(daemon, "/api/mutes")["master"] is True
        assert volume_of(pulse.device("sinks", "testsink")) == 42  # never fought back
    finally:
        client.close()


def last_event(client, name, predicate=lambda payload: True):
    """The payload of the latest `name` event the client has received, or None."""
    seen = [p for n, p in list(client.events.seen) if n == name and predicate(p)]
    return seen[-1] if seen else None


def test_an_outside_volume_change_right_after_our_own_is_not_lost(mixer):
    """mixerd sets the default sink and someone else sets it right after: whichever change the
    server applied last is mixerd's state, and the clients have been told that value."""
    daemon, _, pulse = mixer
    client = PyClient(daemon.url(""))

    def settled():
        state = get_json(daemon, "/api/volume/master")["volume"]
        told = last_event(client, "volume_change")
        sink = volume_of(pulse.device("sinks", "testsink"))
        return state == sink and told is not None and told["volume"] == state and state

    try:
        client.event("initial_state")
        # The master starts at 50: the first pair ends elsewhere, so that every POST changes it.
        for ours, theirs in ((70, 65), (50, 45), (60, 55), (40, 35), (30, 25)):
            status, body, _ = http("POST", daemon.url("/api/volume/master"), {"value": ours})
            assert (status, body["volume"]) == (200, ours)
            pulse.pactl("set-sink-volume", "@DEFAULT_SINK@", f"{theirs}%")
            final = wait_until(settled, what=f"master state, sink and clients agreeing after "
                                             f"{ours} (ours) and {theirs} (outside)")
            assert final in (ours, theirs)
    finally:
        client.close()


def test_an_outside_mute_change_right_after_our_own_is_not_lost(mixer):
    daemon, _, pulse = mixer
    client = PyClient(daemon.url(""))

    def settled():
        state = get_json(daemon, "/api/mutes")["master"]
        told = last_event(client, "mute_change", lambda p: p["index"] == "master")
        sink = pulse.device("sinks", "testsink")["mute"]
        return state == sink and told is not None and told["muted"] == state

    try:
        client.event("initial_state")
        for _ in range(4):
            status, body, _ = http("POST", daemon.url("/api/mutes/master"))
            assert status == 200
            # The outside change undoes ours.
            pulse.pactl("set-sink-mute", "@DEFAULT_SINK@", "0" if body["muted"] else "1")
            wait_until(settled, what=f"master mute, sink and clients agreeing after ours "
                                     f"(muted: {body['muted']}) and the outside change")
    finally:
        client.close()


def test_the_audio_server_restarting_is_survived_and_the_state_reapplied(mixer, tmp_path):
    daemon, device, pulse = mixer
    client = PyClient(daemon.url(""))
    try:
        client.event("initial_state")
        assign(daemon, 1, {"type": "app", "names": ["Radio"]})
        http("POST", daemon.url("/api/volume/master"), {"value": 33})
        device.send("SLIDER,0,20")
        wait_device(pulse, "sinks", "testsink", volume=33)

        pulse.kill()
        assert client.event("audio_status")["connected"] is False
        device.expect(lambda l: l.startswith("TOAST,") and "Audio server lost" in l,
                      what="the system toast for the lost server")
        assert audio_connected(daemon) is False
        # The API keeps answering and keeps the state while the server is gone.
        status, body, _ = http("POST", daemon.url("/api/sliders/1"), {"value": 55})
        assert (status, body["value"]) == (200, 55)
        daemon.wait_log("still not reachable")  # at least one retry happened, quietly

        pulse.start()
        radio = pulse.play("Radio")
        assert client.event("audio_status", timeout=15)["connected"] is True
        device.expect(lambda l: l.startswith("TOAST,") and "Audio server back" in l,
                      what="the system toast for the server back")
        wait_stream(pulse, radio, volume=55, what="the slider level re-applied")
        wait_device(pulse, "sinks", "testsink", volume=33)
        assert audio_connected(daemon) is True
        assert sum("lost the audio server" in line for line in daemon.log) == 1
        assert not any("no audio server reachable" in line for line in daemon.log)
    finally:
        client.close()


def test_without_an_audio_server_the_api_works_and_says_so(connected):
    daemon, device = connected
    assert audio_connected(daemon) is False
    status, body, _ = http("POST", daemon.url("/api/volume/master"), {"value": 12})
    assert (status, body["volume"]) == (200, 12)
    device.expect("MASTER,12")
    assert get_json(daemon, "/api/audio/sessions")["sessions"] == []
    daemon.wait_log("no audio server reachable")
    assert sum("no audio server reachable" in line for line in daemon.log) == 1


def test_enforce_volume_must_be_a_boolean(connected):
    daemon, _ = connected
    status, body, _ = http("POST", daemon.url("/api/sliders/1/assignment"),
                           {"type": "app", "names": ["vlc"], "enforce_volume": "no"})
    assert (status, body) == (400, {"error": "enforce_volume must be true or false"})
    assert get_json(daemon, "/api/sliders/1/assignment") == {"type": "unassigned"}
