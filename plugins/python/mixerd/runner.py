"""Runs one plugin: `python3 -m mixerd.runner` in the plugin's folder (protocol/README.md,
"Plugins").

Reads the host's `init` line, loads the entry point, creates the main class's instance and
answers `ready` (or `fatal`, then exits 1); then runs each hook the host sends on this (main)
thread and answers `hook_done`. Exits 0 when the host closes standard input.
"""
import importlib.util
import logging
import os
import sys
import traceback

from . import connection as _connection
from . import plugin as _plugin

# Hooks whose return value is the result the host waits for; other hooks answer null.
HOOKS_WITH_RESULT = ("on_macro_execute",)
MACRO_TYPE_HOOK = "macro_type"


class LoadError(Exception):
    """The plugin could not be loaded; the message is the `fatal` line's error."""


def take_protocol_streams():
    """Moves the protocol off descriptors 0 and 1 and returns (reader, writer) for it.

    Afterwards descriptor 0 reads /dev/null and descriptor 1 is standard error, and so are
    sys.stdin and sys.stdout: print(), a C extension writing to stdout and a child process the
    plugin starts all land in the daemon log and none can read or write protocol lines.
    """
    protocol_in = os.dup(0)
    protocol_out = os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    for descriptor in (protocol_in, protocol_out):
        os.set_inheritable(descriptor, False)
    sys.stdin = open(0, "r", closefd=False)
    sys.stdout = sys.stderr
    # Buffered both ways: a raw readline reads byte by byte, and a raw write may write part of
    # a long line; the connection flushes after every line.
    return os.fdopen(protocol_in, "rb"), os.fdopen(protocol_out, "wb")


def check_entry_point(entry_point):
    if (not isinstance(entry_point, str) or not entry_point.endswith(".py") or "/" in entry_point
            or "\\" in entry_point or entry_point.startswith(".") or "\0" in entry_point):
        raise LoadError(f"ValueError: entry_point {entry_point!r} is not a .py file name in the "
                        "plugin's folder")


def load_plugin_class(folder, entry_point, main_class):
    """Imports `entry_point` from `folder` and returns its `main_class`; LoadError saying why
    not."""
    check_entry_point(entry_point)
    path = os.path.join(folder, entry_point)
    if not os.path.isfile(path):
        raise LoadError(f"FileNotFoundError: entry_point {entry_point} is not in {folder}")
    # The daemon refuses such a plugin when it finds it; the file may have become a link since.
    if not os.path.realpath(path).startswith(os.path.realpath(folder).rstrip(os.sep) + os.sep):
        raise LoadError(f"PermissionError: entry_point {entry_point} leads outside the plugin's "
                        "folder (a symbolic link)")
    # The plugin may import its own modules from its folder.
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module_name = entry_point[:-3]
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as error:  # SystemExit at import is a load failure too
        traceback.print_exc()
        raise LoadError(f"{describe(error)} (while importing {entry_point})") from None
    if not isinstance(main_class, str) or not main_class.isidentifier():
        raise LoadError(f"ValueError: main_class {main_class!r} is not a Python identifier")
    plugin_class = getattr(module, main_class, None)
    if plugin_class is None:
        raise LoadError(f"AttributeError: {entry_point} has no main_class {main_class}")
    if not isinstance(plugin_class, type) or not issubclass(plugin_class, _plugin.Plugin):
        raise LoadError(f"TypeError: {main_class} in {entry_point} is not a subclass of "
                        "mixerd.Plugin")
    return plugin_class


def create_plugin(plugin_class, connection, info):
    _plugin._bind(connection, info)
    try:
        instance = plugin_class()
    except BaseException as error:
        traceback.print_exc()
        raise LoadError(f"{describe(error)} (in {plugin_class.__name__}())") from None
    finally:
        _plugin._unbind()
    _plugin.attach(instance, connection, info)
    return instance


def run_hook(instance, message):
    """Runs one `hook` line; returns the hook_done line."""
    hook_id = message.get("id")
    name = message.get("hook")
    args = message.get("args", [])
    try:
        if not isinstance(args, list):
            raise TypeError(f"hook {name}: args must be a list")
        if name == MACRO_TYPE_HOOK:
            if len(args) != 2:
                raise TypeError("hook macro_type: args must be [type_name, macro]")
            handler = instance._macro_type_handler(args[0])
            if handler is None:
                raise KeyError(f"no handler registered for macro type {args[0]!r}")
            result = bool(handler(args[1]))
        elif name in _plugin.HOOKS:
            result = getattr(instance, name)(*args)
            result = bool(result) if name in HOOKS_WITH_RESULT else None
        else:
            raise AttributeError(f"no hook named {name!r}")
    except Exception as error:
        print(f"hook {name} raised:", file=sys.stderr)
        traceback.print_exc()
        return {"type": "hook_done", "id": hook_id, "error": describe(error)}
    return {"type": "hook_done", "id": hook_id, "result": result}


def describe(error):
    """`Kind: message` for a hook_done or fatal line (a KeyError without its repr quotes)."""
    text = error.args[0] if isinstance(error, KeyError) and len(error.args) == 1 else error
    return f"{type(error).__name__}: {text}"


def report_bad_line(reason):
    print(f"mixerd.runner: {reason}", file=sys.stderr, flush=True)


def serve(connection, folder=None):
    """The runner's main loop on an open connection; returns the exit status."""
    first = connection.incoming.get()
    if first is _connection.END_OF_INPUT:
        return 0
    try:
        if first.get("type") != "init":
            raise LoadError(f"ValueError: expected an init line first, got {first.get('type')!r}")
        info = first.get("plugin")
        if not isinstance(info, dict):
            raise LoadError("ValueError: the init line has no plugin object")
        folder = folder or info.get("folder") or os.getcwd()
        plugin_class = load_plugin_class(folder, first.get("entry_point"), first.get("main_class"))
        instance = create_plugin(plugin_class, connection, info)
    except LoadError as error:
        # The host logs the fatal line's text; tracebacks of import errors went to stderr.
        try:
            connection.send({"type": "fatal", "error": str(error)})
        except _connection.ConnectionClosed:
            pass
        return 1
    try:
        connection.send({"type": "ready", "hooks": _plugin.overridden_hooks(type(instance))})
        while True:
            message = connection.incoming.get()
            if message is _connection.END_OF_INPUT:
                return 0
            if message.get("type") != "hook":
                report_bad_line(f"a {message.get('type')!r} line was ignored")
                continue
            connection.send(run_hook(instance, message))
    except _connection.ConnectionClosed:
        # The host is gone (it closed our output); nobody is left to answer.
        return 0


def main():
    reader, writer = take_protocol_streams()
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(levelname)s %(name)s: %(message)s")
    connection = _connection.Connection(reader, writer, on_bad_line=report_bad_line)
    connection.start()
    try:
        status = serve(connection, folder=os.getcwd())
    except SystemExit as exit_request:
        # sys.exit() in a hook ends the plugin (a crash to the host) at once, whatever threads
        # it left running.
        code = exit_request.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
        print(f"mixerd.runner: the plugin called sys.exit({code!r})", file=sys.stderr)
    # Threads the plugin started must not keep its process alive once the host is done with it.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    main()
