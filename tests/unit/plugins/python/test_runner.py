"""mixerd.runner: loading a plugin, the ready/fatal answer, hook dispatch, standard streams and
the end of input."""
import json

import pytest

RECORDER = """
    import json
    from mixerd import Plugin

    class TestPlugin(Plugin):
        def record(self, name, *args):
            self.log(json.dumps([name, list(args)]))

        def on_load(self): self.record("on_load")
        def on_unload(self): self.record("on_unload")
        def on_enable(self): self.record("on_enable")
        def on_disable(self): self.record("on_disable")
        def on_device_connect(self, port): self.record("on_device_connect", port)
        def on_device_disconnect(self): self.record("on_device_disconnect")
        def on_slider_change(self, index, value): self.record("on_slider_change", index, value)
        def on_macro_button(self, index, page): self.record("on_macro_button", index, page)
        def on_mute_button(self, index, state): self.record("on_mute_button", index, state)
        def on_encoder_turn(self, direction): self.record("on_encoder_turn", direction)
        def on_encoder_press(self, press_type): self.record("on_encoder_press", press_type)
        def on_serial_receive(self, data): self.record("on_serial_receive", data)
        def on_page_change(self, page_name): self.record("on_page_change", page_name)
        def on_macro_page_change(self, page_index): self.record("on_macro_page_change", page_index)
        def on_music_track_change(self, track_info): self.record("on_music_track_change", track_info)
        def on_macro_execute(self, macro):
            self.record("on_macro_execute", macro)
            return macro.get("name") == "mine"
        def on_profile_change(self, name): self.record("on_profile_change", name)
        def on_settings_change(self, key, value): self.record("on_settings_change", key, value)
"""

# Every hook of the contract with arguments as the daemon sends them.
HOOK_CALLS = [
    ("on_load", []),
    ("on_enable", []),
    ("on_device_connect", ["/dev/ttyACM0"]),
    ("on_slider_change", [1, 57]),
    ("on_macro_button", [8, 3]),
    ("on_mute_button", ["master", True]),
    ("on_mute_button", [4, False]),
    ("on_encoder_turn", [-2]),
    ("on_encoder_press", ["release"]),
    ("on_serial_receive", ["SLIDER,0,57"]),
    ("on_page_change", ["Audio"]),
    ("on_macro_page_change", [2]),
    ("on_music_track_change", [{"title": "Song", "artist": "Band", "playing": True}]),
    ("on_profile_change", ["Gaming"]),
    ("on_settings_change", ["threshold", None]),
    ("on_device_disconnect", []),
    ("on_disable", []),
    ("on_unload", []),
]


def test_ready_lists_exactly_the_hooks_the_class_overrides(plugin_host):
    host = plugin_host("""
        from mixerd import Plugin

        class Base(Plugin):
            def on_encoder_turn(self, direction): pass

        class TestPlugin(Base):
            def on_slider_change(self, index, value): pass
            def on_macro_execute(self, macro): return True
            def helper(self): pass
    """)
    ready = host.init()
    assert ready == {"type": "ready",
                     "hooks": ["on_slider_change", "on_encoder_turn", "on_macro_execute"]}


def test_every_hook_is_called_with_its_arguments_in_order(plugin_host):
    host = plugin_host(RECORDER)
    ready = host.init()
    assert len(ready["hooks"]) == 18
    for name, args in HOOK_CALLS:
        done = host.run_hook(name, *args)
        assert done["result"] is None and "error" not in done, done
    recorded = [json.loads(entry["message"]) for entry in host.logs]
    assert recorded == [[name, args] for name, args in HOOK_CALLS]
    assert all(entry["level"] == "info" for entry in host.logs)


def test_on_macro_execute_answers_what_the_plugin_returns(plugin_host):
    host = plugin_host(RECORDER)
    host.init()
    assert host.run_hook("on_macro_execute", {"name": "mine", "type": "command"})["result"] is True
    assert host.run_hook("on_macro_execute", {"name": "other", "type": "command"})["result"] is False


def test_a_base_plugin_declines_every_macro(plugin_host):
    host = plugin_host("""
        from mixerd import Plugin
        class TestPlugin(Plugin):
            pass
    """)
    assert host.init() == {"type": "ready", "hooks": []}
    # The host sends only overridden hooks, but a default hook still answers correctly.
    assert host.run_hook("on_macro_execute", {"name": "x"})["result"] is False
    assert host.run_hook("on_slider_change", 1, 2)["result"] is None


def test_a_raising_hook_reports_the_error_and_the_plugin_goes_on(plugin_host):
    host = plugin_host("""
        from mixerd import Plugin
        class TestPlugin(Plugin):
            def on_slider_change(self, index, value):
                if value > 50:
                    raise ValueError(f"too loud: {value}")
                self.log(f"slider {index} {value}")
    """)
    host.init()
    done = host.run_hook("on_slider_change", 2, 90)
    assert done == {"type": "hook_done", "id": 1, "error": "ValueError: too loud: 90"}
    assert "Traceback" in host.wait_stderr("Traceback")
    host.wait_stderr("ValueError: too loud: 90")
    done = host.run_hook("on_slider_change", 2, 10)
    assert done == {"type": "hook_done", "id": 2, "result": None}
    assert host.logs == [{"message": "slider 2 10", "level": "info"}]


def test_wrong_arguments_and_unknown_hooks_are_errors_not_crashes(plugin_host):
    host = plugin_host(RECORDER)
    host.init()
    assert host.run_hook("on_slider_change", 1)["error"].startswith("TypeError: ")
    assert host.run_hook("on_nothing")["error"] == "AttributeError: no hook named 'on_nothing'"
    host.send({"type": "bogus"})
    host.wait_stderr("'bogus' line was ignored")
    host.send({"type": "hook", "id": 9, "hook": "on_load", "args": {"not": "a list"}})
    assert host.expect("hook_done") == {"type": "hook_done", "id": 9,
                                        "error": "TypeError: hook on_load: args must be a list"}
    assert host.run_hook("on_page_change", "Audio")["result"] is None


def test_lines_that_are_not_protocol_are_logged_and_ignored(plugin_host):
    host = plugin_host(RECORDER)
    host.init()
    host.process.stdin.write(b"not json\n[1,2]\n")
    host.process.stdin.flush()
    host.wait_stderr("is not JSON")
    host.wait_stderr("not a JSON object with a type")
    assert host.run_hook("on_page_change", "Audio")["result"] is None


def test_the_plugin_imports_its_own_modules_and_knows_its_manifest(plugin_host):
    host = plugin_host("""
        from mixerd import Plugin
        import helpers

        class TestPlugin(Plugin):
            def on_load(self):
                self.log(helpers.describe(self))
    """, **{"helpers.py": """
        def describe(plugin):
            return f"{plugin.id} {plugin.name} {plugin.version} {plugin.folder}"
    """})
    host.init()
    host.run_hook("on_load")
    assert host.logs[0]["message"] == f"org.example.test Test plugin 1.2.3 {host.folder}"


def test_a_class_that_skips_super_init_still_works(plugin_host):
    host = plugin_host("""
        from mixerd import Plugin
        class TestPlugin(Plugin):
            def __init__(self):
                self.count = 0
            def on_slider_change(self, index, value):
                self.count += 1
                self.log(f"{self.id} {self.count}")
    """)
    host.init()
    host.run_hook("on_slider_change", 1, 1)
    assert host.logs == [{"message": "org.example.test 1", "level": "info"}]


@pytest.mark.parametrize("source, entry_point, main_class, error", [
    ("", "missing.py", "TestPlugin", "FileNotFoundError: entry_point missing.py is not in"),
    ("", "../main.py", "TestPlugin", "ValueError: entry_point '../main.py' is not a .py file name"),
    ("", "main.py", "TestPlugin", "AttributeError: main.py has no main_class TestPlugin"),
    ("", "main.py", "not-a-name", "ValueError: main_class 'not-a-name' is not a Python identifier"),
    ("class TestPlugin:\n    pass\n", "main.py", "TestPlugin",
     "TypeError: TestPlugin in main.py is not a subclass of mixerd.Plugin"),
    ("TestPlugin = 3\n", "main.py", "TestPlugin",
     "TypeError: TestPlugin in main.py is not a subclass of mixerd.Plugin"),
    ("import no_such_module_here\n", "main.py", "TestPlugin",
     "ModuleNotFoundError: No module named 'no_such_module_here' (while importing main.py)"),
    ("def broken(:\n", "main.py", "TestPlugin", "SyntaxError: "),
    ("import sys\nsys.exit(3)\n", "main.py", "TestPlugin", "SystemExit: 3 (while importing main.py)"),
    ("from mixerd import Plugin\nclass TestPlugin(Plugin):\n    def __init__(self):\n"
     "        raise RuntimeError('no config')\n", "main.py", "TestPlugin",
     "RuntimeError: no config (in TestPlugin())"),
])
def test_a_plugin_that_cannot_load_answers_fatal_and_exits_1(plugin_host, source, entry_point,
                                                              main_class, error):
    host = plugin_host(source)
    fatal = host.init(entry_point=entry_point, main_class=main_class)
    assert fatal["type"] == "fatal" and fatal["error"].startswith(error), fatal
    assert host.next_line() is None
    assert host.wait_exit() == 1


def test_an_entry_point_linked_out_of_the_folder_is_fatal_and_never_runs(plugin_host):
    host = plugin_host(RECORDER)
    outside = host.folder.parent / "outside.py"
    ran = host.folder.parent / "ran"
    outside.write_text(f"open({str(ran)!r}, 'w').close()\n")
    (host.folder / "linked.py").symlink_to(outside)
    fatal = host.init(entry_point="linked.py")
    assert fatal == {"type": "fatal", "error": "PermissionError: entry_point linked.py leads "
                     "outside the plugin's folder (a symbolic link)"}, fatal
    assert host.wait_exit() == 1
    assert not ran.exists()
    inside = plugin_host(RECORDER)
    (inside.folder / "inside.py").symlink_to("main.py")
    assert inside.init(entry_point="inside.py")["type"] == "ready"


def test_a_first_line_other_than_init_is_fatal(plugin_host):
    host = plugin_host(RECORDER)
    host.hook("on_load")
    assert host.expect("fatal")["error"] == "ValueError: expected an init line first, got 'hook'"
    assert host.wait_exit() == 1


def test_print_child_processes_and_stdin_cannot_touch_the_protocol(plugin_host):
    host = plugin_host("""
        import os, subprocess, sys
        from mixerd import Plugin
        class TestPlugin(Plugin):
            def on_load(self):
                print("hello from print")
                sys.stdout.write("hello from sys.stdout\\n")
                os.write(1, b"hello from fd 1\\n")
                subprocess.run(["echo", "hello from a child"], check=True)
                self.log(repr(sys.stdin.read()) + " " + repr(os.read(0, 10)))
    """)
    host.init()
    done = host.run_hook("on_load")
    assert done["result"] is None and "error" not in done, done
    # stdin reads nothing: the protocol's input is not on descriptor 0.
    assert host.logs == [{"message": "'' b''", "level": "info"}]
    for text in ("hello from print", "hello from sys.stdout", "hello from fd 1", "hello from a child"):
        host.wait_stderr(text)
    assert not any(b"hello" in line for line in host.raw_lines)


def test_end_of_input_exits_0_even_with_threads_running(plugin_host):
    host = plugin_host("""
        import threading, time
        from mixerd import Plugin
        class TestPlugin(Plugin):
            def on_load(self):
                threading.Thread(target=lambda: time.sleep(3600)).start()
    """)
    host.init()
    host.run_hook("on_load")
    host.close_input()
    assert host.next_line() is None
    assert host.wait_exit() == 0


def test_end_of_input_before_init_exits_0(plugin_host):
    host = plugin_host(RECORDER)
    host.close_input()
    assert host.wait_exit() == 0
    assert host.next_line() is None


def test_hooks_run_on_the_main_thread_even_while_plugin_threads_call(plugin_host):
    host = plugin_host("""
        import threading
        from mixerd import Plugin

        class TestPlugin(Plugin):
            def on_load(self):
                self.worker = threading.Thread(target=lambda: self.log("from a thread"))
                self.worker.start()
                self.worker.join()

            def on_page_change(self, page_name):
                self.log(f"{page_name} on main: {threading.current_thread() is threading.main_thread()}")
    """)
    host.init()
    host.run_hook("on_load")
    host.run_hook("on_page_change", "Audio")
    assert [entry["message"] for entry in host.logs] == ["from a thread", "Audio on main: True"]


def test_sys_exit_in_a_hook_ends_the_process_with_its_code_despite_threads(plugin_host):
    host = plugin_host("""
        import sys, threading, time
        from mixerd import Plugin

        class TestPlugin(Plugin):
            def on_load(self):
                threading.Thread(target=lambda: time.sleep(3600)).start()

            def on_page_change(self, page_name):
                sys.exit(7)
    """)
    host.init()
    host.run_hook("on_load")
    host.hook("on_page_change", "Audio")
    assert host.next_line() is None
    assert host.wait_exit() == 7
    host.wait_stderr("the plugin called sys.exit(7)")
