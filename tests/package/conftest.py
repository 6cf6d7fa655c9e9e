"""The .deb under test: MIXERD_DEB names one, else tools/package.sh builds it (once per session),
and its files unpacked into a throwaway root with dpkg-deb -x.
"""
import importlib.util
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))

# The integration tests' harness (Daemon, http, wait_until), loaded under a name of its own.
_spec = importlib.util.spec_from_file_location("integration_harness",
                                               os.path.join(ROOT, "tests/integration/conftest.py"))
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)


@pytest.fixture(scope="session")
def deb():
    path = os.environ.get("MIXERD_DEB")
    if not path:
        out = subprocess.run([os.path.join(ROOT, "tools/package.sh")], check=True,
                             stdout=subprocess.PIPE, text=True, timeout=3600).stdout
        path = out.strip().splitlines()[-1]
    assert path.endswith(".deb") and os.path.isfile(path), path
    return path


@pytest.fixture(scope="session")
def unpacked(deb, tmp_path_factory):
    root = tmp_path_factory.mktemp("root")
    subprocess.run(["dpkg-deb", "-x", deb, str(root)], check=True)
    return str(root)
