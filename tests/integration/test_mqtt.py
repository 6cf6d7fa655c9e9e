"""MQTT and Home Assistant discovery against a real Mosquitto 2 broker (one per module, on a free
port of 127.0.0.1) with the mosquitto_pub and mosquitto_sub clients: the retained discovery
configs and states, commands on the command topics acting like the REST API (value, VOL and
MUTE lines on the device), device input reaching the states, the last will on kill -9, Home
Assistant's birth message, two daemons isolated on one broker, a broker that comes late and
settings that are refused."""
import json
import os
import signal
import socket
import subprocess
import threading
import time

import pytest

from conftest import (MIXERD_BIN, FakeDevice, get_json, http, macro_set, make_cert_pair, wait_until,
                      write_settings)
from mqtt_support import (BROKER, Broker, Subscriber, broker, mqtt_settings,  # noqa: F401
                          node, start_node, subscriber)
from socketio_support import clients  # noqa: F401 (a fixture)

FIXED = ["number/{n}/slider_1", "number/{n}/slider_2", "number/{n}/slider_3", "number/{n}/slider_4",
         "switch/{n}/mute_1", "switch/{n}/mute_2", "switch/{n}/mute_3", "switch/{n}/mute_4",
         "switch/{n}/mute_master", "number/{n}/volume_master", "select/{n}/profile",
         "binary_sensor/{n}/device"]

pytestmark = pytest.mark.skipif(not os.path.exists(BROKER), reason="mosquitto is not installed")


MACROS = macro_set({(0, 0): {"type": "mute", "name": "Mic", "icon": "mic", "target": 1},
                    (0, 4): {"type": "mute", "name": "All", "icon": "", "target": "master"},
                    (1, 2): {"type": "mute", "name": "Page two", "icon": "", "target": 2}})


def test_discovery_is_retained_and_complete(node, broker, subscriber):
    node("desk", {"macros": MACROS, "sliders": [{"label": "Music"}]})
    # Per component: the broker hands out retained messages in an order of its own, and the
    # capabilities' sensors (homeassistant/sensor/...) are there too.
    configs = {}
    for component, count in (("number", 5), ("switch", 5), ("select", 1), ("binary_sensor", 1),
                             ("button", 2)):
        configs.update(broker.retained(f"homeassistant/{component}/desk/+/config", count))
    expected = {f"homeassistant/{e.format(n='desk')}/config" for e in FIXED}
    expected |= {"homeassistant/button/desk/macro_0/config", "homeassistant/button/desk/macro_4/config"}
    assert set(configs) == expected
    ids = set()
    for topic, text in configs.items():
        c = json.loads(text)
        component, object_id = topic.split("/")[1], topic.split("/")[3]
        assert c["unique_id"] == f"mixerd_desk_{object_id}"
        ids.add(c["unique_id"])
        assert c["availability_topic"] == "mixerd/desk/availability"
        assert (c["payload_available"], c["payload_not_available"]) == ("online", "offline")
        assert c["device"]["identifiers"] == ["mixerd_desk"]
        assert c["device"]["sw_version"]
        if component == "number":
            assert (c["min"], c["max"], c["step"], c["mode"]) == (0, 100, 1, "slider")
        if component in ("number", "switch", "select"):
            assert c["command_topic"].startswith("mixerd/desk/") and c["command_topic"].endswith("/set")
            assert c["state_topic"].startswith("mixerd/desk/")
        if component == "switch":
            assert (c["payload_on"], c["payload_off"]) == ("ON", "OFF")
        if component == "button":
            assert c["payload_press"] == "PRESS" and "state_topic" not in c
        if component == "binary_sensor":
            assert c["device_class"] == "connectivity" and "command_topic" not in c
    assert len(ids) == len(configs)
    assert json.loads(configs["homeassistant/number/desk/slider_1/config"])["name"] == "Music"
    assert json.loads(configs["homeassistant/button/desk/macro_4/config"])["name"] == "All"
    assert json.loads(configs["homeassistant/select/desk/profile/config"])["options"] == ["Default"]

    states = broker.retained("mixerd/desk/#", 13)
    assert states["mixerd/desk/availability"] == "online"
    assert states["mixerd/desk/slider/1/state"] == "50"
    assert states["mixerd/desk/mute/master/state"] == "OFF"
    assert states["mixerd/desk/volume/master/state"] == "50"
    assert states["mixerd/desk/profile/state"] == "Default"
    assert states["mixerd/desk/device/state"] == "ON"
    assert all(not t.endswith("/set") for t in states)


def test_a_slider_command_moves_the_slider_like_the_api(node, broker, subscriber, device):
    daemon = node()
    mark = len(subscriber.messages)
    broker.publish("mixerd/desk/slider/2/set", "73")
    device.expect("VOL,1,Slider 2,73")
    subscriber.wait("mixerd/desk/slider/2/state", "73", after=mark)
    assert get_json(daemon, "/api/sliders")["sliders"][1]["value"] == 73
    assert broker.retained("mixerd/desk/slider/2/state", 1) == {"mixerd/desk/slider/2/state": "73"}

    mark = len(subscriber.messages)
    broker.publish("mixerd/desk/volume/master/set", "12")
    subscriber.wait("mixerd/desk/volume/master/state", "12", after=mark)
    assert get_json(daemon, "/api/volume/master")["volume"] == 12


def test_invalid_and_retained_commands_are_ignored(node, broker, subscriber, device):
    # A retained command is stale by the time a daemon subscribes: it must not act at every
    # (re)connect.
    broker.publish("mixerd/desk/slider/1/set", "77", retain=True)
    daemon = node()
    assert get_json(daemon, "/api/sliders")["sliders"][0]["value"] == 50
    daemon.wait_log("ignored: a retained message on mixerd/desk/slider/1/set")
    broker.publish("mixerd/desk/slider/1/set", None, retain=True)
    mark = len(subscriber.messages)
    for bad in ["101", "-1", "42.5", "abc", "", "[1]", "x" * 5000]:
        broker.publish("mixerd/desk/slider/1/set", bad)
    broker.publish("mixerd/desk/mute/1/set", "maybe")
    broker.publish("mixerd/desk/slider/1/set", "6")
    subscriber.wait("mixerd/desk/slider/1/state", "6", after=mark)
    states = [p for t, p in subscriber.messages[mark:] if t == "mixerd/desk/slider/1/state"]
    assert states == ["6"]
    assert get_json(daemon, "/api/sliders")["sliders"][0]["value"] == 6
    daemon.wait_log("ignored: mixerd/desk/slider/1/set: value must be an integer from 0 to 100")
    assert not any("x" * 100 in line for line in daemon.log)  # payloads are not echoed


def test_device_input_reaches_the_retained_states(node, broker, subscriber, device):
    node()
    mark = len(subscriber.messages)
    device.send("SLIDER,2,35")
    subscriber.wait("mixerd/desk/slider/3/state", "35", after=mark)
    assert broker.retained("mixerd/desk/slider/3/state", 1) == {"mixerd/desk/slider/3/state": "35"}
    device.send("MUTE,MASTER,PRESS")
    subscriber.wait("mixerd/desk/mute/master/state", "ON", after=mark)
    device.unplug()
    subscriber.wait("mixerd/desk/device/state", "OFF", after=mark)


def test_mute_commands_name_the_state_they_want(node, broker, subscriber, device):
    daemon = node()
    mark = len(subscriber.messages)
    broker.publish("mixerd/desk/mute/3/set", "ON")
    device.expect("MUTE,2,1")
    first = subscriber.wait("mixerd/desk/mute/3/state", "ON", after=mark)
    assert get_json(daemon, "/api/mutes")["individual"][2] is True
    # Already on: no toggle, the state is said again.
    broker.publish("mixerd/desk/mute/3/set", "ON")
    subscriber.wait("mixerd/desk/mute/3/state", "ON", after=first + 1)
    assert get_json(daemon, "/api/mutes")["individual"][2] is True
    broker.publish("mixerd/desk/mute/master/set", "ON")
    device.expect("MUTE,MASTER,1")
    subscriber.wait("mixerd/desk/mute/master/state", "ON", after=mark)
    assert get_json(daemon, "/api/mutes")["master"] is True
    broker.publish("mixerd/desk/mute/3/set", "OFF")
    subscriber.wait("mixerd/desk/mute/3/state", "OFF", after=mark)
    assert get_json(daemon, "/api/mutes")["individual"][2] is False


def test_macro_buttons_follow_the_page_and_run_the_macro(node, broker, subscriber, device):
    daemon = node("desk", {"macros": MACROS})
    mark = len(subscriber.messages)
    broker.publish("mixerd/desk/macro/0/press", "PRESS")
    device.expect("MUTE,0,1")  # the Mic macro mutes slider 1
    subscriber.wait("mixerd/desk/mute/1/state", "ON", after=mark)

    mark = len(subscriber.messages)
    device.send("MPAGE,1")
    at = subscriber.wait("homeassistant/button/desk/macro_2/config", after=mark)
    assert json.loads(subscriber.messages[at][1])["name"] == "Page two"
    subscriber.wait("homeassistant/button/desk/macro_0/config", "", after=mark)
    subscriber.wait("homeassistant/button/desk/macro_4/config", "", after=mark)
    configs = broker.retained("homeassistant/button/desk/+/config", 1)
    assert list(configs) == ["homeassistant/button/desk/macro_2/config"]

    # An edit through the API of a slot of the page shown: its button appears.
    mark = len(subscriber.messages)
    assert http("PUT", daemon.url("/api/macros/1/7"),
                {"type": "mute", "name": "Late", "icon": "", "target": 3})[0] == 200
    at = subscriber.wait("homeassistant/button/desk/macro_7/config", after=mark)
    assert json.loads(subscriber.messages[at][1])["name"] == "Late"


def test_profiles_select_lists_and_loads_profiles(node, broker, subscriber, device):
    daemon = node()
    mark = len(subscriber.messages)
    assert http("POST", daemon.url("/api/profiles"), {"name": "Gaming"})[0] == 201
    at = subscriber.wait("homeassistant/select/desk/profile/config", after=mark)
    assert json.loads(subscriber.messages[at][1])["options"] == ["Default", "Gaming"]
    broker.publish("mixerd/desk/profile/set", "Gaming")
    subscriber.wait("mixerd/desk/profile/state", "Gaming", after=mark)
    assert get_json(daemon, "/api/profiles/current")["name"] == "Gaming"
    broker.publish("mixerd/desk/profile/set", "Nope")
    daemon.wait_log("profile command: ")
    assert get_json(daemon, "/api/profiles/current")["name"] == "Gaming"


def test_home_assistant_online_gets_discovery_again(node, broker, subscriber):
    node()
    mark = len(subscriber.messages)
    broker.publish("homeassistant/status", "online")
    subscriber.wait("homeassistant/number/desk/slider_1/config", after=mark)
    subscriber.wait("homeassistant/binary_sensor/desk/device/config", after=mark)
    subscriber.wait("mixerd/desk/slider/1/state", after=mark)


def acted_on(daemon, broker, subscriber, command_topic, payload, slider):
    """Publishes a command, then makes sure mixerd would have handled it: a birth behind it on
    the same connection (its full publication shows the MQTT actor got past the command), then a
    REST write to the mixer behind the command's own request. True when `slider` (1-4) took
    `payload`."""
    mark = len(subscriber.messages)
    broker.publish(command_topic, payload)
    broker.publish("homeassistant/status", "online")
    subscriber.wait("mixerd/desk/device/state", after=mark)
    other = 4 if slider != 4 else 3
    assert http("POST", daemon.url(f"/api/sliders/{other}"), {"value": 1})[0] == 200
    return get_json(daemon, "/api/sliders")["sliders"][slider - 1]["value"] == int(payload)


def retained_config(broker, component, object_id):
    got = broker.retained(f"homeassistant/{component}/desk/{object_id}/config", 1, timeout=1)
    return json.loads(got[next(iter(got))]) if got else None


def test_commands_false_publishes_the_state_only(daemon_factory, broker, subscriber, device,
                                                 tmp_path):
    """mqtt.commands false: no command topic is acted on, discovery is read-only (sensors, no
    buttons), the controls of an earlier run are deleted; a reload back to true restores them."""
    data = str(tmp_path / "data")
    # An earlier run with commands on left its controls on the broker.
    daemon = start_node(daemon_factory, broker, subscriber, "desk", device, data,
                        {"macros": MACROS})
    assert retained_config(broker, "number", "slider_1")["command_topic"]
    daemon.stop()

    write_settings(data, {**mqtt_settings(broker, "desk", commands=False), "macros": MACROS})
    mark = len(subscriber.messages)
    daemon = daemon_factory("--serial", device.path, data=data)
    daemon.wait_log("(state only: mqtt.commands is false)")
    subscriber.wait("mixerd/desk/device/state", after=mark)
    wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="device connected")
    for component, object_id in (("number", "slider_1"), ("switch", "mute_master"),
                                 ("select", "profile"), ("button", "macro_0")):
        assert retained_config(broker, component, object_id) is None, (component, object_id)
    slider = retained_config(broker, "sensor", "slider_1")
    assert slider["state_topic"] == "mixerd/desk/slider/1/state" and "command_topic" not in slider
    assert slider["unique_id"] == "mixerd_desk_slider_1_readonly"
    mute = retained_config(broker, "binary_sensor", "mute_1")
    assert mute["state_topic"] == "mixerd/desk/mute/1/state" and "command_topic" not in mute
    configs = [p for t, p in subscriber.messages[mark:] if t.endswith("/config") and p]
    assert configs and not [c for c in configs if "command_topic" in c]

    assert not acted_on(daemon, broker, subscriber, "mixerd/desk/slider/2/set", "73", 2)
    assert not [line for _, line in device.timeline if line.startswith("VOL,1,Slider 2,73")]
    # The state is still published.
    mark = len(subscriber.messages)
    device.send("SLIDER,2,35")
    subscriber.wait("mixerd/desk/slider/3/state", "35", after=mark)

    # Reloaded to true: the controls come back, the read-only entities go, commands act.
    mark = len(subscriber.messages)
    write_settings(data, {**read_settings(data), **mqtt_settings(broker, "desk")})
    daemon.proc.send_signal(signal.SIGHUP)
    subscriber.wait("mixerd/desk/availability", "offline", after=mark)
    subscriber.wait("mixerd/desk/device/state", after=mark)
    assert retained_config(broker, "number", "slider_1")["command_topic"]
    assert retained_config(broker, "sensor", "slider_1") is None
    assert acted_on(daemon, broker, subscriber, "mixerd/desk/slider/2/set", "73", 2)
    device.expect("VOL,1,Slider 2,73")


def read_settings(data):
    with open(os.path.join(data, "settings.json")) as f:
        return json.load(f)


def test_kill_9_leaves_offline_by_the_last_will_and_a_stop_says_offline(node, broker, subscriber):
    daemon = node()
    mark = len(subscriber.messages)
    daemon.proc.kill()
    daemon.proc.wait()
    subscriber.wait("mixerd/desk/availability", "offline", after=mark)
    assert broker.retained("mixerd/desk/availability", 1) == {"mixerd/desk/availability": "offline"}

    daemon = node()
    assert broker.retained("mixerd/desk/availability", 1) == {"mixerd/desk/availability": "online"}
    mark = len(subscriber.messages)
    started = time.monotonic()
    assert daemon.stop() == 0
    assert time.monotonic() - started < 5
    subscriber.wait("mixerd/desk/availability", "offline", after=mark)


def test_two_daemons_on_one_broker_never_act_on_each_other(daemon_factory, broker, subscriber,
                                                          tmp_path):
    devices = []
    for name in ("a", "b"):
        os.makedirs(tmp_path / name)
        devices.append(FakeDevice(str(tmp_path / name)))
    try:
        kitchen = start_node(daemon_factory, broker, subscriber, "kitchen", devices[0],
                             str(tmp_path / "a" / "data"))
        studio = start_node(daemon_factory, broker, subscriber, "studio", devices[1],
                            str(tmp_path / "b" / "data"))
        topics = set(subscriber.topics())
        of = {n: {t for t in topics if f"/{n}/" in t or t.startswith(f"mixerd/{n}/")}
              for n in ("kitchen", "studio")}
        assert len(of["kitchen"]) >= 25 and len(of["studio"]) >= 25
        assert not of["kitchen"] & of["studio"]
        for n in ("kitchen", "studio"):
            configs = broker.retained(f"homeassistant/+/{n}/+/config", len(FIXED))
            assert {json.loads(p)["unique_id"].split("_")[1] for p in configs.values()} == {n}

        mark = len(subscriber.messages)
        sent = time.monotonic()
        broker.publish("mixerd/kitchen/slider/1/set", "11")
        devices[0].expect("VOL,0,Slider 1,11")
        subscriber.wait("mixerd/kitchen/slider/1/state", "11", after=mark)
        # The studio's own command comes after: had it moved too, its state would say so first.
        broker.publish("mixerd/studio/slider/4/set", "44")
        subscriber.wait("mixerd/studio/slider/4/state", "44", after=mark)
        assert "mixerd/studio/slider/1/state" not in subscriber.topics(mark)
        assert "mixerd/kitchen/slider/4/state" not in subscriber.topics(mark)
        assert get_json(studio, "/api/sliders")["sliders"][0]["value"] == 50
        assert get_json(kitchen, "/api/sliders")["sliders"][0]["value"] == 11
        assert get_json(kitchen, "/api/sliders")["sliders"][3]["value"] == 50
        devices[1].expect("VOL,3,Slider 4,44")
        assert not [line for t, line in devices[1].timeline if t > sent and line.startswith("VOL,0")]
    finally:
        for d in devices:
            d.close()


def test_a_broker_that_comes_late_is_connected_to(daemon_factory, tmp_path):
    late = Broker(str(tmp_path))
    data = str(tmp_path / "data")
    write_settings(data, {"mqtt": {"url": late.url, "node_id": "late"}})
    daemon = daemon_factory("--serial", "none", data=data)
    daemon.wait_log("not available")
    assert get_json(daemon, "/api/status") is not None  # the daemon serves meanwhile
    late.start()
    try:
        sub = Subscriber(late, "mixerd/late/availability")
        try:
            sub.wait("mixerd/late/availability", "online", timeout=10)
        finally:
            sub.close()
    finally:
        late.stop()


def test_the_broker_link_is_a_status_fact_for_the_page(daemon_factory, tmp_path, clients):  # noqa: F811
    """The web page shows the link (Status section, settings area): status_facts.mqtt in
    initial_state and a status_facts event with source mqtt as it comes and goes; none while off."""
    late = Broker(str(tmp_path))
    data = str(tmp_path / "data")
    write_settings(data, {"mqtt": {"url": late.url, "node_id": "late"}})
    daemon = daemon_factory("--serial", "none", data=data)
    daemon.wait_log("not available")
    client = clients("python", daemon.url(""), "websocket")
    facts = client.event("initial_state")["status_facts"]["mqtt"]
    assert facts == [{"label": "MQTT", "value": f"Not connected to {late.url}; retrying"}]
    late.start()
    try:
        up = client.event("status_facts", lambda e: e["source"] == "mqtt"
                          and e["facts"][0]["value"].startswith("Connected"), timeout=40)
        assert up["facts"] == [{"label": "MQTT", "value": f"Connected to {late.url} as node late"}]
    finally:
        late.stop()
    down = client.event("status_facts", lambda e: e["source"] == "mqtt"
                        and e["facts"][0]["value"].startswith("Not connected"), timeout=10)
    assert down["facts"][0]["value"] == f"Not connected to {late.url}; retrying"
    status, body = http("PATCH", daemon.url("/api/settings"), {"mqtt": None})[:2]
    assert status == 200, body
    client.event("status_facts", lambda e: e["source"] == "mqtt" and e["facts"] == [])
    assert "mqtt" not in clients("python", daemon.url(""), "websocket").event("initial_state").get(
        "status_facts", {})


def test_settings_reload_moves_the_node(daemon_factory, broker, subscriber, tmp_path):
    data = str(tmp_path / "data")
    daemon = start_node(daemon_factory, broker, subscriber, "before", None, data)
    mark = len(subscriber.messages)
    write_settings(data, mqtt_settings(broker, "after"))
    daemon.proc.send_signal(signal.SIGHUP)
    subscriber.wait("mixerd/before/availability", "offline", after=mark)
    subscriber.wait("mixerd/after/availability", "online", after=mark)
    subscriber.wait("mixerd/after/device/state", after=mark)


@pytest.mark.parametrize("value,key", [
    ({"url": "http://127.0.0.1:1883"}, "mqtt.url"),
    ({"url": "mqtt://127.0.0.1", "node_id": "a/b"}, "mqtt.node_id"),
    ({"url": "mqtt://127.0.0.1", "password": "secret-pw"}, "mqtt.password"),
    ({"url": "mqtt://127.0.0.1", "discovery_prefix": "ha/#"}, "mqtt.discovery_prefix"),
    ({"url": "mqtt://127.0.0.1", "commands": "no"}, "mqtt.commands"),
])
def test_bad_settings_exit_2_naming_the_key(tmp_path, value, key):
    data = str(tmp_path / "data")
    write_settings(data, {"mqtt": value})
    r = subprocess.run([MIXERD_BIN, "--data-dir", data, "--serial", "none", "--controller-port", "0"],
                       capture_output=True, text=True, timeout=20)
    assert r.returncode == 2
    assert key in r.stderr
    assert "secret-pw" not in r.stderr


def test_a_broker_that_never_answers_holds_up_nothing(daemon_factory, tmp_path):
    """A listener that accepts the connection and then reads and says nothing: the daemon serves
    and stops as usual."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    accepted = []
    threading.Thread(target=lambda: accepted.append(silent.accept()), daemon=True).start()
    try:
        data = str(tmp_path / "data")
        write_settings(data, {"mqtt": {"url": f"mqtt://127.0.0.1:{silent.getsockname()[1]}",
                                       "node_id": "silent"}})
        daemon = daemon_factory("--serial", "none", data=data)
        wait_until(lambda: accepted, what="the connection to the silent broker")
        assert http("GET", daemon.url("/api/sliders"))[0] == 200
        started = time.monotonic()
        assert daemon.stop() == 0
        assert time.monotonic() - started < 5
    finally:
        silent.close()
        for conn, _ in accepted:
            conn.close()


@pytest.fixture
def tls_broker(tmp_path):
    """A broker with a TLS listener whose certificate (CN localhost) is its own CA; the folder
    holding that CA, hashed for OpenSSL."""
    crt, key = make_cert_pair(str(tmp_path / "certs"), "broker")
    ca_dir = tmp_path / "ca"
    ca_dir.mkdir()
    subprocess.run(["cp", crt, str(ca_dir)], check=True)
    subprocess.run(["openssl", "rehash", str(ca_dir)], check=True, capture_output=True)
    b = Broker(str(tmp_path), cert=(crt, key)).start()
    yield b, str(ca_dir)
    b.stop()


def tls_subscriber_sees_online(broker, ca_dir, node_id):
    r = subprocess.run(["mosquitto_sub", "-h", "localhost", "-p", str(broker.port), "--capath",
                        ca_dir, "-t", f"mixerd/{node_id}/availability", "-C", "1", "-W", "10"],
                       capture_output=True, text=True, timeout=15)
    return r.stdout.strip()


def test_mqtts_checks_the_broker_certificate_against_the_ca_store(daemon_factory, tls_broker,
                                                                   tmp_path):
    broker, ca_dir = tls_broker
    data = str(tmp_path / "data")
    write_settings(data, {"mqtt": {"url": f"mqtts://localhost:{broker.port}", "node_id": "tls"}})
    # With the broker's CA in the store ($SSL_CERT_DIR, as for OpenSSL's own clients): connected.
    daemon = daemon_factory("--serial", "none", data=data, env={"SSL_CERT_DIR": ca_dir})
    daemon.wait_log("mqtt: connected to mqtts://localhost")
    assert tls_subscriber_sees_online(broker, ca_dir, "tls") == "online"
    daemon.stop()

    # Without it: the certificate is refused and nothing is published.
    empty = tmp_path / "empty-ca"
    empty.mkdir()
    data2 = str(tmp_path / "data2")
    write_settings(data2, {"mqtt": {"url": f"mqtts://localhost:{broker.port}", "node_id": "untrusted"}})
    daemon = daemon_factory("--serial", "none", data=data2, env={"SSL_CERT_DIR": str(empty)})
    line = daemon.wait_log("mqtt: broker at mqtts://localhost")
    assert "not available: A TLS error occurred" in line, line
    assert not any("mqtt: connected" in line for line in daemon.log)
    assert http("GET", daemon.url("/api/sliders"))[0] == 200


def test_a_flood_from_the_broker_is_bounded(node, broker, subscriber):
    """5000 `online` births at once: each asks for the whole discovery again. The births are
    coalesced (one full publication at once, the next only at the end of the 10 s window), the
    received messages waiting for the daemon are capped (more are dropped and counted), the daemon
    keeps serving, and a command afterwards still acts."""
    daemon = node()
    flood = len(subscriber.messages)
    subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-t",
                    "homeassistant/status", "-l"], input="online\n" * 5000, text=True, check=True,
                   timeout=30)
    assert http("GET", daemon.url("/api/sliders"))[0] == 200
    mark = len(subscriber.messages)
    broker.publish("mixerd/desk/slider/1/set", "9")
    # Handled after every birth before it (one connection, one actor, in order).
    done = subscriber.wait("mixerd/desk/slider/1/state", "9", after=mark, timeout=15)
    assert get_json(daemon, "/api/sliders")["sliders"][0]["value"] == 9
    publications = [t for t, _ in subscriber.messages[flood:done]
                    if t == "homeassistant/binary_sensor/desk/device/config"]
    assert len(publications) == 1
