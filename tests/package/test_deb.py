"""The Debian package of tools/package.sh: what it holds, its control fields, its unit, and the
mixerd inside it running from a throwaway root with the web page and the plugin SDK it carries.
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import tarfile
import io

import pytest

from conftest import ROOT, harness

EXPECTED_FILES = [
    "usr/bin/mixerd",
    "usr/bin/mixer-sim",
    "usr/share/mixerd/web/index.html",
    "usr/share/mixerd/web/index.html.gz",
    "usr/share/mixerd/web/assets/vendor/socket.io.esm.min.js",
    "usr/share/mixerd/python/mixerd/__init__.py",
    "usr/share/mixerd/python/mixerd/runner.py",
    "usr/share/mixerd/plugin-examples/now_playing/manifest.json",
    "usr/lib/systemd/user/mixerd.service",
    "lib/udev/rules.d/99-mixerd.rules",
    "usr/share/doc/mixerd/copyright",
    "usr/share/doc/mixerd/changelog.gz",
    "usr/share/doc/mixerd/examples/settings.example.json",
    "usr/share/man/man1/mixerd.1.gz",
    "usr/share/man/man1/mixer-sim.1.gz",
    "usr/share/metainfo/io.github.mixerd.metainfo.xml",
]


def deb_files(deb):
    listing = subprocess.run(["dpkg-deb", "-c", deb], check=True, stdout=subprocess.PIPE,
                             text=True).stdout
    # "-rw-r--r-- root/root  562 2026-11-24 20:00 ./lib/udev/rules.d/99-mixerd.rules"
    return {line.split(None, 5)[5].removeprefix("./"): line.split()[0]
            for line in listing.splitlines()}


def control_field(deb, name):
    return subprocess.run(["dpkg-deb", "-f", deb, name], check=True, stdout=subprocess.PIPE,
                          text=True).stdout.strip()


def test_the_package_holds_every_file_and_nothing_under_etc(deb):
    files = deb_files(deb)
    missing = [f for f in EXPECTED_FILES if f not in files]
    assert not missing, f"missing from {deb}: {missing}"
    assert files["usr/bin/mixerd"].startswith("-rwxr-xr-x")
    # Nothing in /etc (no conffile a removal would keep around) and nothing in a home.
    assert not [f for f in files if f.startswith(("etc/", "home/", "root/"))]


def test_no_maintainer_script_so_install_and_removal_never_touch_user_data(deb):
    control = subprocess.run(["dpkg-deb", "--ctrl-tarfile", deb], check=True,
                             stdout=subprocess.PIPE).stdout
    with tarfile.open(fileobj=io.BytesIO(control)) as tar:
        members = {os.path.basename(m.name) for m in tar.getmembers() if m.isfile()}
    assert members == {"control", "md5sums"}, members


def test_control_fields_name_version_architecture_and_dependencies(deb):
    assert control_field(deb, "Package") == "mixerd"
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        version = re.search(r"project\(mixerd VERSION (\S+)", f.read()).group(1)
    assert control_field(deb, "Version") == version
    arch = subprocess.run(["dpkg", "--print-architecture"], check=True, stdout=subprocess.PIPE,
                          text=True).stdout.strip()
    assert control_field(deb, "Architecture") == arch
    assert os.path.basename(deb) == f"mixerd_{version}_{arch}.deb"
    depends = [d.strip().split()[0] for d in control_field(deb, "Depends").split(",")]
    # python3 for the plugins; the rest computed from the binaries' shared libraries.
    for package in ("python3", "libc6", "libcaf-core0.17", "libpulse0", "libsystemd0"):
        assert package in depends, depends


def test_the_unit_is_type_notify_and_starts_the_packaged_binary(unpacked):
    with open(os.path.join(unpacked, "usr/lib/systemd/user/mixerd.service")) as f:
        unit = f.read()
    service = dict(line.split("=", 1) for line in unit.splitlines()
                   if "=" in line and not line.startswith("#"))
    assert service["Type"] == "notify"
    assert service["NotifyAccess"] == "main"
    assert int(service["WatchdogSec"]) > 0
    assert service["ExecStart"] == "/usr/bin/mixerd"
    assert os.access(os.path.join(unpacked, "usr/bin/mixerd"), os.X_OK)
    assert service["RestartPreventExitStatus"] == "2"
    assert service["WantedBy"] == "default.target"


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze not installed")
def test_systemd_accepts_the_unit(unpacked, tmp_path):
    # verify checks that ExecStart exists: point it into the throwaway root.
    with open(os.path.join(unpacked, "usr/lib/systemd/user/mixerd.service")) as f:
        unit = f.read().replace("ExecStart=/usr/bin/mixerd",
                                f"ExecStart={unpacked}/usr/bin/mixerd")
    (tmp_path / "mixerd.service").write_text(unit)
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", "--user",
                             str(tmp_path / "mixerd.service")],
                            env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert result.returncode == 0 and "mixerd.service" not in result.stdout, result.stdout


def test_the_man_page_renders(unpacked):
    with gzip.open(os.path.join(unpacked, "usr/share/man/man1/mixerd.1.gz"), "rt") as f:
        assert f.read().startswith(".\\\" Man page of mixerd(1)")
    if shutil.which("man"):
        text = subprocess.run(["man", "-l", os.path.join(unpacked, "usr/share/man/man1/mixerd.1.gz")],
                              check=True, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "MANWIDTH": "80"}).stdout
        assert "mixerd - control daemon" in text and "--serial" in text


def test_the_packaged_mixerd_serves_its_page_and_runs_a_plugin_with_its_sdk(unpacked, tmp_path):
    binary = os.path.join(unpacked, "usr/bin/mixerd")
    version = subprocess.run([binary, "--version"], check=True, stdout=subprocess.PIPE,
                             text=True).stdout.strip()
    assert version == "mixerd 1.5"

    data = tmp_path / "data"
    plugin = data / "plugins" / "executable" / "where"
    plugin.mkdir(parents=True)
    (plugin / "manifest.json").write_text(json.dumps({
        "id": "test.where", "name": "Where", "version": "1.0.0", "api_version": "1.0",
        "type": "executable", "entry_point": "main.py", "main_class": "Where"}))
    # Writes where the SDK it runs on was imported from.
    (plugin / "main.py").write_text(
        "import os\nimport mixerd\nfrom mixerd import Plugin\n\n\n"
        "class Where(Plugin):\n    def on_load(self):\n"
        "        with open(os.path.join(os.path.dirname(__file__), 'sdk.txt'), 'w') as f:\n"
        "            f.write(os.path.dirname(os.path.abspath(mixerd.__file__)))\n")

    daemon = harness.Daemon(str(data), ["--serial", "none"], binary=binary).start()
    try:
        daemon.wait_log(f"web controller from {unpacked}/usr/share/mixerd/web")
        status, body, headers = harness.http("GET", daemon.url("/"))
        assert status == 200 and headers["Content-Type"].startswith("text/html")
        with open(os.path.join(unpacked, "usr/share/mixerd/web/index.html")) as f:
            assert body == f.read()

        def running():
            plugins = harness.get_json(daemon, "/api/plugins")["plugins"]
            return [p for p in plugins if p["id"] == "test.where" and p["state"] == "running"]

        harness.wait_until(running, timeout=15, what="the plugin running")
        assert (plugin / "sdk.txt").read_text() == os.path.join(unpacked, "usr/share/mixerd/python/mixerd")
    finally:
        assert daemon.stop() == 0


@pytest.mark.skipif(not shutil.which("lintian"), reason="lintian not installed")
def test_lintian_finds_no_error(deb):
    result = subprocess.run(["lintian", "--tag-display-limit", "0", deb], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=600)
    print(result.stdout)
    errors = [line for line in result.stdout.splitlines() if line.startswith("E:")]
    assert not errors, result.stdout
