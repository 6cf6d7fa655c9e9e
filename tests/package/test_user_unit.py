"""The packaged user unit under a real systemd user manager: `systemctl --user enable --now mixerd`
starts the packaged binary, which reports READY with its status text (Type=notify), serves its
page, and stops cleanly. Runs in a private mount and network namespace (tests/package/
user_manager.sh): the default ports are free there and nothing is installed on the machine."""
import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def parse(out):
    phases, phase = {}, None
    for line in out.splitlines():
        key, _, value = line.partition("=")
        if key == "phase":
            phase = phases.setdefault(value, {})
        elif phase is not None and value:
            phase[key] = value
    return phases


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"),
                    reason="needs root for the private namespaces")
def test_the_user_unit_starts_mixerd_which_reports_ready(unpacked, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    r = subprocess.run(["unshare", "-m", "-n", "--propagation", "private",
                        os.path.join(HERE, "user_manager.sh"), unpacked, str(home)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (r.stdout, r.stderr, (home / "systemd-user.log").read_text())
    phases = parse(r.stdout)
    started, stopped = phases["started"], phases["stopped"]
    assert started["Type"] == "notify"
    assert (started["ActiveState"], started["SubState"]) == ("active", "running"), r.stdout
    # The status line mixerd sent with READY=1 names its listeners.
    assert started["StatusText"].startswith("listening: controller on 0.0.0.0:5000"), started
    assert started["WatchdogUSec"] == "30s"
    assert "page_status=200" in r.stdout
    assert (stopped["ActiveState"], stopped["Result"]) == ("inactive", "success"), r.stdout
    # The daemon made its data folder where a user's is: removal of the package never touches it.
    assert "data: settings.json" in r.stdout
