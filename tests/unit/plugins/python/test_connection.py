"""mixerd.connection in-process, over pipes: what needs a short timeout or a broken pipe."""
import json
import os
import threading

import pytest

from mixerd import CallTimeout, ConnectionClosed, Plugin
from mixerd import connection as connection_module


class Pipes:
    def __init__(self, call_timeout=5.0):
        host_to_plugin = os.pipe()
        plugin_to_host = os.pipe()
        self.host_out = os.fdopen(host_to_plugin[1], "wb", buffering=0)
        self.host_in = os.fdopen(plugin_to_host[0], "rb")
        self.bad_lines = []
        self.connection = connection_module.Connection(
            os.fdopen(host_to_plugin[0], "rb"),
            os.fdopen(plugin_to_host[1], "wb"),
            call_timeout=call_timeout, on_bad_line=self.bad_lines.append)
        self.connection.start()

    def read(self):
        return json.loads(self.host_in.readline())

    def send(self, message):
        self.host_out.write(json.dumps(message).encode() + b"\n")

    def close(self):
        for stream in (self.host_out, self.host_in):
            try:
                stream.close()
            except OSError:
                pass


@pytest.fixture
def pipes():
    made = []

    def make(**kwargs):
        made.append(Pipes(**kwargs))
        return made[-1]

    yield make
    for item in made:
        item.close()


def test_a_call_without_reply_times_out_and_a_late_reply_is_ignored(pipes):
    p = pipes(call_timeout=0.2)
    with pytest.raises(CallTimeout, match="get_music_state: no reply from mixerd within 0.2 s"):
        p.connection.call("get_music_state", {})
    call = p.read()
    assert issubclass(CallTimeout, RuntimeError)
    p.send({"type": "reply", "id": call["id"], "result": None})
    # The next call gets its own reply, not the late one.
    result = {}
    thread = threading.Thread(target=lambda: result.update(
        value=p.connection.call("get_slider_value", {"index": 1})))
    thread.start()
    second = p.read()
    assert second["id"] == call["id"] + 1
    p.send({"type": "reply", "id": second["id"], "result": 42})
    thread.join(5)
    assert result == {"value": 42}
    assert any("no waiting call" in reason for reason in p.bad_lines)


def test_calls_after_the_host_closed_raise_at_once(pipes):
    p = pipes()
    p.host_out.close()
    assert p.connection.incoming.get(timeout=5) is connection_module.END_OF_INPUT
    with pytest.raises(ConnectionClosed):
        p.connection.call("get_device_state", {})


def test_a_write_to_a_host_that_is_gone_raises_connection_closed(pipes):
    p = pipes()
    p.host_in.close()
    with pytest.raises(ConnectionClosed):
        p.connection.notify("log", {"message": "x", "level": "info"})


def test_the_host_lines_other_than_replies_queue_for_the_main_thread(pipes):
    p = pipes()
    p.send({"type": "hook", "id": 1, "hook": "on_load", "args": []})
    assert p.connection.incoming.get(timeout=5) == {"type": "hook", "id": 1, "hook": "on_load",
                                                    "args": []}


def test_a_line_over_1_mib_from_the_host_is_skipped(pipes):
    p = pipes()
    threading.Thread(target=lambda: (
        p.host_out.write(b"[" + b"1," * (600 * 1024) + b"1]\n"),
        p.send({"type": "hook", "id": 2, "hook": "on_load", "args": []})), daemon=True).start()
    assert p.connection.incoming.get(timeout=5)["id"] == 2
    assert p.bad_lines == ["a line over 1 MiB from mixerd was ignored"]


def test_methods_of_a_plugin_outside_the_runner_say_so():
    plugin = Plugin()
    with pytest.raises(RuntimeError, match="not connected to mixerd"):
        plugin.send_serial("X")
    assert plugin.on_macro_execute({}) is False
