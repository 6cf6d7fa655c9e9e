"""The system capability (docs/api/system.md): the machine's uptime, load and temperature at
GET /api/system, in Socket.IO's initial_state and status_facts event, and as MQTT sensors."""
import json
import os

import pytest

from conftest import get_json, http
from mqtt_support import BROKER, broker, start_node, subscriber  # noqa: F401
from socketio_support import clients  # noqa: F401


def write_zone(folder, name, kind, millidegrees):
    zone = os.path.join(folder, name)
    os.makedirs(zone, exist_ok=True)
    with open(os.path.join(zone, "type"), "w") as f:
        f.write(kind + "\n")
    with open(os.path.join(zone, "temp.new"), "w") as f:
        f.write(f"{millidegrees}\n")
    os.replace(os.path.join(zone, "temp.new"), os.path.join(zone, "temp"))


def proc_uptime():
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])


@pytest.fixture
def thermal(tmp_path):
    folder = str(tmp_path / "thermal")
    write_zone(folder, "thermal_zone0", "cpu-thermal", 48312)
    write_zone(folder, "thermal_zone1", "gpu-thermal", 40000)
    # Not a zone: ignored.
    write_zone(folder, "cooling_device0", "fan", 99000)
    return folder


def test_the_machine_as_the_api_shows_it(daemon_factory, thermal):
    before = proc_uptime()
    daemon = daemon_factory("--serial", "none", env={"MIXERD_THERMAL_DIR": thermal})
    body = get_json(daemon, "/api/system")
    after = proc_uptime()
    assert set(body) == {"uptime_s", "load", "temperature_c", "thermal_zone"}
    # Sampled at start-up, between the two readings here.
    assert int(before) - 1 <= body["uptime_s"] <= after + 1
    with open("/proc/loadavg") as f:
        load = [float(x) for x in f.read().split()[:3]]
    assert len(body["load"]) == 3
    assert all(abs(a - b) < 1.0 for a, b in zip(body["load"], load)), (body["load"], load)
    # The hottest zone, to 0.1 °C, named by its type.
    assert body["temperature_c"] == 48.3 and body["thermal_zone"] == "cpu-thermal"


def test_a_machine_without_thermal_zones_has_no_temperature(daemon_factory, tmp_path):
    daemon = daemon_factory("--serial", "none", env={"MIXERD_THERMAL_DIR": str(tmp_path / "none")})
    body = get_json(daemon, "/api/system")
    assert body["temperature_c"] is None and body["thermal_zone"] is None
    assert body["uptime_s"] > 0


def test_the_route_follows_the_login_rule(daemon_factory, data_dir):
    os.makedirs(data_dir, exist_ok=True)
    with open(os.path.join(data_dir, "settings.json"), "w") as f:
        json.dump({"auth_enabled": True}, f)
    daemon = daemon_factory("--serial", "none")
    status, body, _ = http("GET", daemon.url("/api/system"))
    assert status == 401, body


def test_clients_get_the_facts_and_their_changes(daemon_factory, thermal, clients):  # noqa: F811
    daemon = daemon_factory("--serial", "none", env={"MIXERD_THERMAL_DIR": thermal})
    client = clients("python", daemon.url(""), "websocket")
    facts = client.event("initial_state")["status_facts"]["system"]
    labels = [f["label"] for f in facts]
    assert labels == ["Uptime", "Load", "Temperature"]
    assert facts[2]["value"] == "48.3 °C"
    write_zone(thermal, "thermal_zone0", "cpu-thermal", 71049)
    changed = client.event("status_facts", lambda e: e["facts"][-1]["value"] == "71.0 °C",
                           timeout=15)
    assert changed["source"] == "system"
    assert [f["label"] for f in changed["facts"]] == labels


def daemon_factory_with(daemon_factory, env):
    """daemon_factory with `env` added to every daemon it starts."""
    def make(*args, **kwargs):
        return daemon_factory(*args, env={**env, **(kwargs.pop("env", None) or {})}, **kwargs)
    return make


@pytest.mark.skipif(not os.path.exists(BROKER), reason="mosquitto is not installed")
def test_the_machine_as_home_assistant_sensors(daemon_factory, broker, subscriber, thermal,  # noqa: F811
                                               tmp_path):
    env = {"MIXERD_THERMAL_DIR": thermal}
    data = str(tmp_path / "pi")
    start_node(daemon_factory_with(daemon_factory, env), broker, subscriber, "pi", None, data)
    configs = broker.retained("homeassistant/sensor/pi/+/config", 5)
    assert set(configs) == {f"homeassistant/sensor/pi/{s}/config"
                            for s in ("uptime", "load_1m", "load_5m", "load_15m", "temperature")}
    temperature = json.loads(configs["homeassistant/sensor/pi/temperature/config"])
    assert temperature["state_topic"] == "mixerd/pi/sensor/temperature/state"
    assert temperature["unit_of_measurement"] == "°C"
    assert temperature["device_class"] == "temperature"
    assert temperature["device"]["identifiers"] == ["mixerd_pi"]
    assert temperature["availability_topic"] == "mixerd/pi/availability"
    states = broker.retained("mixerd/pi/sensor/+/state", 5)
    assert states["mixerd/pi/sensor/temperature/state"] == "48.3"
    assert int(states["mixerd/pi/sensor/uptime/state"]) > 0
    # A change reaches the broker within two periods: the next sample (10 s), then the next
    # sensor round of MQTT (10 s).
    mark = len(subscriber.messages)
    write_zone(thermal, "thermal_zone0", "cpu-thermal", 71049)
    subscriber.wait("mixerd/pi/sensor/temperature/state", "71.0", after=mark, timeout=25)

