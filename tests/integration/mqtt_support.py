"""A real Mosquitto 2 broker (one per test module, on a free port of 127.0.0.1) and a recording
mosquitto_sub for the MQTT tests (test_mqtt.py), with the fixtures that start mixerd nodes on it."""
import json
import os
import queue
import socket
import subprocess
import threading
import time

import pytest

from conftest import get_json, wait_until, write_settings

BROKER = "/usr/sbin/mosquitto"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    def __init__(self, folder, port=None, cert=None):
        self.port = port or free_port()
        self.conf = os.path.join(folder, f"mosquitto-{self.port}.conf")
        with open(self.conf, "w") as f:
            f.write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
                    "log_dest stdout\n")
            if os.geteuid() == 0:  # else it becomes user mosquitto, which cannot read tmp_path
                f.write("user root\n")
            if cert:  # (certificate, key): a TLS listener
                f.write(f"certfile {cert[0]}\nkeyfile {cert[1]}\n")
        self.log = os.path.join(folder, f"mosquitto-{self.port}.log")
        self.proc = None

    def start(self):
        # Its log goes to a file: a pipe nobody reads would fill up and stop the broker.
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen([BROKER, "-c", self.conf], stdout=log,
                                         stderr=subprocess.STDOUT)
        wait_until(self._listening, timeout=5, what="the broker listening")
        return self

    def _listening(self):
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=5)

    @property
    def url(self):
        return f"mqtt://127.0.0.1:{self.port}"

    def publish(self, topic, payload, retain=False):
        args = ["mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.port), "-t", topic, "-q", "1"]
        args += ["-r"] if retain else []
        args += ["-n"] if payload is None else ["-m", payload]
        subprocess.run(args, check=True, timeout=5)

    def retained(self, topic_filter, count, timeout=5):
        """The retained messages under `topic_filter`, as {topic: payload}; waits for `count`."""
        r = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(self.port), "-t",
                            topic_filter, "--retained-only", "-F", "%j", "-C", str(count),
                            "-W", str(timeout)], capture_output=True, text=True, timeout=timeout + 5)
        got = {}
        for line in r.stdout.splitlines():
            m = json.loads(line)
            assert m["retain"] in (True, 1)
            got[m["topic"]] = m.get("payload") or ""
        return got


class Subscriber:
    """A mosquitto_sub on `topic_filter` (all the broker's traffic by default): every message
    received, in order, as (topic, payload) with the payload parsed as JSON when it is JSON."""

    def __init__(self, broker, topic_filter="#"):
        self.broker = broker
        self.proc = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port),
                                      "-t", topic_filter, "-t", "probe/#", "-F", "%j"],
                                     stdout=subprocess.PIPE, text=True)
        self.messages = []
        self._new = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        # Subscribed once its own probe comes back.
        probe = f"probe/{id(self)}"
        deadline = time.monotonic() + 5
        try:
            while not any(t == probe for t, _ in self.messages):
                assert time.monotonic() < deadline, "mosquitto_sub never subscribed"
                broker.publish(probe, "x")
                try:
                    self._new.get(timeout=0.2)
                except queue.Empty:
                    pass
        except BaseException:
            self.close()
            raise

    def _read(self):
        for line in self.proc.stdout:
            m = json.loads(line)
            payload = m.get("payload") or ""  # null: an empty payload
            self.messages.append((m["topic"], payload))
            self._new.put(None)

    def wait(self, topic, payload=None, after=0, timeout=10):
        """The index of the first message on `topic` (with `payload`, when given) at or after
        index `after`."""
        deadline = time.monotonic() + timeout
        i = after
        while True:
            while i < len(self.messages):
                t, p = self.messages[i]
                if t == topic and (payload is None or p == payload):
                    return i
                i += 1
            left = deadline - time.monotonic()
            if left <= 0:
                seen = [m for m in self.messages[after:] if not m[0].startswith("probe/")]
                raise AssertionError(f"no {topic} {payload!r}; saw {seen[-40:]}")
            try:
                self._new.get(timeout=left)
            except queue.Empty:
                pass

    def topics(self, after=0):
        return [t for t, _ in self.messages[after:] if not t.startswith("probe/")]

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=5)

    def clear_retained(self):
        """Deletes every retained message this subscriber saw (the broker outlives the test)."""
        for topic in sorted(set(self.topics())):
            self.broker.publish(topic, None, retain=True)


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    b = Broker(str(tmp_path_factory.mktemp("broker"))).start()
    yield b
    b.stop()


@pytest.fixture
def subscriber(broker):
    s = Subscriber(broker)
    yield s
    s.clear_retained()
    s.close()


def mqtt_settings(broker, node_id, **extra):
    return {"mqtt": {"url": broker.url, "node_id": node_id, **extra}}


def start_node(daemon_factory, broker, subscriber, node_id, device, data, extra=None):
    """A daemon on the broker as `node_id` (linked to `device` unless None), with its data in
    `data`; returns it once its full state is published."""
    write_settings(data, {**mqtt_settings(broker, node_id), **(extra or {})})
    mark = len(subscriber.messages)
    args = ("--serial", device.path) if device else ("--serial", "none")
    daemon = daemon_factory(*args, data=data)
    # The device link's state is the last of a full publication.
    subscriber.wait(f"mixerd/{node_id}/device/state", after=mark)
    if device:
        wait_until(lambda: get_json(daemon, "/api/status")["connected"], what="device connected")
    return daemon


@pytest.fixture
def node(daemon_factory, broker, subscriber, device, tmp_path):
    def make(node_id="desk", extra=None):
        return start_node(daemon_factory, broker, subscriber, node_id, device,
                          str(tmp_path / node_id), extra)
    return make
