"""The minimal build (tools/build.sh minimal: every MIXERD_WITH_<CAP> off) under the integration
tests' harness: the same daemon launcher, fake device and HTTP helpers.

MIXERD_BIN names the minimal binary (tools/run-tests.sh passes build/minimal/tools/mixerd).
"""
import importlib.util
import os

_spec = importlib.util.spec_from_file_location(
    "integration_harness", os.path.join(os.path.dirname(__file__), "..", "integration", "conftest.py"))
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)

# The harness's fixtures, registered here.
data_dir = harness.data_dir
device = harness.device
daemon_factory = harness.daemon_factory
connected = harness.connected
