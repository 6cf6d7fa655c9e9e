"""mixerd's plugin SDK: `from mixerd import Plugin`.

A plugin is a folder with manifest.json and an entry point that defines a subclass of Plugin;
the daemon runs it with `python3 -m mixerd.runner` (docs/plugins.md).
"""
from .connection import CallTimeout, ConnectionClosed
from .plugin import HOOKS, LOG_LEVELS, Plugin

API_VERSION = "1.0"

__all__ = ["API_VERSION", "CallTimeout", "ConnectionClosed", "HOOKS", "LOG_LEVELS", "Plugin"]
