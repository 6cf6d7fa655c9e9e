"""Fault and load tests (issue 6): the integration harness (tests/integration/conftest.py: Daemon,
FakeDevice, http, fixtures) is loaded from its own file under the name `integration_harness`, so
that both suites can be collected in one pytest run without their conftests colliding.

MIXERD_BIN: the binary under test. MIXERD_FAULT_SCALE: short (default, what CI runs) or full.
"""
import atexit
import importlib.util
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
INTEGRATION_DIR = os.path.normpath(os.path.join(HERE, "..", "integration"))
if INTEGRATION_DIR not in sys.path:
    sys.path.insert(0, INTEGRATION_DIR)  # socketio_support, audio_support
if HERE not in sys.path:
    sys.path.insert(0, HERE)


def _load_harness():
    if "integration_harness" in sys.modules:
        return sys.modules["integration_harness"]
    spec = importlib.util.spec_from_file_location("integration_harness",
                                                  os.path.join(INTEGRATION_DIR, "conftest.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["integration_harness"] = module
    spec.loader.exec_module(module)
    return module


def _pin_binary(harness):
    """Runs a private link (or copy) of MIXERD_BIN, so that a rebuild during a long run (the
    linker replaces the file) does not pull the binary away between two starts."""
    source = os.path.abspath(harness.MIXERD_BIN)
    if not os.path.isfile(source):
        return source
    folder = tempfile.mkdtemp(prefix="mixerd-faults-")
    atexit.register(shutil.rmtree, folder, True)
    pinned = os.path.join(folder, "mixerd")
    try:
        os.link(source, pinned)
    except OSError:
        shutil.copy2(source, pinned)
    harness.MIXERD_BIN = pinned
    return source


BINARY_UNDER_TEST = _pin_binary(_load_harness())

# The harness's fixtures, re-exported so pytest finds them for the tests here.
from integration_harness import connected, daemon_factory, data_dir, device  # noqa: E402,F401

import fault_support  # noqa: E402


def pytest_report_header(config):
    return (f"mixerd: {BINARY_UNDER_TEST} (sanitized: {fault_support.SANITIZED}); "
            f"fault scale: {fault_support.SCALE_NAME}")
