"""Testing a plugin without the daemon: `PluginHarness` creates the plugin with `FakeMixerd`
answering its method calls in the same process, so a plugin's unit tests call hooks directly
and look at what it did.

    from mixerd.testing import PluginHarness

    def test_alert():
        harness = PluginHarness.from_folder("path/to/slider_alerts")
        harness.hook("on_load")
        harness.hook("on_slider_change", 2, 95)
        assert harness.mixerd.notifications == [("Slider 2 loud", "95 is over 90")]

The fake checks arguments as mixerd does (protocol/README.md, "Methods"), so a call the daemon
would refuse raises the same exception type here.
"""
import copy
import json
import os

from . import connection as _connection
from . import plugin as _plugin
from . import runner as _runner

SETTING_TYPES = {
    "string": lambda value: isinstance(value, str),
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "number": lambda value: (isinstance(value, (int, float)) and not isinstance(value, bool)
                             and value == value and value not in (float("inf"), float("-inf"))),
    "boolean": lambda value: isinstance(value, bool),
}


def empty_macro_pages():
    empty = {"type": "none", "name": "", "icon": ""}
    return {"current_page": 0,
            "page_names": {str(page): f"Page {page + 1}" for page in range(4)},
            "pages": {str(page): [dict(empty) for _ in range(9)] for page in range(4)}}


class FakeMixerd:
    """A stand-in for the daemon's side of the plugin methods, with state a test sets up and
    records a test reads: `notifications` [(title, message)], `serial_lines`, `triggered`
    [(index, page)], `macro_types`, `logs` [(level, message)], `settings` (the stored ones)."""

    def __init__(self, manifest=None, sliders=(50, 50, 50, 50), settings=None, music=None,
                 macros=None, connected=True):
        self.schema = dict((manifest or {}).get("settings_schema") or {})
        self.settings = dict(settings or {})
        self.sliders = list(sliders)
        self.music = music
        self.macros = macros if macros is not None else empty_macro_pages()
        self.connected = connected
        self.port = "/dev/ttyACM0"
        self.page = "MAIN"
        self.mutes = {"individual": [False] * 4, "master": False}
        self.volume = 50
        self.notifications = []
        self.serial_lines = []
        self.triggered = []
        self.macro_types = []
        self.logs = []

    def handle(self, method, args):
        """Answers one method call as mixerd would: its result, or raises."""
        handler = getattr(self, "_" + method, None)
        if handler is None:
            raise RuntimeError(f"unknown method {method}")
        return handler(**copy.deepcopy(args))

    def effective_settings(self):
        values = {key: spec.get("default") for key, spec in self.schema.items()}
        values.update(self.settings)
        return values

    def check_setting(self, key, value):
        """ValueError when mixerd would refuse `value` for `key`: the rules and wording of the
        daemon's check (protocol/README.md, "Plugins")."""
        if not isinstance(key, str) or not 1 <= len(key.encode()) <= 64:
            raise ValueError("a setting's name must be 1 to 64 bytes")
        if not self.schema:
            if _depth(value) > 16:
                raise ValueError("the value is nested deeper than 16 levels")
            if len(json.dumps(value, ensure_ascii=False).encode()) > 64 * 1024:
                raise ValueError("the value is over 64 KiB as JSON")
            return
        spec = self.schema.get(key)
        if spec is None:
            raise ValueError(f"'{key}' is not in the plugin's settings_schema")
        kind = spec.get("type")
        if not SETTING_TYPES.get(kind, lambda value: False)(value):
            article = "an" if kind == "integer" else "a"
            raise ValueError(f"'{key}' must be {article} {kind}, not {_type_word(value)}")
        if isinstance(value, str) and len(value.encode()) > 64 * 1024:
            raise ValueError(f"'{key}' is over 64 KiB")
        if kind in ("integer", "number"):
            if spec.get("min") is not None and value < spec["min"]:
                raise ValueError(f"'{key}' must be at least {_number_text(spec['min'])}")
            if spec.get("max") is not None and value > spec["max"]:
                raise ValueError(f"'{key}' must be at most {_number_text(spec['max'])}")

    # -- the methods (arguments by name, as on the wire) -----------------------------------------

    def _send_serial(self, command):
        if not isinstance(command, str):
            raise TypeError("command must be a string")
        if not command or len(command.encode()) > 255:
            raise ValueError("command must be 1-255 bytes")
        if any(ord(char) < 0x20 or ord(char) == 0x7F for char in command):
            raise ValueError("command must not contain control bytes")
        if not self.connected:
            return False
        self.serial_lines.append(command)
        return True

    def _trigger_macro(self, index, page=None):
        if not _is_int(index) or not 0 <= index <= 8:
            raise ValueError("index must be an integer from 0 to 8")
        if page is not None and (not _is_int(page) or not 0 <= page <= 3):
            raise ValueError("page must be an integer from 0 to 3")
        slot_page = self.macros["current_page"] if page is None else page
        if self.macros["pages"][str(slot_page)][index].get("type", "none") == "none":
            return False
        self.triggered.append((index, page))
        return True

    def _register_macro_type(self, type_name):
        if (not isinstance(type_name, str) or not 1 <= len(type_name) <= 64
                or not all(char.isascii() and (char.isalnum() or char in "_-.") for char in type_name)):
            raise ValueError("type_name must be 1-64 letters, digits, '_', '-' or '.'")
        self.macro_types.append(type_name)
        return True

    def _get_slider_value(self, index):
        if not _is_int(index) or not 1 <= index <= 4:
            raise ValueError("index must be an integer from 1 to 4")
        return self.sliders[index - 1]

    def _get_device_state(self):
        return {"connected": self.connected, "port": self.port if self.connected else "",
                "page": self.page, "firmware_version": "2.0.0",
                "sliders": [{"index": index + 1, "label": f"Slider {index + 1}", "value": value}
                            for index, value in enumerate(self.sliders)],
                "mutes": copy.deepcopy(self.mutes), "volume": self.volume}

    def _get_music_state(self):
        return copy.deepcopy(self.music)

    def _get_all_macros(self):
        return copy.deepcopy(self.macros)

    def _get_setting(self, key, default=None):
        return self.effective_settings().get(key, default)

    def _set_setting(self, key, value):
        self.check_setting(key, value)
        self.settings[key] = value
        return True

    def _get_all_settings(self):
        return self.effective_settings()

    def _show_notification(self, title, message):
        if not isinstance(title, str) or not 1 <= len(title) <= 30:
            raise ValueError("title must be 1-30 characters")
        if not isinstance(message, str) or len(message) > 40:
            raise ValueError("message must be at most 40 characters")
        self.notifications.append((title, message))
        return True

    def _log(self, message, level="info"):
        self.logs.append((level, message))


class _InProcessConnection:
    """What Plugin expects of its connection, answered by a FakeMixerd in the same thread."""

    def __init__(self, fake):
        self._fake = fake

    def call(self, method, args):
        _connection.encode_line({"args": args})  # the JSON and size checks of the real one
        return copy.deepcopy(self._fake.handle(method, args))

    def notify(self, method, args):
        self._fake.handle(method, args)


class PluginHarness:
    """One plugin instance wired to a FakeMixerd (`self.mixerd`); `self.plugin` is the instance."""

    def __init__(self, plugin_class, manifest=None, mixerd=None, folder=""):
        self.manifest = dict(manifest or {})
        self.mixerd = mixerd if mixerd is not None else FakeMixerd(self.manifest)
        info = {"id": self.manifest.get("id", "test.plugin"), "name": self.manifest.get("name", ""),
                "version": self.manifest.get("version", ""), "folder": folder}
        self.plugin = _runner.create_plugin(plugin_class, _InProcessConnection(self.mixerd), info)

    @classmethod
    def from_folder(cls, folder, **fake_options):
        """Loads a plugin folder as the runner does (manifest.json, entry_point, main_class);
        `fake_options` go to FakeMixerd (sliders, settings, music, ...)."""
        folder = os.path.abspath(folder)
        with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as file:
            manifest = json.load(file)
        plugin_class = _runner.load_plugin_class(folder, manifest.get("entry_point"),
                                                 manifest.get("main_class"))
        return cls(plugin_class, manifest, FakeMixerd(manifest, **fake_options), folder)

    def hook(self, name, *args):
        """Calls hook `name` as the runner does; its result (a bool for on_macro_execute, else
        None). Exceptions propagate to the test."""
        if name not in _plugin.HOOKS:
            raise AttributeError(f"no hook named {name!r}")
        result = getattr(self.plugin, name)(*args)
        return bool(result) if name in _runner.HOOKS_WITH_RESULT else None

    def run_macro(self, type_name, macro):
        """Runs a `plugin` macro of a type the plugin registered: the handler's result as bool."""
        handler = self.plugin._macro_type_handler(type_name)
        if handler is None:
            raise KeyError(f"no handler registered for macro type {type_name!r}")
        return bool(handler(copy.deepcopy(macro)))


def _type_word(value):
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    return "array" if isinstance(value, (list, tuple)) else "object"


def _number_text(number):
    return str(int(number)) if float(number).is_integer() and abs(number) < 1e15 else str(number)


def _depth(value):
    """JSON nesting depth: a scalar is 0, [] or {} 1."""
    if isinstance(value, dict):
        return 1 + max((_depth(item) for item in value.values()), default=0)
    if isinstance(value, (list, tuple)):
        return 1 + max((_depth(item) for item in value), default=0)
    return 0


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)
