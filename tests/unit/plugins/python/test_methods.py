"""The Plugin methods as the host sees them: call lines with arguments by name, replies routed
to the calling thread, reply errors raised as their kind, macro type handlers."""
import json
import random

import pytest

# Each method with the arguments a plugin passes and the `args` object the host must get.
METHOD_CALLS = [
    ("send_serial", ("PAGE,Audio",), {"command": "PAGE,Audio"}),
    ("trigger_macro", (3,), {"index": 3, "page": None}),
    ("trigger_macro", (3, 1), {"index": 3, "page": 1}),
    ("get_slider_value", (4,), {"index": 4}),
    ("get_device_state", (), {}),
    ("get_music_state", (), {}),
    ("get_all_macros", (), {}),
    ("get_setting", ("threshold",), {"key": "threshold", "default": None}),
    ("get_setting", ("threshold", 80), {"key": "threshold", "default": 80}),
    ("set_setting", ("threshold", 75), {"key": "threshold", "value": 75}),
    ("get_all_settings", (), {}),
    ("show_notification", ("Title", "Message"), {"title": "Title", "message": "Message"}),
]

CALLER = """
    import json
    from mixerd import Plugin

    class TestPlugin(Plugin):
        def on_serial_receive(self, data):
            method, args = json.loads(data)
            try:
                result = getattr(self, method)(*args)
            except Exception as error:
                self.log(json.dumps(["raised", type(error).__name__, str(error),
                                     isinstance(error, RuntimeError)]))
            else:
                self.log(json.dumps(["returned", result]))
"""


def call_from_plugin(host, method, args, reply):
    """Makes the plugin call `method(*args)` inside a hook; returns (the call line, what the
    plugin logged about the outcome)."""
    calls = []

    def answer(call):
        calls.append(call)
        return reply

    host.logs.clear()
    done = host.run_hook("on_serial_receive", json.dumps([method, list(args)]), replies=answer)
    assert "error" not in done, done
    return calls, json.loads(host.logs[-1]["message"])


@pytest.mark.parametrize("method, args, wire_args", METHOD_CALLS)
def test_each_method_is_a_call_with_arguments_by_name_and_returns_the_result(
        plugin_host, method, args, wire_args):
    host = plugin_host(CALLER)
    host.init()
    result = {"connected": True, "sliders": [1, 2]}
    calls, outcome = call_from_plugin(host, method, args, {"result": result})
    assert [(call["method"], call["args"]) for call in calls] == [(method, wire_args)]
    assert isinstance(calls[0]["id"], int)
    assert outcome == ["returned", result]


@pytest.mark.parametrize("kind, expected", [
    ("ValueError", ["ValueError", "index must be 1-4", False]),
    ("TypeError", ["TypeError", "index must be 1-4", False]),
    ("KeyError", ["KeyError", "'index must be 1-4'", False]),
    ("RuntimeError", ["RuntimeError", "index must be 1-4", True]),
    ("OSError", ["RuntimeError", "OSError: index must be 1-4", True]),
])
def test_a_reply_error_is_raised_as_its_kind(plugin_host, kind, expected):
    host = plugin_host(CALLER)
    host.init()
    _, outcome = call_from_plugin(host, "get_slider_value", [9],
                                  {"error": {"kind": kind, "message": "index must be 1-4"}})
    assert outcome == ["raised"] + expected


def test_log_is_a_call_without_id_and_checks_its_level(plugin_host):
    host = plugin_host(CALLER)
    host.init()
    _, outcome = call_from_plugin(host, "log", ["careful", "warning"], None)
    assert host.logs[0] == {"message": "careful", "level": "warning"}
    assert outcome == ["returned", None]
    _, outcome = call_from_plugin(host, "log", ["loud", "critical"], None)
    assert outcome[:2] == ["raised", "ValueError"] and "critical" in outcome[2]


def test_a_line_over_1_mib_is_refused_before_it_is_written(plugin_host):
    host = plugin_host("""
        from mixerd import Plugin

        class TestPlugin(Plugin):
            def on_load(self):
                for method, args in (("send_serial", ["x" * 1024 * 1024]),
                                     ("set_setting", ["key", float("nan")]),
                                     ("set_setting", ["key", object()])):
                    try:
                        getattr(self, method)(*args)
                    except (TypeError, ValueError) as error:
                        self.log(f"{type(error).__name__}: {error}")
    """)
    host.init()
    host.run_hook("on_load")
    assert [entry["message"] for entry in host.logs] == [
        "ValueError: message of 1048644 bytes is over the 1 MiB line limit",
        "ValueError: Out of range float values are not JSON compliant",
        "TypeError: Object of type object is not JSON serializable"]


def test_calls_from_many_threads_each_get_their_own_reply(plugin_host):
    host = plugin_host("""
        import threading
        from mixerd import Plugin

        class TestPlugin(Plugin):
            def on_load(self):
                wrong = []
                def worker(number):
                    for round in range(20):
                        key = f"{number}/{round}"
                        if self.get_setting(key) != "value of " + key:
                            wrong.append(key)
                threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
                self.log(f"wrong: {sorted(wrong)}")
    """)
    host.init()
    hook_id = host.hook("on_load")
    # Hold every call until all 8 threads wait at once, then answer in a shuffled order.
    waiting, answered = [], 0
    while True:
        line = host.expect_any()
        if line["type"] == "hook_done":
            break
        if "id" not in line:
            host.logs.append(line["args"])
            continue
        waiting.append(line)
        if len(waiting) == 8 or answered + len(waiting) == 160:
            random.shuffle(waiting)
            for call in waiting:
                host.send({"type": "reply", "id": call["id"],
                           "result": "value of " + call["args"]["key"]})
            answered += len(waiting)
            waiting = []
    assert line == {"type": "hook_done", "id": hook_id, "result": None}
    assert answered == 160
    assert host.logs == [{"message": "wrong: []", "level": "info"}]


def test_registered_macro_type_runs_its_handler(plugin_host):
    host = plugin_host("""
        from mixerd import Plugin

        class TestPlugin(Plugin):
            def on_load(self):
                self.log(repr(self.register_macro_type("counter", self.count)))
                self.total = 0

            def count(self, macro):
                self.total += macro["step"]
                self.log(f"total {self.total}")
                return self.total < 5
    """)
    host.init()
    done = host.run_hook("on_load", replies=lambda call: {"result": True})
    assert "error" not in done
    assert host.logs[0]["message"] == "True"
    assert host.run_hook("macro_type", "counter", {"step": 2})["result"] is True
    assert host.run_hook("macro_type", "counter", {"step": 3})["result"] is False
    assert [entry["message"] for entry in host.logs[1:]] == ["total 2", "total 5"]
    done = host.run_hook("macro_type", "other", {})
    assert done["error"] == "KeyError: no handler registered for macro type 'other'"


def test_a_refused_macro_type_is_not_kept(plugin_host):
    host = plugin_host("""
        from mixerd import Plugin

        class TestPlugin(Plugin):
            def on_load(self):
                try:
                    self.register_macro_type("taken", lambda macro: True)
                except ValueError as error:
                    self.log(f"refused: {error}")
                try:
                    self.register_macro_type("x", "not callable")
                except TypeError as error:
                    self.log(f"refused: {error}")
    """)
    host.init()
    host.run_hook("on_load", replies=lambda call: {
        "error": {"kind": "ValueError", "message": "macro type taken belongs to org.other"}})
    assert [entry["message"] for entry in host.logs] == [
        "refused: macro type taken belongs to org.other",
        "refused: register_macro_type: handler must be callable"]
    done = host.run_hook("macro_type", "taken", {})
    assert done["error"] == "KeyError: no handler registered for macro type 'taken'"


def test_a_call_waiting_when_the_host_closes_raises_and_the_runner_exits_0(plugin_host):
    host = plugin_host("""
        import os
        from mixerd import Plugin, ConnectionClosed

        class TestPlugin(Plugin):
            def on_load(self):
                try:
                    self.get_device_state()
                except ConnectionClosed as error:
                    print(f"closed: {error}", flush=True)
    """)
    host.init()
    host.hook("on_load")
    assert host.expect("call")["method"] == "get_device_state"
    host.close_input()
    host.wait_stderr("closed: get_device_state: the connection to mixerd closed before the reply")
    assert host.wait_exit() == 0
