"""The base class of every mixerd plugin.

A plugin subclasses `Plugin`, overrides the hooks it wants and calls the methods to act on the
daemon. The runner (`python3 -m mixerd.runner`) creates the one instance and runs its hooks on
the main thread, one at a time; the methods may be called from any thread.
"""
import logging
import threading

# Every hook a plugin may override, in the order of the contract. The runner tells the host
# which of them a class overrides, and the host sends only those.
HOOKS = (
    "on_load",
    "on_unload",
    "on_enable",
    "on_disable",
    "on_device_connect",
    "on_device_disconnect",
    "on_slider_change",
    "on_macro_button",
    "on_mute_button",
    "on_encoder_turn",
    "on_encoder_press",
    "on_serial_receive",
    "on_page_change",
    "on_macro_page_change",
    "on_music_track_change",
    "on_macro_execute",
    "on_profile_change",
    "on_settings_change",
)

LOG_LEVELS = ("debug", "info", "warning", "error")

# Set by the runner while it creates the plugin instance, so that Plugin.__init__ finds its
# connection without constructor arguments (subclasses call super().__init__() plainly).
_binding = threading.local()


def _bind(connection, info):
    _binding.value = (connection, info)


def _unbind():
    _binding.value = None


class Plugin:
    """Base class for plugins; every hook does nothing (on_macro_execute returns False)."""

    def __init__(self):
        bound = getattr(_binding, "value", None)
        self._mixerd_connection, info = bound if bound else (None, {})
        self._mixerd_info = dict(info)
        self._mixerd_macro_types = {}
        self._mixerd_macro_types_lock = threading.Lock()
        self.logger = logging.getLogger(f"mixerd.plugin.{self.id or type(self).__name__}")

    # -- who this plugin is (from its manifest) -------------------------------------------------

    @property
    def id(self):
        return self.__dict__.get("_mixerd_info", {}).get("id", "")

    @property
    def name(self):
        return self.__dict__.get("_mixerd_info", {}).get("name", "")

    @property
    def version(self):
        return self.__dict__.get("_mixerd_info", {}).get("version", "")

    @property
    def folder(self):
        """The plugin's folder (also the working folder of its process)."""
        return self.__dict__.get("_mixerd_info", {}).get("folder", "")

    # -- hooks ---------------------------------------------------------------------------------

    def on_load(self):
        pass

    def on_unload(self):
        pass

    def on_enable(self):
        pass

    def on_disable(self):
        pass

    def on_device_connect(self, port):
        pass

    def on_device_disconnect(self):
        pass

    def on_slider_change(self, index, value):
        pass

    def on_macro_button(self, index, page):
        pass

    def on_mute_button(self, index, state):
        pass

    def on_encoder_turn(self, direction):
        pass

    def on_encoder_press(self, press_type):
        pass

    def on_serial_receive(self, data):
        pass

    def on_page_change(self, page_name):
        pass

    def on_macro_page_change(self, page_index):
        pass

    def on_music_track_change(self, track_info):
        pass

    def on_macro_execute(self, macro):
        """Called before any macro runs; return True when the plugin handled it (the daemon then
        does not run it)."""
        return False

    def on_profile_change(self, name):
        pass

    def on_settings_change(self, key, value):
        pass

    # -- methods -------------------------------------------------------------------------------

    def send_serial(self, command):
        """Puts one line on the device link: True when queued, False when no device is
        connected. ValueError: empty, over 255 bytes, or a control byte."""
        return self._call("send_serial", command=command)

    def trigger_macro(self, index, page=None):
        """Runs macro slot `index` (0-8) of `page` (0-3; None: the current page): True when
        started, False when the slot is empty or still running."""
        return self._call("trigger_macro", index=index, page=page)

    def register_macro_type(self, type_name, handler):
        """Makes `handler(macro) -> bool` run every `plugin` macro whose `plugin_type` is
        `type_name`. True; ValueError for a bad name or one another plugin owns."""
        if not callable(handler):
            raise TypeError("register_macro_type: handler must be callable")
        with self._mixerd_macro_types_lock:
            previous = self._mixerd_macro_types.get(type_name)
            self._mixerd_macro_types[type_name] = handler
        try:
            return self._call("register_macro_type", type_name=type_name)
        except BaseException:
            with self._mixerd_macro_types_lock:
                if previous is None:
                    self._mixerd_macro_types.pop(type_name, None)
                else:
                    self._mixerd_macro_types[type_name] = previous
            raise

    def get_slider_value(self, index):
        """The value 0-100 of slider `index` (1-4)."""
        return self._call("get_slider_value", index=index)

    def get_device_state(self):
        """{"connected", "port", "page", "firmware_version", "sliders", "mutes", "volume"}."""
        return self._call("get_device_state")

    def get_music_state(self):
        """The Music state (as GET /api/music), or None without a player."""
        return self._call("get_music_state")

    def get_all_macros(self):
        """The macro page set (as GET /api/macros)."""
        return self._call("get_all_macros")

    def get_setting(self, key, default=None):
        """The stored value of this plugin's setting `key`, else the schema's default, else
        `default`."""
        return self._call("get_setting", key=key, default=default)

    def set_setting(self, key, value):
        """Saves this plugin's setting `key`: True; ValueError when settings_schema refuses it."""
        return self._call("set_setting", key=key, value=value)

    def get_all_settings(self):
        """The schema's defaults with the stored values over them."""
        return self._call("get_all_settings")

    def show_notification(self, title, message):
        """Shows a toast on the device (title 1-30, message at most 40 characters): True when
        the device shows it."""
        return self._call("show_notification", title=title, message=message)

    def log(self, message, level="info"):
        """Writes `message` into the daemon log at `level` (debug, info, warning, error)."""
        if level not in LOG_LEVELS:
            raise ValueError(f"log: level must be one of {', '.join(LOG_LEVELS)}, not {level!r}")
        self._connection().notify("log", {"message": str(message), "level": level})

    # -- internals -----------------------------------------------------------------------------

    def _connection(self):
        connection = self.__dict__.get("_mixerd_connection")
        if connection is None:
            raise RuntimeError(
                "this plugin is not connected to mixerd (it runs under python3 -m mixerd.runner)")
        return connection

    def _call(self, method, **args):
        return self._connection().call(method, args)

    def _macro_type_handler(self, type_name):
        lock = self.__dict__.get("_mixerd_macro_types_lock")
        if lock is None:
            return None
        with lock:
            return self._mixerd_macro_types.get(type_name)


def overridden_hooks(plugin_class):
    """The hooks `plugin_class` overrides (defines differently from Plugin)."""
    return [name for name in HOOKS if getattr(plugin_class, name, None) is not getattr(Plugin, name)]


def attach(instance, connection, info):
    """Gives an instance whose class skipped super().__init__() what Plugin.__init__ sets."""
    if "_mixerd_info" in instance.__dict__:
        return
    instance._mixerd_connection = connection
    instance._mixerd_info = dict(info)
    instance._mixerd_macro_types = {}
    instance._mixerd_macro_types_lock = threading.Lock()
    if "logger" not in instance.__dict__:
        instance.logger = logging.getLogger(f"mixerd.plugin.{instance.id}")
